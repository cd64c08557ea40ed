//===- Executor.cpp - Where backend jobs run ------------------------------===//

#include "ulto/Distributor/Executor.h"

#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

namespace ulto {

Executor::~Executor() = default;

std::string describeExecution(const ExecutionResult &R) {
  std::string Where = R.Remote ? " on the remote" : "";
  switch (R.Kind) {
  case ExitKind::Exited:
    return "exited with status " + std::to_string(R.Code) + Where;
  case ExitKind::Signalled:
    return "crashed" + Where + ": " + R.Detail;
  case ExitKind::NotStarted:
    return (R.Remote ? "could not run remotely: " : "could not be started: ") +
           R.Detail;
  case ExitKind::TimedOut:
    return "timed out" + Where + ": " + R.Detail;
  case ExitKind::Interrupted:
    return "stopped: the link was interrupted";
  }
  llvm_unreachable("unknown exit kind");
}

} // namespace ulto
