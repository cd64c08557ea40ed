//===- FileDigest.h - Files read whole, hashed once -------------*- C++ -*-===//
//
// Cache keys (BLAKE3) and remote content digests (SHA-256) both name files by
// content, and a link's jobs name the same files many times: a module is
// imported by dozens of jobs. Each file is read and hashed once per link.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_FILEDIGEST_H
#define ULTO_DISTRIBUTOR_FILEDIGEST_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <mutex>

namespace ulto {

using Digest = llvm::BLAKE3Result<32>;

/// The whole file at \p Path; the error names the path.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readWholeFile(llvm::StringRef Path);

/// Digests of files by \p Hash, each file read once however many jobs name
/// it (a module imported by 50 jobs is hashed once). Thread-safe.
template <typename DigestT> class FileDigestMemo {
public:
  using HashFunction = DigestT (*)(llvm::StringRef Bytes);
  explicit FileDigestMemo(HashFunction Hash) : Hash(Hash) {}

  llvm::Expected<DigestT> get(llvm::StringRef Path) {
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      auto It = Digests.find(Path);
      if (It != Digests.end())
        return It->second;
    }
    // Hash outside the lock: two threads may hash one file, never wrongly.
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
        readWholeFile(Path);
    if (!Buffer)
      return Buffer.takeError();
    DigestT D = Hash((*Buffer)->getBuffer());
    std::lock_guard<std::mutex> Lock(Mutex);
    return Digests.try_emplace(Path, D).first->second;
  }

private:
  HashFunction Hash;
  std::mutex Mutex;
  llvm::StringMap<DigestT> Digests;
};

Digest blake3Of(llvm::StringRef Bytes);

/// BLAKE3 digests of files, for cache keys.
class FileDigests : public FileDigestMemo<Digest> {
public:
  FileDigests() : FileDigestMemo(blake3Of) {}

  /// The file's digest in lowercase hex (a ContentHexFunction's answer).
  llvm::Expected<std::string> hex(llvm::StringRef Path);
};

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_FILEDIGEST_H
