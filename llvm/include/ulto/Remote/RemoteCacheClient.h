//===- RemoteCacheClient.h - A team's cache on a server ---------*- C++ -*-===//
//
// The remote cache (Distributor/RemoteCache.h) on a REAPI server without
// execution (bazel-remote, Buildbarn's storage, BuildBuddy's cache) or an
// HTTP cache that speaks Bazel's protocol. A job's entry is named by its
// action, built as remote execution builds it (RemoteAction.h), so a farm's
// results and a cache-only client's serve each other. Objects of jobs that
// run here go up in the background: the object to the CAS, then an
// ActionResult naming it.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_REMOTE_REMOTECACHECLIENT_H
#define ULTO_REMOTE_REMOTECACHECLIENT_H

#include "ulto/Distributor/RemoteCache.h"
#include "ulto/Remote/RemoteExecutor.h"

#include "llvm/Support/Error.h"

#include <chrono>
#include <memory>

namespace ulto {

struct RemoteCacheOptions {
  /// The server (parseRemoteCacheURL), and how jobs become actions: as a
  /// farm's link would make them.
  RemoteExecutorOptions Remote;
  /// Look up, never upload: developers read what CI writes.
  bool ReadOnly = false;
  /// Each call's limit, and the limit on the uploads at the link's end.
  std::chrono::milliseconds Timeout{std::chrono::seconds(10)};
  unsigned UploadThreads = 4;
  /// Bytes of objects waiting to go up, past which uploads are dropped.
  uint64_t MaxUploadBytes = uint64_t(256) << 20;
};

/// A client of the cache \p Options names; a gRPC server is asked for its
/// capabilities first (within the timeout), an HTTP one only when used.
llvm::Expected<std::unique_ptr<RemoteCache>>
connectRemoteCache(RemoteCacheOptions Options);

} // namespace ulto

#endif // ULTO_REMOTE_REMOTECACHECLIENT_H
