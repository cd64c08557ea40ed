//===- RemotePlugin.cpp - The entry of libUltoRemote.so -------------------===//

#include "ulto/Remote/RemotePlugin.h"

using namespace llvm;
using namespace ulto;

static Expected<std::unique_ptr<Executor>>
connect(RemoteExecutorOptions Options, Executor &Local) {
  Expected<std::unique_ptr<RemoteExecutor>> Remote =
      RemoteExecutor::connect(std::move(Options), Local);
  if (!Remote)
    return Remote.takeError();
  return std::unique_ptr<Executor>(std::move(*Remote));
}

static Expected<RemoteCapabilities>
capabilities(const RemoteConfig &Config, std::chrono::milliseconds Deadline) {
  return fetchCapabilities(Config, Deadline);
}

extern "C" const RemotePlugin *ultoRemotePlugin() {
  static const RemotePlugin Plugin = {connect, capabilities,
                                      connectRemoteCache};
  return &Plugin;
}
