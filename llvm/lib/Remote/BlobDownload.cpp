//===- BlobDownload.cpp - A blob arriving from a server, kept on disk -----===//

#include "BlobDownload.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <openssl/evp.h>

#include <array>
#include <cerrno>
#include <unistd.h>
#include <utility>

using namespace llvm;

namespace ulto {

Expected<BlobDownload> BlobDownload::start(StringRef Directory,
                                           const reapi::Digest &Digest) {
  SmallString<256> Model(Directory);
  if (Model.empty())
    sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Model);
  sys::path::append(Model, "download-%%%%%%%%");
  int FD;
  SmallString<256> Path;
  if (std::error_code EC =
          sys::fs::createUniqueFile(Model, FD, Path, sys::fs::OF_None,
                                    sys::fs::owner_read | sys::fs::owner_write))
    return createStringError(EC,
                             "cannot make a file for a download in '%s': %s",
                             Model.c_str(), EC.message().c_str());
  // Nameless from now on: only this process has it.
  sys::fs::remove(Path);
  EVP_MD_CTX *Hash = EVP_MD_CTX_new();
  if (!Hash || !EVP_DigestInit_ex(Hash, EVP_sha256(), nullptr)) {
    EVP_MD_CTX_free(Hash);
    ::close(FD);
    return createStringError("cannot start a SHA-256 digest");
  }
  return BlobDownload(FD, Digest, Hash);
}

BlobDownload::BlobDownload(int FD, const reapi::Digest &Digest, void *Hash)
    : FD(FD), Digest(Digest), Hash(Hash) {}

BlobDownload::BlobDownload(BlobDownload &&Other)
    : FD(std::exchange(Other.FD, -1)), Digest(std::move(Other.Digest)),
      Hash(std::exchange(Other.Hash, nullptr)), Size(Other.Size),
      Failure(std::move(Other.Failure)) {}

BlobDownload::~BlobDownload() {
  if (FD >= 0)
    ::close(FD);
  EVP_MD_CTX_free(static_cast<EVP_MD_CTX *>(Hash));
}

bool BlobDownload::append(StringRef Data) {
  if (!Failure.empty())
    return false;
  if (Size + Data.size() > uint64_t(Digest.size_bytes())) {
    Failure = "is longer than its digest says";
    return false;
  }
  EVP_DigestUpdate(static_cast<EVP_MD_CTX *>(Hash), Data.data(), Data.size());
  Size += Data.size();
  while (!Data.empty()) {
    ssize_t Written = ::write(FD, Data.data(), Data.size());
    if (Written < 0 && errno == EINTR)
      continue;
    if (Written <= 0) {
      Failure = "cannot be kept: " + sys::StrError(errno);
      return false;
    }
    Data = Data.drop_front(Written);
  }
  return true;
}

grpc::Status BlobDownload::finish(StringRef What,
                                  std::unique_ptr<MemoryBuffer> &Bytes) {
  auto Lost = [&](const Twine &Why) {
    return grpc::Status(grpc::StatusCode::DATA_LOSS, (What + " " + Why).str());
  };
  if (!Failure.empty())
    return Lost(Failure);
  std::array<uint8_t, 32> Sum;
  unsigned Length = 0;
  if (!EVP_DigestFinal_ex(static_cast<EVP_MD_CTX *>(Hash), Sum.data(),
                          &Length) ||
      Length != Sum.size())
    return grpc::Status(grpc::StatusCode::INTERNAL, "SHA-256 failed");
  if (Size != uint64_t(Digest.size_bytes()) ||
      toHex(Sum, /*LowerCase=*/true) != Digest.hash())
    return Lost("holds other bytes");
  ErrorOr<std::unique_ptr<MemoryBuffer>> Mapped = MemoryBuffer::getOpenFile(
      FD, What, Size, /*RequiresNullTerminator=*/false);
  if (!Mapped)
    return Lost("cannot be read back: " + Mapped.getError().message());
  Bytes = std::move(*Mapped);
  return grpc::Status::OK;
}

} // namespace ulto
