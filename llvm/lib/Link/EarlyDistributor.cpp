//===- EarlyDistributor.cpp - ulto dist, started as the link begins -------===//

#include "ulto/Link/EarlyDistributor.h"
#include "ulto/Distributor/AttachedCommand.h"

#include "llvm/Support/FileSystem.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace llvm;

namespace ulto {

std::unique_ptr<EarlyDistributor> EarlyDistributor::start(StringRef Ulto,
                                                          StringRef Attach) {
  if (!sys::fs::can_execute(Ulto) || !sys::fs::can_execute(Attach))
    return nullptr;
  int Ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, Ends) != 0)
    return nullptr;
  // `ulto dist` inherits its end only; ld.ulto's end stays close-on-exec
  // until `ulto dist` has started, then lld's distributor inherits it.
  std::string Await = (AwaitCommandOption + Twine(Ends[1])).str();
  StringRef Args[] = {Ulto, "dist", Await};
  bool Failed = false;
  sys::ProcessInfo Process;
  if (fcntl(Ends[1], F_SETFD, 0) == 0)
    Process = sys::ExecuteNoWait(Ulto, Args, /*Env=*/std::nullopt,
                                 /*Redirects=*/{}, /*MemoryLimit=*/0,
                                 /*ErrMsg=*/nullptr, &Failed);
  else
    Failed = true;
  close(Ends[1]);
  if (Failed || fcntl(Ends[0], F_SETFD, 0) != 0) {
    close(Ends[0]);
    if (!Failed)
      sys::Wait(Process, /*SecondsToWait=*/std::nullopt);
    return nullptr;
  }
  return std::unique_ptr<EarlyDistributor>(
      new EarlyDistributor(Attach.str(), Ends[0], Process));
}

EarlyDistributor::~EarlyDistributor() {
  close(FD);
  sys::Wait(Process, /*SecondsToWait=*/std::nullopt);
}

std::string EarlyDistributor::attachArgument() const {
  return "--attach=" + std::to_string(FD);
}

} // namespace ulto
