//===- LocalExecutor.cpp - Backend jobs run on this machine ---------------===//

#include "ulto/LocalExecution/LocalExecutor.h"
#include "ulto/Distributor/Cancellation.h"
#include "ulto/LocalExecution/CaptureFile.h"
#include "ulto/LocalExecution/CrashReport.h"
#include "ulto/LocalExecution/ForkServer.h"
#include "ulto/LocalExecution/SlotPool.h"
#include "ulto/LocalExecution/VersionProbe.h"

#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TimeProfiler.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>

using namespace llvm;

namespace ulto {

std::optional<std::chrono::milliseconds> startRetryDelay(int Errno,
                                                         unsigned Attempt) {
  // 10 ms, doubled up to 640 ms: 1.27 s in all, time for a burst of process
  // starts (many links' workers at once) to pass.
  constexpr unsigned Attempts = 7;
  if (Errno != EAGAIN || Attempt >= Attempts)
    return std::nullopt;
  return std::chrono::milliseconds(10 << Attempt);
}

// A new process of \p Command[0], stdout and stderr to \p OutputFile.
static ExecutionResult spawn(ArrayRef<std::string> Command,
                             StringRef OutputFile) {
  ErrorOr<std::string> Compiler = sys::findProgramByName(Command[0]);
  if (!Compiler)
    return ExecutionResult::ended(ExitKind::NotStarted,
                                  "compiler '" + Command[0] + "' not found");
  std::vector<StringRef> Args(Command.begin(), Command.end());
  std::optional<StringRef> Redirects[] = {StringRef(), OutputFile, OutputFile};
  std::string ErrMsg;
  bool ExecutionFailed = false;
  // Known from before it starts, so that an interrupt stops it.
  JobProcess Process;
  if (!Process.mayStart())
    return ExecutionResult::ended(ExitKind::Interrupted, "");
  sys::ProcessInfo Child;
  for (unsigned Attempt = 0;; ++Attempt) {
    Child = sys::ExecuteNoWait(*Compiler, Args, std::nullopt, Redirects,
                               /*MemoryLimit=*/0, &ErrMsg, &ExecutionFailed);
    if (!ExecutionFailed)
      break;
    // Program.h says why posix_spawn failed in words only.
    int Errno = StringRef(ErrMsg).ends_with(sys::StrError(EAGAIN)) ? EAGAIN : 0;
    std::optional<std::chrono::milliseconds> Delay =
        startRetryDelay(Errno, Attempt);
    if (!Delay)
      return ExecutionResult::ended(ExitKind::NotStarted, ErrMsg);
    std::this_thread::sleep_for(*Delay);
  }
  Process.started(Child.Pid);
  int Status =
      sys::Wait(Child, /*SecondsToWait=*/std::nullopt, &ErrMsg).ReturnCode;
  // Program.h reports a signal as -2, naming it in ErrMsg.
  if (Status == -2) {
    for (int Signal : {SIGINT, SIGTERM, SIGHUP})
      if (StringRef(ErrMsg).starts_with(strsignal(Signal)) &&
          endedByLinkInterrupt(Signal))
        return ExecutionResult::ended(ExitKind::Interrupted, ErrMsg);
    return ExecutionResult::ended(ExitKind::Signalled, ErrMsg);
  }
  return ExecutionResult::exited(Status);
}

static ExecutionResult fromForkServer(ForkServer::Status S) {
  switch (S.Kind) {
  case ForkServer::Status::Exited:
    return ExecutionResult::exited(S.Code);
  case ForkServer::Status::Signalled:
    return ExecutionResult::ended(endedByLinkInterrupt(S.Code)
                                      ? ExitKind::Interrupted
                                      : ExitKind::Signalled,
                                  strsignal(S.Code));
  case ForkServer::Status::NotForked:
    return ExecutionResult::ended(
        ExitKind::NotStarted, "fork server: " + std::string(strerror(S.Code)));
  }
  llvm_unreachable("unknown fork server status");
}

// A worker service that is gone, or ending, leaves a job to the link
// itself (WorkerService.h).
static bool serviceLost(const ForkServer &Server, ForkServer::Status S) {
  return Server.isService() && S.Kind == ForkServer::Status::NotForked;
}

VersionProbe LocalExecutor::versionProbe() const {
  if (!Server)
    return processVersionProbe();
  return [Server = Server](const std::string &Compiler,
                           StringRef OutputFile) -> Error {
    ForkServer::Status S = Server->run({Compiler, "--version"}, OutputFile);
    if (serviceLost(*Server, S))
      return processVersionProbe()(Compiler, OutputFile);
    if (S.Kind == ForkServer::Status::Exited && S.Code == 0)
      return Error::success();
    return createStringError("cannot run '%s --version' in the fork server",
                             Compiler.c_str());
  };
}

std::string LocalExecutor::report() const {
  if (!Server || !Server->isService())
    return std::string();
  std::string Text = "worker service " + std::to_string(Server->process());
  if (unsigned Here = RunHere.load())
    Text += ", which ended: " + std::to_string(Here) +
            (Here == 1 ? " job" : " jobs") + " ran here";
  return Text;
}

ExecutionResult LocalExecutor::run(const JobList &List, const BackendJob &Job) {
  // stdout and stderr go to one file, shown if the job fails.
  Expected<CaptureFile> Capture = CaptureFile::create();
  if (!Capture)
    return ExecutionResult::ended(ExitKind::NotStarted,
                                  toString(Capture.takeError()));
  StringRef OutputFile = Capture->path();
  std::optional<SlotPool::Slot> Slot;
  if (Slots) {
    TimeTraceScope Scope("wait for a slot", Job.module());
    Slot.emplace(Slots->acquire());
  }
  std::vector<std::string> Command = List.command(Job);
  std::optional<ExecutionResult> Ran;
  if (Server) {
    ForkServer::Status S = Server->run(Command, OutputFile);
    for (unsigned Attempt = 0; S.Kind == ForkServer::Status::NotForked;
         ++Attempt) {
      std::optional<std::chrono::milliseconds> Delay =
          startRetryDelay(S.Code, Attempt);
      if (!Delay)
        break;
      std::this_thread::sleep_for(*Delay);
      S = Server->run(Command, OutputFile);
    }
    if (serviceLost(*Server, S))
      ++RunHere;
    // Still no process of the server's: one of the compiler's own.
    else if (S.Kind != ForkServer::Status::NotForked || S.Code != EAGAIN)
      Ran = fromForkServer(S);
  }
  ExecutionResult Result = Ran ? std::move(*Ran) : spawn(Command, OutputFile);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Output =
      MemoryBuffer::getFile(OutputFile, /*IsText=*/true);
  if (!Output)
    return Result;
  // clang-22 catches its job's crash and exits 1; a fork-server worker ends
  // by the signal instead.
  CrashReport Crash = readCrashReport((*Output)->getBuffer());
  if (Result.Kind == ExitKind::Exited)
    Result = exitedAsReported(Result.Code, Crash);
  Result.Output = std::move(Crash.Output);
  Result.Reproducers = std::move(Crash.Reproducers);
  return Result;
}

} // namespace ulto
