//===- EarlyDistributor.cpp - ulto dist, started as the link begins -------===//

#include "ulto/Link/EarlyDistributor.h"
#include "ulto/Distributor/AttachedCommand.h"
#include "ulto/Support/Message.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
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

EarlyDistributor::~EarlyDistributor() {
  close(FD);
  if (int Pipe = Checks.exchange(-1); Pipe >= 0)
    close(Pipe);
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
