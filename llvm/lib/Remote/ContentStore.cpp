//===- ContentStore.cpp - The server's content-addressed storage ----------===//

#include "ContentStore.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/RandomNumberGenerator.h"
#include "llvm/Support/SHA256.h"

#include <openssl/evp.h>

#include <array>

using namespace llvm;

namespace ulto {

// ByteStream chunks, well under gRPC's default message limit.
constexpr size_t ChunkBytes = 1 << 20;
// What the server takes in one batch when it does not say.
constexpr int64_t DefaultBatchBytes = 4 << 20;
// A batch entry's framing around its bytes, generously.
constexpr int64_t EntryOverhead = 256;

// OpenSSL's SHA-256, which gRPC loads anyway: 1.7 GB/s against LLVM's
// 0.34 GB/s where the CPU has SHA instructions (bench/README.md), for every
// byte of every job's inputs.
reapi::Digest digestOf(StringRef Bytes) {
  std::array<uint8_t, 32> Hash;
  unsigned Length = 0;
  if (!EVP_Digest(Bytes.data(), Bytes.size(), Hash.data(), &Length,
                  EVP_sha256(), nullptr) ||
      Length != Hash.size())
    Hash = SHA256::hash(arrayRefFromStringRef(Bytes));
  reapi::Digest D;
  D.set_hash(toHex(Hash, /*LowerCase=*/true));
  D.set_size_bytes(Bytes.size());
  return D;
}

static std::string resourceDigest(const reapi::Digest &D) {
  return "blobs/" + D.hash() + "/" + std::to_string(D.size_bytes());
}

ContentStore::ContentStore(const Connection &Server, int64_t MaxBatchBytes,
                           std::chrono::milliseconds TransferDeadline)
    : Server(Server), TransferDeadline(TransferDeadline),
      MaxBatchBytes(MaxBatchBytes > 0 ? MaxBatchBytes : DefaultBatchBytes),
      CAS(reapi::ContentAddressableStorage::NewStub(Server.channel())),
      ByteStream(google::bytestream::ByteStream::NewStub(Server.channel())) {}

grpc::Status ContentStore::upload(ArrayRef<const Blob *> Blobs,
                                  StringRef ActionId) {
  std::vector<const Blob *> Mine;
  std::vector<std::promise<grpc::Status>> Promises;
  std::vector<std::shared_future<grpc::Status>> Theirs;
  Promises.reserve(Blobs.size());
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    StringSet<> Seen;
    for (const Blob *B : Blobs) {
      if (!Seen.insert(B->Digest.hash()).second)
        continue;
      auto It = Present.find(B->Digest.hash());
      if (It != Present.end()) {
        Theirs.push_back(It->second);
        continue;
      }
      Promises.emplace_back();
      Present[B->Digest.hash()] = Promises.back().get_future().share();
      Mine.push_back(B);
    }
  }

  grpc::Status Status;
  if (!Mine.empty()) {
    reapi::FindMissingBlobsRequest Request;
    Request.set_instance_name(Server.config().Instance);
    for (const Blob *B : Mine)
      *Request.add_blob_digests() = B->Digest;
    reapi::FindMissingBlobsResponse Response;
    grpc::ClientContext Context;
    Server.prepare(Context, ActionId, TransferDeadline);
    Status = CAS->FindMissingBlobs(&Context, Request, &Response);
    if (Status.ok()) {
      StringSet<> MissingHashes;
      for (const reapi::Digest &D : Response.missing_blob_digests())
        MissingHashes.insert(D.hash());
      std::vector<const Blob *> Missing;
      for (const Blob *B : Mine)
        if (MissingHashes.contains(B->Digest.hash()))
          Missing.push_back(B);
      Status = send(Missing, ActionId);
    }
    for (std::promise<grpc::Status> &P : Promises)
      P.set_value(Status);
    if (!Status.ok())
      forget(Mine);
  }
  for (std::shared_future<grpc::Status> &Other : Theirs) {
    grpc::Status S = Other.get();
    if (!S.ok() && Status.ok())
      Status = S;
  }
  return Status;
}

void ContentStore::forget(ArrayRef<const Blob *> Blobs) {
  std::lock_guard<std::mutex> Lock(Mutex);
  for (const Blob *B : Blobs)
    Present.erase(B->Digest.hash());
}

grpc::Status ContentStore::send(ArrayRef<const Blob *> Missing,
                                StringRef ActionId) {
  reapi::BatchUpdateBlobsRequest Batch;
  int64_t BatchBytes = 0;
  auto Flush = [&]() -> grpc::Status {
    if (Batch.requests().empty())
      return grpc::Status::OK;
    Batch.set_instance_name(Server.config().Instance);
    reapi::BatchUpdateBlobsResponse Response;
    grpc::ClientContext Context;
    Server.prepare(Context, ActionId, TransferDeadline);
    grpc::Status Status = CAS->BatchUpdateBlobs(&Context, Batch, &Response);
    if (!Status.ok())
      return Status;
    for (const auto &Entry : Response.responses())
      if (Entry.status().code() != 0)
        return grpc::Status(
            static_cast<grpc::StatusCode>(Entry.status().code()),
            "blob " + Entry.digest().hash() + ": " + Entry.status().message());
    BytesSent += BatchBytes;
    BlobsSent += Batch.requests_size();
    Batch.Clear();
    BatchBytes = 0;
    return grpc::Status::OK;
  };

  for (const Blob *B : Missing) {
    std::unique_ptr<MemoryBuffer> File;
    StringRef Bytes = B->Bytes;
    if (!B->Path.empty()) {
      ErrorOr<std::unique_ptr<MemoryBuffer>> Read = MemoryBuffer::getFile(
          B->Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
      if (!Read)
        return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                            "cannot read " + B->Path + ": " +
                                Read.getError().message());
      File = std::move(*Read);
      Bytes = File->getBuffer();
    }
    int64_t Size = Bytes.size() + EntryOverhead;
    if (Size > MaxBatchBytes) {
      if (grpc::Status Status = write(*B, Bytes, ActionId); !Status.ok())
        return Status;
      continue;
    }
    if (BatchBytes + Size > MaxBatchBytes)
      if (grpc::Status Status = Flush(); !Status.ok())
        return Status;
    auto *Entry = Batch.add_requests();
    *Entry->mutable_digest() = B->Digest;
    Entry->set_data(Bytes.data(), Bytes.size());
    BatchBytes += Bytes.size();
  }
  return Flush();
}

grpc::Status ContentStore::write(const Blob &B, StringRef Bytes,
                                 StringRef ActionId) {
  uint8_t Random[16];
  std::string UploadId = getRandomBytes(Random, sizeof(Random))
                             ? B.Digest.hash()
                             : toHex(Random, /*LowerCase=*/true);
  grpc::ClientContext Context;
  Server.prepare(Context, ActionId, TransferDeadline);
  google::bytestream::WriteResponse Response;
  std::unique_ptr<grpc::ClientWriter<google::bytestream::WriteRequest>> Writer =
      ByteStream->Write(&Context, &Response);
  size_t Offset = 0;
  do {
    google::bytestream::WriteRequest Request;
    if (Offset == 0)
      Request.set_resource_name(Server.instancePrefix() + "uploads/" +
                                UploadId + "/" + resourceDigest(B.Digest));
    StringRef Chunk = Bytes.substr(Offset, ChunkBytes);
    Request.set_write_offset(Offset);
    Request.set_data(Chunk.data(), Chunk.size());
    Offset += Chunk.size();
    Request.set_finish_write(Offset == Bytes.size());
    // False: the stream ended early, perhaps because the server has the
    // blob already; Finish says which.
    if (!Writer->Write(Request))
      break;
  } while (Offset != Bytes.size());
  Writer->WritesDone();
  grpc::Status Status = Writer->Finish();
  if (Status.ok()) {
    BytesSent += Bytes.size();
    ++BlobsSent;
  }
  return Status;
}

grpc::Status ContentStore::read(const reapi::Digest &Digest, std::string &Bytes,
                                StringRef ActionId) {
  Bytes.clear();
  grpc::Status Status = readChunks(
      Digest,
      [&](StringRef Data) {
        if (Bytes.size() + Data.size() > size_t(Digest.size_bytes()))
          return false;
        Bytes += Data;
        return true;
      },
      ActionId);
  if (!Status.ok())
    return Status;
  // What came is what was asked for, or it is an error.
  reapi::Digest Got = digestOf(Bytes);
  if (Got.hash() != Digest.hash() || Got.size_bytes() != Digest.size_bytes())
    return grpc::Status(grpc::StatusCode::DATA_LOSS,
                        "blob " + Digest.hash() + " arrived damaged");
  return grpc::Status::OK;
}

grpc::Status ContentStore::read(const reapi::Digest &Digest,
                                BlobDownload &Download, StringRef ActionId) {
  return readChunks(
      Digest, [&](StringRef Data) { return Download.append(Data); }, ActionId);
}

grpc::Status ContentStore::readChunks(const reapi::Digest &Digest,
                                      function_ref<bool(StringRef)> Append,
                                      StringRef ActionId) {
  if (Digest.size_bytes() < 0 || Digest.size_bytes() > MaxBlobBytes)
    return grpc::Status(grpc::StatusCode::OUT_OF_RANGE,
                        "blob " + Digest.hash() + " of " +
                            std::to_string(Digest.size_bytes()) +
                            " bytes: more than ulto reads");
  if (!BatchReads || Digest.size_bytes() + EntryOverhead > MaxBatchBytes)
    return readStream(Digest, Append, ActionId);
  reapi::BatchReadBlobsRequest Request;
  Request.set_instance_name(Server.config().Instance);
  *Request.add_digests() = Digest;
  reapi::BatchReadBlobsResponse Response;
  grpc::ClientContext Context;
  Server.prepare(Context, ActionId, TransferDeadline);
  grpc::Status Status = CAS->BatchReadBlobs(&Context, Request, &Response);
  if (Status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
    BatchReads = false;
    return readStream(Digest, Append, ActionId);
  }
  if (!Status.ok())
    return Status;
  if (Response.responses_size() != 1)
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        "BatchReadBlobs answered " +
                            std::to_string(Response.responses_size()) +
                            " blobs for one");
  const auto &Entry = Response.responses(0);
  if (Entry.status().code() != 0)
    return grpc::Status(static_cast<grpc::StatusCode>(Entry.status().code()),
                        "blob " + Digest.hash() + ": " +
                            Entry.status().message());
  if (!Append(Entry.data()))
    return grpc::Status(grpc::StatusCode::DATA_LOSS,
                        "blob " + Digest.hash() +
                            " is longer than its digest says");
  return grpc::Status::OK;
}

grpc::Status ContentStore::readStream(const reapi::Digest &Digest,
                                      function_ref<bool(StringRef)> Append,
                                      StringRef ActionId) {
  google::bytestream::ReadRequest Request;
  Request.set_resource_name(Server.instancePrefix() + resourceDigest(Digest));
  grpc::ClientContext Context;
  Server.prepare(Context, ActionId, TransferDeadline);
  std::unique_ptr<grpc::ClientReader<google::bytestream::ReadResponse>> Reader =
      ByteStream->Read(&Context, Request);
  // What arrives is counted, not what the digest promises.
  google::bytestream::ReadResponse Response;
  while (Reader->Read(&Response)) {
    if (!Append(Response.data())) {
      Context.TryCancel();
      (void)Reader->Finish();
      return grpc::Status(grpc::StatusCode::DATA_LOSS,
                          "blob " + Digest.hash() +
                              " is longer than its digest says");
    }
  }
  return Reader->Finish();
}

} // namespace ulto
