//===- EarlyDistributor.cpp - ulto dist, started as the link begins -------===//

#include "ulto/Link/EarlyDistributor.h"
#include "ulto/DistProtocol/AttachedCommand.h"
#include "ulto/Support/Message.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace llvm;

namespace ulto {

// Closes what an exec would: the descriptors opened close-on-exec.
static void closeOnExecDescriptors() {
  DIR *Fds = opendir("/proc/self/fd");
  if (!Fds)
    return;
  int Own = dirfd(Fds);
  while (dirent *Entry = readdir(Fds)) {
    int FD;
    if (StringRef(Entry->d_name).getAsInteger(10, FD) || FD == Own)
      continue;
    int Flags = fcntl(FD, F_GETFD);
    if (Flags >= 0 && (Flags & FD_CLOEXEC))
      close(FD);
  }
  closedir(Fds);
}

// The forked child: `ulto dist --await-command=FD --await-checks=CHECKS` and
// \p Options from the library, or, if it does not load, from a started
// `ulto`.
[[noreturn]] static void runForked(StringRef Library, StringRef Ulto, int FD,
                                   int Checks, ArrayRef<std::string> Options) {
  // What ps and top show, and a crash's stack dump: the child is the
  // distributor, not the linker.
  prctl(PR_SET_NAME, "ulto dist");
  std::string Await = (AwaitCommandOption + Twine(FD)).str();
  std::string AwaitChecks = (AwaitChecksOption + Twine(Checks)).str();
  std::string Program = Ulto.str();
  std::vector<const char *> Command = {Program.c_str(), "dist", Await.c_str(),
                                       AwaitChecks.c_str()};
  for (const std::string &Option : Options)
    Command.push_back(Option.c_str());
  RestorePrettyStackState(nullptr);
  PrettyStackTraceProgram Distributor(Command.size(), Command.data());
  closeOnExecDescriptors();
  std::string Error;
  sys::DynamicLibrary Loaded =
      sys::DynamicLibrary::getPermanentLibrary(Library.str().c_str(), &Error);
  auto *Entry = Loaded.isValid()
                    ? reinterpret_cast<int (*)(int, const char *const *)>(
                          Loaded.getAddressOfSymbol("ultoDistMain"))
                    : nullptr;
  if (Entry) {
    int Code = Entry(Command.size() - 2, Command.data() + 2);
    // Not exit(): ld.ulto's static destructors and exit handlers are not
    // this process's.
    outs().flush();
    errs().flush();
    fflush(nullptr);
    _exit(Code);
  }
  if (Error.empty())
    Error = "it has no ultoDistMain";
  writeMessage(errs(), "ld.ulto", MessageKind::Warning,
               "cannot load " + Library + ": " + Error + "; starting " + Ulto);
  Command.push_back(nullptr);
  execv(Program.c_str(), const_cast<char **>(Command.data()));
  writeMessage(errs(), "ld.ulto", MessageKind::Error,
               "cannot start " + Ulto + ": " + strerror(errno));
  _exit(127);
}

std::unique_ptr<EarlyDistributor>
EarlyDistributor::start(StringRef Ulto, StringRef Attach, StringRef DistLibrary,
                        ArrayRef<std::string> Options) {
  if (!sys::fs::can_execute(Ulto) || !sys::fs::can_execute(Attach))
    return nullptr;
  int Ends[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, Ends) != 0)
    return nullptr;
  int Checks[2];
  if (pipe2(Checks, O_CLOEXEC) != 0) {
    close(Ends[0]);
    close(Ends[1]);
    return nullptr;
  }
  // `ulto dist` inherits its ends only; ld.ulto's end stays close-on-exec
  // until `ulto dist` has started, then lld's distributor inherits it. The
  // verdict's writing end stays ld.ulto's.
  bool Failed =
      fcntl(Ends[1], F_SETFD, 0) != 0 || fcntl(Checks[0], F_SETFD, 0) != 0;
  sys::ProcessInfo Process;
  if (!Failed && sys::fs::exists(DistLibrary)) {
    // Nothing buffered may be written twice, by ld.ulto and the child.
    outs().flush();
    errs().flush();
    fflush(nullptr);
    pid_t Pid = fork();
    if (Pid == 0)
      runForked(DistLibrary, Ulto, Ends[1], Checks[0], Options);
    Failed = Pid < 0;
    Process.Pid = Process.Process = Pid;
  } else if (!Failed) {
    std::string Await = (AwaitCommandOption + Twine(Ends[1])).str();
    std::string AwaitChecks = (AwaitChecksOption + Twine(Checks[0])).str();
    std::vector<StringRef> Args = {Ulto, "dist", Await, AwaitChecks};
    Args.insert(Args.end(), Options.begin(), Options.end());
    Process = sys::ExecuteNoWait(Ulto, Args, /*Env=*/std::nullopt,
                                 /*Redirects=*/{}, /*MemoryLimit=*/0,
                                 /*ErrMsg=*/nullptr, &Failed);
  }
  close(Ends[1]);
  close(Checks[0]);
  if (Failed || fcntl(Ends[0], F_SETFD, 0) != 0) {
    close(Ends[0]);
    close(Checks[1]);
    if (!Failed)
      sys::Wait(Process, /*SecondsToWait=*/std::nullopt);
    return nullptr;
  }
  return std::unique_ptr<EarlyDistributor>(
      new EarlyDistributor(Attach.str(), Ends[0], Checks[1], Process));
}

// Waits up to \p Limit for process \p Pid to end, and reaps it; true if it
// has ended. A pidfd wakes the wait as the process ends.
static bool waitFor(pid_t Pid, std::chrono::milliseconds Limit) {
  auto Deadline = std::chrono::steady_clock::now() + Limit;
  int PidFD = syscall(SYS_pidfd_open, Pid, 0);
  bool Ended = false;
  while (true) {
    int Status;
    pid_t Waited = waitpid(Pid, &Status, WNOHANG);
    if (Waited == Pid || (Waited < 0 && errno != EINTR)) {
      Ended = true;
      break;
    }
    auto Left = std::chrono::ceil<std::chrono::milliseconds>(
        Deadline - std::chrono::steady_clock::now());
    if (Left.count() <= 0)
      break;
    if (PidFD >= 0) {
      pollfd Fd = {PidFD, POLLIN, 0};
      poll(&Fd, 1, Left.count());
    } else {
      std::this_thread::sleep_for(std::min(Left, std::chrono::milliseconds(5)));
    }
  }
  if (PidFD >= 0)
    close(PidFD);
  return Ended;
}

EarlyDistributor::~EarlyDistributor() {
  close(FD);
  if (int Pipe = Checks.exchange(-1); Pipe >= 0)
    close(Pipe);
  // `ulto dist` ends on its own within milliseconds of its reply. One that
  // does not (its link failed while its jobs ran on: lld's distributor died,
  // a job hangs) is stopped as an interrupt stops it (Cancellation.h), and
  // killed if even that does not end it: the link ends, in bounded time.
  using namespace std::chrono_literals;
  if (waitFor(Process.Pid, LinkFailed ? 1s : 10s))
    return;
  kill(Process.Pid, SIGTERM);
  if (waitFor(Process.Pid, 5s))
    return;
  kill(Process.Pid, SIGKILL);
  sys::Wait(Process, /*SecondsToWait=*/std::nullopt);
}

void EarlyDistributor::reportChecks(bool Passed) {
  int Pipe = Checks.exchange(-1);
  if (Pipe < 0)
    return;
  // A failed write reads as no verdict, which ulto dist takes as a refusal.
  char Verdict = Passed ? ChecksPassed : ChecksRefused;
  (void)!write(Pipe, &Verdict, 1);
  close(Pipe);
}

std::string EarlyDistributor::attachArgument() const {
  return "--attach=" + std::to_string(FD);
}

} // namespace ulto
