//===- BlobDownload.h - A blob arriving from a server, kept on disk -*- C++
//-*-===//
//
// A server names a blob's size in its digest, up to 4 GiB, and sends what it
// likes: a remote cache whose entry named a 4 GiB object had the link buffer
// it in a growing string until the link ran out of memory. So a download
// goes to a file as it arrives, hashed as it arrives: memory per download is
// the transport's chunk, and the link maps the checked bytes from the file
// (the page cache's, not the heap's). The file is made in a directory only
// the user can enter (the jobs' private directory, PrivateObjects.h) and
// unlinked at once, so that no other process can name it.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LIB_REMOTE_BLOBDOWNLOAD_H
#define ULTO_LIB_REMOTE_BLOBDOWNLOAD_H

#include "build/bazel/remote/execution/v2/remote_execution.pb.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

namespace ulto {

namespace reapi = build::bazel::remote::execution::v2;

class BlobDownload {
public:
  /// A download of \p Digest's blob into a file in \p Directory (the
  /// system's temporary directory if empty).
  static llvm::Expected<BlobDownload> start(llvm::StringRef Directory,
                                            const reapi::Digest &Digest);
  BlobDownload(BlobDownload &&Other);
  BlobDownload &operator=(BlobDownload &&) = delete;
  ~BlobDownload();

  /// Appends \p Data; false once the blob would be longer than its digest
  /// says, or the file cannot take it (the status says which).
  bool append(llvm::StringRef Data);
  uint64_t size() const { return Size; }

  /// The bytes, if they are the digest's; DATA_LOSS naming \p What if not.
  grpc::Status finish(llvm::StringRef What,
                      std::unique_ptr<llvm::MemoryBuffer> &Bytes);

private:
  BlobDownload(int FD, const reapi::Digest &Digest, void *Hash);

  int FD;
  reapi::Digest Digest;
  void *Hash; ///< OpenSSL's EVP_MD_CTX.
  uint64_t Size = 0;
  std::string Failure; ///< Why append() failed.
};

} // namespace ulto

#endif // ULTO_LIB_REMOTE_BLOBDOWNLOAD_H
