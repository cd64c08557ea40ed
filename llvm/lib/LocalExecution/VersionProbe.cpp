//===- VersionProbe.cpp - A compiler's --version, from a process ----------===//

#include "ulto/LocalExecution/VersionProbe.h"
#include "ulto/Distributor/Cancellation.h"

#include "llvm/Support/Errno.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace llvm;

namespace ulto {

// Runs `<Compiler> --version`, stdout to \p OutputFile, in a process group of
// its own, and kills the group when the compiler has ended or at
// \p TimeLimit: no process of the probe outlives it, not even a wrapper's
// child that hangs. (LLVM's ExecuteAndWait kills the compiler alone, and its
// time limit is an alarm, which another thread may take.) The group does not
// get a terminal's Ctrl-C: an interrupt stops it (Cancellation.h).
namespace {
// posix_spawn's attributes for the probe: stdin and stderr /dev/null,
// stdout \p OutputFile, a process group of its own, no signal blocked or
// ignored.
struct ProbeSpawn {
  posix_spawn_file_actions_t Files;
  posix_spawnattr_t Attributes;
  std::string Output;

  explicit ProbeSpawn(StringRef OutputFile) : Output(OutputFile) {
    posix_spawn_file_actions_init(&Files);
    posix_spawn_file_actions_addopen(&Files, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&Files, 1, Output.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0666);
    posix_spawn_file_actions_addopen(&Files, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_init(&Attributes);
    posix_spawnattr_setpgroup(&Attributes, 0);
    sigset_t None, Defaults;
    sigemptyset(&None);
    posix_spawnattr_setsigmask(&Attributes, &None);
    sigemptyset(&Defaults);
    for (int Signal : {SIGINT, SIGTERM, SIGHUP, SIGPIPE})
      sigaddset(&Defaults, Signal);
    posix_spawnattr_setsigdefault(&Attributes, &Defaults);
    posix_spawnattr_setflags(&Attributes, POSIX_SPAWN_SETPGROUP |
                                              POSIX_SPAWN_SETSIGMASK |
                                              POSIX_SPAWN_SETSIGDEF);
  }
  ~ProbeSpawn() {
    posix_spawn_file_actions_destroy(&Files);
    posix_spawnattr_destroy(&Attributes);
  }
};
} // namespace

// Whether \p Pid ended before \p Deadline; left unreaped, so that the
// group's ID stays its own.
static bool endsBefore(pid_t Pid,
                       std::chrono::steady_clock::time_point Deadline) {
  while (std::chrono::steady_clock::now() < Deadline) {
    siginfo_t Info;
    Info.si_pid = 0;
    if (waitid(P_PID, Pid, &Info, WEXITED | WNOHANG | WNOWAIT) != 0 &&
        errno != EINTR)
      return false;
    if (Info.si_pid == Pid)
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

static Error runVersionProbe(const std::string &Compiler, StringRef OutputFile,
                             std::chrono::seconds TimeLimit) {
  ProbeSpawn Spawn(OutputFile);
  JobProcess Process;
  if (!Process.mayStart())
    return createStringError("cannot run '%s --version': interrupted",
                             Compiler.c_str());
  const char *Argv[] = {Compiler.c_str(), "--version", nullptr};
  pid_t Pid;
  if (int Errno =
          posix_spawn(&Pid, Compiler.c_str(), &Spawn.Files, &Spawn.Attributes,
                      const_cast<char **>(Argv), environ))
    return createStringError(std::error_code(Errno, std::generic_category()),
                             "cannot run '%s --version': %s", Compiler.c_str(),
                             strerror(Errno));
  Process.started(Pid, /*OwnGroup=*/true);

  bool Ended = endsBefore(Pid, std::chrono::steady_clock::now() + TimeLimit);
  kill(-Pid, SIGKILL);
  int Status = 0;
  while (waitpid(Pid, &Status, 0) < 0)
    if (errno != EINTR)
      return createStringError("cannot run '%s --version': %s",
                               Compiler.c_str(), strerror(errno));
  if (!Ended)
    return createStringError("compiler '%s' did not answer --version within "
                             "%lld s",
                             Compiler.c_str(), (long long)TimeLimit.count());
  if (WIFSIGNALED(Status))
    return createStringError("cannot run '%s --version': %s", Compiler.c_str(),
                             strsignal(WTERMSIG(Status)));
  if (WEXITSTATUS(Status) != 0)
    return createStringError("cannot run '%s --version': it exited with "
                             "status %d",
                             Compiler.c_str(), WEXITSTATUS(Status));
  return Error::success();
}

VersionProbe processVersionProbe(std::chrono::seconds TimeLimit) {
  return [TimeLimit](const std::string &Compiler, StringRef OutputFile) {
    return runVersionProbe(Compiler, OutputFile, TimeLimit);
  };
}

} // namespace ulto
