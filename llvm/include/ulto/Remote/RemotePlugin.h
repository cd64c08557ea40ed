//===- RemotePlugin.h - Remote execution, loaded when asked for -*- C++ -*-===//
//
// Remote execution is a library of its own, libUltoRemote.so in
// <prefix>/lib/ulto, that `ulto dist` loads only when it is given a remote.
// Linked into `ulto`, gRPC, protobuf and abseil (60 libraries) made every
// start of it 7 ms slower, local links included: 13,500 more symbol
// relocations at load, and a longer search for every other symbol. Most
// distributed links start `ulto dist` once and run locally.
//
// The library carries its own copies of the distributor code it uses
// (executors, job lists, cache keys: no process-wide state) and exports one
// function, ultoRemotePlugin(); the local executor it falls back on is
// `ulto`'s own, called through Executor.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_REMOTE_REMOTEPLUGIN_H
#define ULTO_REMOTE_REMOTEPLUGIN_H

#include "ulto/Remote/Capabilities.h"
#include "ulto/Remote/RemoteCacheClient.h"
#include "ulto/Remote/RemoteExecutor.h"

#include "llvm/Support/Error.h"

#include <chrono>
#include <memory>

namespace ulto {

struct RemotePlugin {
  /// RemoteExecutor::connect.
  llvm::Expected<std::unique_ptr<Executor>> (*Connect)(
      RemoteExecutorOptions Options, Executor &Local);
  /// fetchCapabilities of a configuration.
  llvm::Expected<RemoteCapabilities> (*FetchCapabilities)(
      const RemoteConfig &Config, std::chrono::milliseconds Deadline);
  /// connectRemoteCache.
  llvm::Expected<std::unique_ptr<RemoteCache>> (*ConnectCache)(
      RemoteCacheOptions Options);
};

/// The plugin of the `ulto` at \p Executable: <its directory>/../lib/ulto/
/// libUltoRemote.so; an error names the file and the loader's
/// reason.
llvm::Expected<const RemotePlugin &>
loadRemotePlugin(llvm::StringRef Executable);

} // namespace ulto

/// The plugin's one export.
extern "C" const ulto::RemotePlugin *ultoRemotePlugin();

#endif // ULTO_REMOTE_REMOTEPLUGIN_H
