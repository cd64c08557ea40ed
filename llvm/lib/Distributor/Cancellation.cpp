//===- Cancellation.cpp - An interrupted link leaves nothing behind -------===//

#include "ulto/Distributor/Cancellation.h"
#include "ulto/Distributor/PrivateObjects.h"
#include "ulto/Support/DTLTONames.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"

#include <atomic>
#include <cerrno>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

using namespace llvm;

namespace ulto {

//===----------------------------------------------------------------------===//
// The linker's files, by lld-22's names
//===----------------------------------------------------------------------===//

// lld puts them in the directory of its output (llvm/lib/DTLTO/DTLTO.cpp and
// the out-of-process backend in llvm/lib/LTO/LTO.cpp):
//   the job list         <output stem>.<pid>.dist-file.json
//   a job's object       <module stem>.<task>.<pid>.native.o
//   its index shard      the object's path + ".thinlto.bc"
//   an archive member    <member name>.<sequence>.<PID in hex>.o
// The pid is lld's, in decimal except in member names (utohexstr: upper-case
// hex). lld overwrites files of these names without asking: they are its.

static std::string inDirectory(StringRef Directory, const Twine &Name) {
  SmallString<256> Path(Directory);
  sys::path::append(Path, Name);
  return std::string(Path);
}

static bool isDecimal(StringRef Text) {
  return !Text.empty() && all_of(Text, isDigit);
}

// Whether \p Path is "<Directory>/<Prefix><digits><Suffix>".
static bool isNamed(StringRef Path, StringRef Directory, StringRef Prefix,
                    StringRef Suffix) {
  StringRef Name = sys::path::filename(Path);
  if (inDirectory(Directory, Name) != Path || !Name.consume_front(Prefix) ||
      !Name.consume_back(Suffix))
    return false;
  return isDecimal(Name);
}

// "<member>.<sequence>.<PID in hex>.o", the member's name not empty.
static bool isSerialisedMember(StringRef Path, StringRef Directory,
                               StringRef HexPid) {
  StringRef Name = sys::path::filename(Path);
  if (inDirectory(Directory, Name) != Path ||
      !Name.consume_back(("." + HexPid + ".o").str()))
    return false;
  auto [Member, Sequence] = Name.rsplit('.');
  return !Member.empty() && Member.size() != Name.size() && isDecimal(Sequence);
}

std::vector<std::string>
linkerTemporaries(const JobList &List, StringRef JobListPath, pid_t LinkerPid) {
  std::vector<std::string> Files;
  StringRef Directory = sys::path::parent_path(List.LinkerOutput);
  std::string Pid = std::to_string(LinkerPid);
  std::string HexPid = utohexstr(LinkerPid);
  // A job list of another name is not the one this linker wrote: then
  // nothing in it is known to be the linker's.
  if (JobListPath != dtltoJobListPath(List.LinkerOutput, LinkerPid))
    return Files;
  Files.push_back(JobListPath.str());

  for (const BackendJob &Job : List.Jobs) {
    if (isNamed(Job.output(), Directory,
                (sys::path::stem(Job.module()) + ".").str(),
                "." + Pid + ".native.o")) {
      Files.push_back(Job.output().str());
      if (Job.indexShard() == Job.output().str() + ".thinlto.bc")
        Files.push_back(Job.indexShard().str());
    }
    // The module and its imports; never the shard, whatever its name.
    for (size_t I = 0; I != Job.Inputs.size(); ++I)
      if (I != 1 && isSerialisedMember(Job.Inputs[I], Directory, HexPid))
        Files.push_back(Job.Inputs[I]);
  }
  // A member is one job's module and other jobs' import.
  llvm::sort(Files);
  Files.erase(std::unique(Files.begin(), Files.end()), Files.end());
  return Files;
}

//===----------------------------------------------------------------------===//
// What the interrupt function reads
//===----------------------------------------------------------------------===//

namespace {

constexpr pid_t FreeSlot = 0;
constexpr pid_t StartingSlot = -1;
// Otherwise a slot holds a process's ID, or the negated ID of a process
// group's leader (below StartingSlot): kill() then signals the whole group.

// Job processes at once; one more starts untracked (the machine would have
// stopped long before).
constexpr int MaxProcesses = 4096;

// What watch() learnt of the link. Never freed: the interrupt function may
// run until the process ends, static destructors included.
struct WatchedLink {
  std::string Tool;
  std::string LinkerOutput;
  std::vector<std::string> Objects;
  /// Where the jobs write their objects (PrivateObjects.h), or empty.
  std::string PrivateDirectory;
  /// ld.ulto's private directory of the link's files (PrivateOutput.h), or
  /// empty: removed once it is empty.
  std::string LinkDirectory;
  std::vector<std::string> LinkerFiles;
  /// stderr may end in the live progress line (StatusSink.h).
  bool ProgressLine = false;
};

// Statics, zero-initialised before main: the only state a signal handler can
// reach. Written with atomics, or before the interrupt function is installed.
std::atomic<bool> Stopping;
std::atomic<pid_t> Processes[MaxProcesses];
std::atomic<int> Writers;
// The connection to a worker service running this link's jobs, or -1.
std::atomic<int> ServiceSocket{-1};
pid_t Self;   // `ulto dist`; its forks have other IDs.
pid_t Linker; // Its parent when it started.
std::atomic<const WatchedLink *> Link;
// The parent terminateWhenParentDies() watches in this process, and whether
// it has been found gone.
pid_t WatchedParent;
std::atomic<bool> ParentGone;
// Whether the interrupt function runs on this thread.
thread_local bool InterruptingHere = false;
// Written by the interrupt function only: the signal each slot's process
// was last sent, so that none gets the same signal twice (a second SIGTERM
// would end clang before its handler has removed its temporary file).
pid_t SignalledPid[MaxProcesses];
int SignalledWith[MaxProcesses];

// This thread's slot while its process is starting, and whether it writes an
// object: an interrupt handled on this very thread must not wait for them.
thread_local int StartingHere = -1;
thread_local bool WritingHere = false;

//===----------------------------------------------------------------------===//
// The interrupt function: async-signal-safe calls only
//===----------------------------------------------------------------------===//

void sleepMilliseconds(long Milliseconds) {
  timespec Time = {0, Milliseconds * 1000000};
  while (nanosleep(&Time, &Time) != 0 && errno == EINTR)
    ;
}

void say(int Fd, StringRef Text) {
  while (!Text.empty()) {
    ssize_t Written = write(Fd, Text.data(), Text.size());
    if (Written < 0 && errno == EINTR)
      continue;
    if (Written <= 0)
      return;
    Text = Text.drop_front(Written);
  }
}

// As LLVM's own removal: regular files only, never what a link points to.
void removeFile(const std::string &Path) {
  struct stat Status;
  if (lstat(Path.c_str(), &Status) == 0 && S_ISREG(Status.st_mode))
    unlink(Path.c_str());
}

// Whether \p Pid has ended; its waiter reaps it (WNOWAIT), or already has.
bool hasEnded(pid_t Pid) {
  siginfo_t Info;
  Info.si_pid = 0;
  while (waitid(P_PID, Pid, &Info, WEXITED | WNOHANG | WNOWAIT) != 0)
    if (errno != EINTR)
      return true;
  return Info.si_pid == Pid;
}

// Sends \p Signal (0: none) once to every job process, or its group,
// including those that start meanwhile; true when all have ended within
// \p Milliseconds.
bool stopProcesses(int Signal, long Milliseconds) {
  for (long Waited = 0;; Waited += 5) {
    bool Running = false;
    for (int I = 0; I != MaxProcesses; ++I) {
      pid_t Entry = Processes[I].load();
      // This thread was interrupted before it started its process.
      if (Entry == FreeSlot || (Entry == StartingSlot && I == StartingHere))
        continue;
      if (Entry != StartingSlot && hasEnded(Entry < 0 ? -Entry : Entry))
        continue;
      Running = true;
      if (Signal && Entry != StartingSlot &&
          (SignalledPid[I] != Entry || SignalledWith[I] != Signal)) {
        kill(Entry, Signal);
        SignalledPid[I] = Entry;
        SignalledWith[I] = Signal;
      }
    }
    if (!Running)
      return true;
    if (Waited >= Milliseconds)
      return false;
    sleepMilliseconds(5);
  }
}

// SIGKILL to every process group: what its ended leader left running. The
// leader is not reaped while its slot names it, so the group's ID is not
// another's.
void killProcessGroups() {
  for (int I = 0; I != MaxProcesses; ++I) {
    pid_t Entry = Processes[I].load();
    if (Entry < StartingSlot)
      kill(Entry, SIGKILL);
  }
}

// Until the service at the other end of \p Socket has closed it, for
// \p Milliseconds at most.
void waitForHangUp(int Socket, int Milliseconds) {
  // No events asked for: poll() returns on the hang-up (or an error) alone.
  pollfd Fd = {Socket, 0, 0};
  while (poll(&Fd, 1, Milliseconds) < 0 && errno == EINTR)
    ;
}

void waitForWriters(long Milliseconds) {
  for (long Waited = 0;
       Writers.load() > int(WritingHere) && Waited < Milliseconds; ++Waited)
    sleepMilliseconds(1);
}

void report(int Fd, const WatchedLink &Link, bool LinkerGone) {
  // Erases the progress line, as the sink does before any message: a pipe
  // to a build system's log has one too under --progress=always.
  if (Link.ProgressLine)
    say(Fd, "\r\x1b[K");
  say(Fd, Link.Tool);
  if (!LinkerGone) {
    say(Fd, ": error: interrupted: stopped the backend jobs of '");
    say(Fd, Link.LinkerOutput);
    say(Fd, "' and removed their objects\n");
    return;
  }
  say(Fd, ": error: the linker of '");
  say(Fd, Link.LinkerOutput);
  say(Fd, "' is gone: stopped its backend jobs");
  say(Fd, Link.LinkerFiles.empty()
              ? " and removed their objects\n"
              : ", removed their objects and the linker's temporary files\n");
}

// Called by LLVM's handler of SIGINT, SIGTERM and SIGHUP, after it has
// removed the files registered with sys::RemoveFileOnSignal, or when the
// linker is found gone; ends the process.
void onInterrupt() {
  // A fork of `ulto dist` that has not yet replaced this function.
  if (getpid() != Self)
    _exit(1);
  // Once: a second caller on another thread waits for the first to end the
  // process; on this thread, it lets the first go on.
  if (Stopping.exchange(true)) {
    if (InterruptingHere)
      return;
    for (;;)
      pause();
  }
  InterruptingHere = true;
  // Nothing may cut the cleanup short: a second Ctrl-C or kill.
  struct sigaction Ignore = {};
  Ignore.sa_handler = SIG_IGN;
  for (int Signal : {SIGINT, SIGTERM, SIGHUP, SIGUSR2, SIGPIPE})
    sigaction(Signal, &Ignore, nullptr);
  // One message, at the end: what the threads of the stopped jobs report
  // meanwhile would only confuse.
  int Errors = dup(STDERR_FILENO);
  int Null = open("/dev/null", O_WRONLY);
  if (Null >= 0)
    dup2(Null, STDERR_FILENO);

  // A worker service stops this link's jobs once the link hangs up: at once
  // (no Ctrl-C reaches them), SIGKILL after two seconds.
  int Service = ServiceSocket.load();
  if (Service >= 0)
    shutdown(Service, SHUT_WR);
  // A Ctrl-C reaches the jobs too: a signal of ours while clang handles
  // that one would end it before it has removed its temporary output. So
  // the jobs get a moment, then SIGTERM (clang removes its temporary output
  // on it), then SIGKILL.
  if (!stopProcesses(0, 100) && !stopProcesses(SIGTERM, 3000))
    stopProcesses(SIGKILL, 1000);
  killProcessGroups();
  if (Service >= 0)
    waitForHangUp(Service, 4000);
  waitForWriters(2000);
  const WatchedLink &Watched = *Link.load();
  for (const std::string &Object : Watched.Objects)
    removeFile(Object);
  if (!Watched.PrivateDirectory.empty())
    rmdir(Watched.PrivateDirectory.c_str());
  // Files registered since LLVM's handler removed them: a job's output
  // capture, created again by a job that was starting.
  sys::RunInterruptHandlers();
  bool LinkerGone = getppid() != Linker;
  if (LinkerGone)
    for (const std::string &File : Watched.LinkerFiles)
      removeFile(File);
  // A linker interrupted too removes its files and then the directory, as
  // this process does: whichever of the two ends last finds it empty. While
  // the linker runs on, its job list keeps the directory from going.
  if (!Watched.LinkDirectory.empty())
    rmdir(Watched.LinkDirectory.c_str());
  if (Errors >= 0)
    report(Errors, Watched, LinkerGone);
  _exit(1);
}

// The kernel's word that the parent has died (PR_SET_PDEATHSIG). It comes
// once for each thread of the parent that ends, as the process moves to
// another of them: the parent is gone when getppid() has changed. Then
// SIGTERM, once: a burst of them would end the process in LLVM's handler,
// which restores the default action first. `ulto dist`, once it watches its
// link, skips the signal and interrupts itself.
void onParentDeath(int) {
  int Saved = errno;
  if (getppid() != WatchedParent && !ParentGone.exchange(true)) {
    if (getpid() == Self && Link.load()) {
      sys::RunInterruptHandlers(); // As LLVM's handler does first.
      onInterrupt();
    } else {
      kill(getpid(), SIGTERM);
    }
  }
  errno = Saved;
}

sigset_t interruptSignals() {
  sigset_t Signals;
  sigemptyset(&Signals);
  sigaddset(&Signals, SIGINT);
  sigaddset(&Signals, SIGTERM);
  sigaddset(&Signals, SIGHUP);
  return Signals;
}

} // namespace

bool terminateWhenParentDies(pid_t Parent) {
  WatchedParent = Parent;
  ParentGone.store(false);
  struct sigaction Action = {};
  Action.sa_handler = onParentDeath;
  Action.sa_flags = SA_RESTART;
  sigemptyset(&Action.sa_mask);
  sigaction(SIGRTMAX, &Action, nullptr);
  prctl(PR_SET_PDEATHSIG, SIGRTMAX);
  // A parent that died before the request gets no signal sent: by then the
  // process has another parent.
  return getppid() == Parent;
}

//===----------------------------------------------------------------------===//
// Cancellation, JobProcess, WriteGuard
//===----------------------------------------------------------------------===//

Cancellation::Cancellation(StringRef ToolName) : Tool(ToolName) {
  sigset_t Signals = interruptSignals();
  pthread_sigmask(SIG_BLOCK, &Signals, &HeldSignals);
  Self = getpid();
  Linker = getppid();
  // Already gone: the kernel will not say so; say it ourselves.
  if (!terminateWhenParentDies(Linker))
    kill(Self, SIGTERM);
}

void Cancellation::watch(StringRef JobListPath, const JobList &List,
                         const PrivateObjects *Private, bool ProgressLine) {
  auto *Watched = new WatchedLink;
  Watched->Tool = Tool;
  Watched->LinkerOutput = linkOutput(List.LinkerOutput);
  if (Watched->LinkerOutput != List.LinkerOutput)
    Watched->LinkDirectory = sys::path::parent_path(List.LinkerOutput).str();
  for (const BackendJob &Job : List.Jobs)
    Watched->Objects.push_back(Job.output().str());
  if (Private) {
    for (size_t I = 0; I != List.Jobs.size(); ++I)
      if (Private->objectPath(I) != List.Jobs[I].output())
        Watched->Objects.push_back(Private->objectPath(I).str());
    Watched->PrivateDirectory = Private->directory().str();
  }
  // lld writes "<output>.resolution.txt" only under --save-temps, which keeps
  // its files on purpose: so does `ulto dist`.
  if (!sys::fs::exists(List.LinkerOutput + ".resolution.txt"))
    Watched->LinkerFiles = linkerTemporaries(List, JobListPath, Linker);
  Watched->ProgressLine = ProgressLine;
  Link.store(Watched);
  sys::SetInterruptFunction(onInterrupt);
  Watching = true;
  pthread_sigmask(SIG_SETMASK, &HeldSignals, nullptr);
}

Cancellation::~Cancellation() {
  if (!Watching) {
    pthread_sigmask(SIG_SETMASK, &HeldSignals, nullptr);
    return;
  }
  // Returning would run static destructors under the interrupt function,
  // which ends the process.
  if (Stopping.load())
    for (;;)
      pause();
}

JobProcess::JobProcess() {
  if (Stopping.load())
    return;
  for (int I = 0; I != MaxProcesses && Slot < 0; ++I) {
    pid_t Free = FreeSlot;
    if (Processes[I].compare_exchange_strong(Free, StartingSlot))
      Slot = I;
  }
  StartingHere = Slot;
  // An interrupt that began before the slot was taken has not seen it.
  if (Stopping.load()) {
    if (Slot >= 0)
      Processes[Slot].store(FreeSlot);
    Slot = -1;
    StartingHere = -1;
    return;
  }
  MayStart = true;
}

JobProcess::JobProcess(JobProcess &&Other)
    : Slot(Other.Slot), MayStart(Other.MayStart) {
  Other.Slot = -1;
  Other.MayStart = false;
}

void JobProcess::started(pid_t Pid, bool OwnGroup) {
  if (Slot >= 0)
    Processes[Slot].store(OwnGroup ? -Pid : Pid);
  StartingHere = -1;
}

JobProcess::~JobProcess() {
  if (Slot < 0)
    return;
  if (StartingHere == Slot)
    StartingHere = -1;
  Processes[Slot].store(FreeSlot);
}

bool linkInterrupted() { return Stopping.load(); }

bool endedByLinkInterrupt(int Signal) {
  if ((Signal != SIGINT && Signal != SIGTERM && Signal != SIGHUP) ||
      !Link.load())
    return false;
  for (int Waited = 0; Waited < 1000; Waited += 5) {
    if (Stopping.load())
      return true;
    sleepMilliseconds(5);
  }
  return Stopping.load();
}

WorkerServiceConnection::WorkerServiceConnection(int Socket) {
  ServiceSocket.store(Socket);
}

WorkerServiceConnection::~WorkerServiceConnection() { ServiceSocket.store(-1); }

WriteGuard::WriteGuard() {
  Writers.fetch_add(1);
  // An interrupt that began before the count went up does not wait for us.
  Allowed = !Stopping.load();
  WritingHere = Allowed;
  if (!Allowed)
    Writers.fetch_sub(1);
}

WriteGuard::~WriteGuard() {
  if (!Allowed)
    return;
  WritingHere = false;
  Writers.fetch_sub(1);
}

} // namespace ulto
