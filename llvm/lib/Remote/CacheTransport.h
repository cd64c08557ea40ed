//===- CacheTransport.h - How a remote cache is spoken to -------*- C++ -*-===//
//
// REAPI's ActionCache and CAS over gRPC, or Bazel's HTTP cache protocol
// (GET and PUT of <base>/ac/<hash>, an ActionResult, and <base>/cas/<hash>,
// a blob). Both answer in gRPC's statuses: NOT_FOUND is a miss, DATA_LOSS a
// blob that is not what its digest names, anything else the server's
// failure.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LIB_REMOTE_CACHETRANSPORT_H
#define ULTO_LIB_REMOTE_CACHETRANSPORT_H

#include "BlobDownload.h"
#include "ContentStore.h"

#include "ulto/Remote/Capabilities.h"
#include "ulto/Remote/RemoteCacheClient.h"
#include "ulto/Remote/RemoteConfig.h"

#include "llvm/Support/Error.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

namespace ulto {

class CacheTransport {
public:
  virtual ~CacheTransport();
  virtual grpc::Status getActionResult(const reapi::Digest &Action,
                                       reapi::ActionResult &Result) = 0;
  /// The blob, as it arrives, into \p Into, which its caller finishes
  /// (checks against \p Digest).
  virtual grpc::Status readBlob(const reapi::Digest &Digest,
                                BlobDownload &Into) = 0;
  virtual grpc::Status writeBlob(const Blob &B,
                                 const std::atomic<bool> &Stop) = 0;
  virtual grpc::Status updateActionResult(const reapi::Digest &Action,
                                          const reapi::ActionResult &Result,
                                          const std::atomic<bool> &Stop) = 0;
  /// Bytes read and written, for the link's summary.
  virtual uint64_t bytesDown() const = 0;
  virtual uint64_t bytesUp() const = 0;
};

/// REAPI over gRPC, to a server whose \p Capabilities were asked; each call
/// fails after \p Timeout.
std::unique_ptr<CacheTransport>
makeGrpcTransport(const RemoteConfig &Config,
                  const RemoteCapabilities &Capabilities,
                  std::chrono::milliseconds Timeout);

/// Bazel's HTTP cache protocol at \p Config's base URL (libcurl).
llvm::Expected<std::unique_ptr<CacheTransport>>
makeHttpTransport(const RemoteConfig &Config,
                  std::chrono::milliseconds Timeout);

/// The remote cache on \p Transport; \p OutputPaths as Capabilities says,
/// \p Writable: the server takes clients' results.
std::unique_ptr<RemoteCache>
makeRemoteCache(RemoteCacheOptions Options,
                std::unique_ptr<CacheTransport> Transport, bool OutputPaths,
                bool Writable);

} // namespace ulto

#endif // ULTO_LIB_REMOTE_CACHETRANSPORT_H
