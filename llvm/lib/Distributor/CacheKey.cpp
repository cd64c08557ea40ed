//===- CacheKey.cpp - What determines a ThinLTO backend's object ----------===//

#include "ulto/Distributor/CacheKey.h"
#include "ulto/Distributor/Cancellation.h"
#include "ulto/Distributor/ContentNames.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"

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

std::vector<std::string> replaceJobPaths(
    const JobList &List, const BackendJob &Job,
    function_ref<std::string(StringRef Path, PathRole Role, size_t Index)>
        Replacement) {
  std::vector<std::pair<StringRef, std::string>> Paths;
  Paths.push_back(
      {Job.module(), Replacement(Job.module(), PathRole::Module, 0)});
  Paths.push_back(
      {Job.indexShard(), Replacement(Job.indexShard(), PathRole::Shard, 0)});
  for (auto [I, Import] : enumerate(Job.imports()))
    Paths.push_back({Import, Replacement(Import, PathRole::Import, I)});
  Paths.push_back(
      {Job.output(), Replacement(Job.output(), PathRole::Output, 0)});
  for (auto [I, Input] : enumerate(List.CommonInputs))
    Paths.push_back({Input, Replacement(Input, PathRole::Common, I)});

  std::vector<std::string> Args;
  auto Replace = [&](StringRef Arg) {
    for (auto &[Path, New] : Paths) {
      if (Arg == Path)
        return New;
      if (Arg.ends_with(Path) && Arg.drop_back(Path.size()).ends_with("="))
        return Arg.drop_back(Path.size()).str() + New;
    }
    return Arg.str();
  };
  for (StringRef Arg : ArrayRef(List.CommonArgs).drop_front())
    Args.push_back(Replace(Arg));
  for (StringRef Arg : Job.Args)
    Args.push_back(Replace(Arg));
  return Args;
}

std::vector<std::string> normaliseArgs(const JobList &List,
                                       const BackendJob &Job) {
  return replaceJobPaths(
      List, Job, [](StringRef, PathRole Role, size_t Index) -> std::string {
        switch (Role) {
        case PathRole::Module:
          return "%module";
        case PathRole::Shard:
          return "%shard";
        case PathRole::Import:
          return "%import";
        case PathRole::Output:
          return "%output";
        case PathRole::Common:
          return "%common" + std::to_string(Index);
        }
        llvm_unreachable("unknown path role");
      });
}

// Runs `<Compiler> --version`, stdout to \p OutputFile, in a process group of
// its own, and kills the group when the compiler has ended or at
// \p TimeLimit: no process of the probe outlives it, not even a wrapper's
// child that hangs. (LLVM's ExecuteAndWait kills the compiler alone, and its
// time limit is an alarm, which another thread may take.) The group does not
// get a terminal's Ctrl-C: an interrupt stops it (Cancellation.h).
static Error runVersionProbe(const std::string &Compiler, StringRef OutputFile,
                             std::chrono::seconds TimeLimit) {
  posix_spawn_file_actions_t Files;
  posix_spawn_file_actions_init(&Files);
  posix_spawn_file_actions_addopen(&Files, 0, "/dev/null", O_RDONLY, 0);
  std::string Output = OutputFile.str();
  posix_spawn_file_actions_addopen(&Files, 1, Output.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0666);
  posix_spawn_file_actions_addopen(&Files, 2, "/dev/null", O_WRONLY, 0);
  posix_spawnattr_t Attributes;
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
  scope_exit Cleanup([&] {
    posix_spawn_file_actions_destroy(&Files);
    posix_spawnattr_destroy(&Attributes);
  });

  JobProcess Process;
  if (!Process.mayStart())
    return createStringError("cannot run '%s --version': interrupted",
                             Compiler.c_str());
  const char *Argv[] = {Compiler.c_str(), "--version", nullptr};
  pid_t Pid;
  if (int Errno = posix_spawn(&Pid, Compiler.c_str(), &Files, &Attributes,
                              const_cast<char **>(Argv), environ))
    return createStringError(std::error_code(Errno, std::generic_category()),
                             "cannot run '%s --version': %s", Compiler.c_str(),
                             strerror(Errno));
  Process.started(Pid, /*OwnGroup=*/true);

  // Until it has ended (left unreaped, so that the group's ID stays its
  // own) or its time is up.
  auto Deadline = std::chrono::steady_clock::now() + TimeLimit;
  bool Ended = false;
  while (!Ended && std::chrono::steady_clock::now() < Deadline) {
    siginfo_t Info;
    Info.si_pid = 0;
    if (waitid(P_PID, Pid, &Info, WEXITED | WNOHANG | WNOWAIT) != 0 &&
        errno != EINTR)
      break;
    Ended = Info.si_pid == Pid;
    if (!Ended)
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
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

Expected<std::string> computeCompilerIdentity(StringRef Compiler,
                                              const VersionProbe &Probe) {
  ErrorOr<std::string> Path = sys::findProgramByName(Compiler);
  if (!Path)
    return createStringError(Path.getError(), "compiler '%s' not found",
                             Compiler.str().c_str());
  Expected<std::unique_ptr<MemoryBuffer>> Executable = readWholeFile(*Path);
  if (!Executable)
    return Executable.takeError();

  SmallString<128> VersionFile;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("ulto-version", "txt", VersionFile))
    return createStringError(EC, "cannot create a temporary file: %s",
                             EC.message().c_str());
  // Removed after use, or by an interrupt (Cancellation.h).
  sys::RemoveFileOnSignal(VersionFile);
  scope_exit Remove([&] {
    sys::fs::remove(VersionFile);
    sys::DontRemoveFileOnSignal(VersionFile);
  });
  if (Error E = Probe(*Path, VersionFile))
    return E;
  Expected<std::unique_ptr<MemoryBuffer>> Version = readWholeFile(VersionFile);
  if (!Version)
    return Version.takeError();

  BLAKE3 Hasher;
  Hasher.update((*Executable)->getBuffer());
  SmallVector<StringRef, 8> Lines;
  (*Version)->getBuffer().split(Lines, '\n');
  for (StringRef Line : Lines)
    if (!Line.starts_with("InstalledDir:"))
      Hasher.update(Line);
  return toHex(Hasher.final<16>(), /*LowerCase=*/true);
}

// Each field is length-prefixed so that no two field lists hash alike.
static void addField(BLAKE3 &Hasher, StringRef Field) {
  uint64_t Size = Field.size();
  Hasher.update(ArrayRef(reinterpret_cast<const uint8_t *>(&Size), 8));
  Hasher.update(Field);
}

Expected<std::string> computeBackendKey(const JobList &List,
                                        const BackendJob &Job,
                                        StringRef CompilerIdentity,
                                        FileDigests &Digests,
                                        std::optional<StringRef> Shard) {
  BLAKE3 Hasher;
  addField(Hasher, "ulto-backend-2");
  addField(Hasher, CompilerIdentity);
  for (const std::string &Arg : normaliseArgs(List, Job))
    addField(Hasher, Arg);

  // The files by content: each name (which holds the module's rank) and the
  // whole digest, the modules in their names' order, then the shared
  // inputs; the job's own module by name too.
  Expected<ContentNames> Names =
      nameByContent(List, Job, [&](StringRef Path) -> Expected<std::string> {
        Expected<Digest> D = Digests.get(Path);
        if (!D)
          return D.takeError();
        return toHex(*D, /*LowerCase=*/true);
      });
  if (!Names)
    return Names.takeError();
  addField(Hasher, Names->NameOf.lookup(Job.module()));
  for (const NamedFile &File : Names->Files) {
    addField(Hasher, File.Name);
    addField(Hasher, File.ContentHex);
  }

  // The shard naming its modules so.
  Expected<std::string> Renamed = renameShardByContent(Job, *Names, Shard);
  if (!Renamed)
    return Renamed.takeError();
  addField(Hasher, *Renamed);
  return toHex(Hasher.final<32>(), /*LowerCase=*/true);
}

} // namespace ulto
