//===- ContentStore.h - The server's content-addressed storage --*- C++ -*-===//
//
// Blobs go up only when the server lacks them (FindMissingBlobs), small ones
// batched (BatchUpdateBlobs, up to the server's batch limit), large ones
// streamed (ByteStream.Write). A blob that any job of the link made present
// is not asked about again, and a blob two jobs need at once is sent once:
// a module imported by 50 jobs goes up once. Downloads use BatchReadBlobs,
// or ByteStream.Read when the server has no batch reads.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LIB_REMOTE_CONTENTSTORE_H
#define ULTO_LIB_REMOTE_CONTENTSTORE_H

#include "BlobDownload.h"
#include "Connection.h"

#include "build/bazel/remote/execution/v2/remote_execution.grpc.pb.h"
#include "google/bytestream/bytestream.grpc.pb.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <string>

namespace ulto {

namespace reapi = build::bazel::remote::execution::v2;

/// The SHA-256 digest of \p Bytes.
reapi::Digest digestOf(llvm::StringRef Bytes);

/// A blob to make present: bytes in memory, or a file's.
struct Blob {
  reapi::Digest Digest;
  std::string Bytes;
  std::string Path; ///< Read when sent, if not empty.
};

/// The largest blob ulto reads from a server (an object, a job's output): a
/// result that names a larger one is a bad result, not an allocation.
constexpr int64_t MaxBlobBytes = int64_t(4) << 30;

class ContentStore {
public:
  /// Each call fails after \p TransferDeadline.
  ContentStore(
      const Connection &Server, int64_t MaxBatchBytes,
      std::chrono::milliseconds TransferDeadline = std::chrono::minutes(10));

  /// Makes every blob of \p Blobs present on the server.
  grpc::Status upload(llvm::ArrayRef<const Blob *> Blobs,
                      llvm::StringRef ActionId);
  /// Asks again about \p Blobs next time: the server lost them.
  void forget(llvm::ArrayRef<const Blob *> Blobs);
  /// The blob \p Digest names, no more than its digest's size (at most
  /// MaxBlobBytes): a server that sends more, or names a larger blob, gets
  /// an error, which its caller treats as any bad result.
  grpc::Status read(const reapi::Digest &Digest, std::string &Bytes,
                    llvm::StringRef ActionId);
  /// The same, into \p Download, which its caller finishes (checks).
  grpc::Status read(const reapi::Digest &Digest, BlobDownload &Download,
                    llvm::StringRef ActionId);

  uint64_t bytesSent() const { return BytesSent; }
  uint64_t blobsSent() const { return BlobsSent; }

  /// Sends \p Blobs without asking which the server lacks: for blobs just
  /// made (an object), which it almost never has.
  grpc::Status send(llvm::ArrayRef<const Blob *> Blobs,
                    llvm::StringRef ActionId);

private:
  grpc::Status write(const Blob &B, llvm::StringRef Bytes,
                     llvm::StringRef ActionId);
  /// The blob's bytes, as they arrive, to \p Append, which says false to
  /// stop (they would be more than the digest says).
  grpc::Status readChunks(const reapi::Digest &Digest,
                          llvm::function_ref<bool(llvm::StringRef)> Append,
                          llvm::StringRef ActionId);
  grpc::Status readStream(const reapi::Digest &Digest,
                          llvm::function_ref<bool(llvm::StringRef)> Append,
                          llvm::StringRef ActionId);

  const Connection &Server;
  std::chrono::milliseconds TransferDeadline;
  int64_t MaxBatchBytes;
  std::unique_ptr<reapi::ContentAddressableStorage::Stub> CAS;
  std::unique_ptr<google::bytestream::ByteStream::Stub> ByteStream;

  std::mutex Mutex;
  /// By digest hash: whether the blob is (or is being made) present.
  llvm::StringMap<std::shared_future<grpc::Status>> Present;
  std::atomic<bool> BatchReads{true};
  std::atomic<uint64_t> BytesSent{0}, BlobsSent{0};
};

} // namespace ulto

#endif // ULTO_LIB_REMOTE_CONTENTSTORE_H
