//===- ForkServer.cpp - Compiler jobs without exec ------------------------===//
//
// Messages travel on SOCK_SEQPACKET socket pairs, so each arrives whole: a
// request is a 64-bit ID, then the output file and the arguments, each
// ending in NUL; a reply is the ID and how the job ended. The distributor
// sends its requests to the server, which hands each to a worker over the
// worker's own socket pair and passes the worker's reply back.
//
// The server ends with `ulto dist`, and each worker with the server
// (PR_SET_PDEATHSIG, Cancellation.h). On SIGTERM, SIGINT or SIGHUP the server
// stops its workers with SIGTERM, on which clang removes its temporary
// output, SIGKILL after two seconds, and exits once it has reaped them all:
// when `ulto dist` has waited for the server, no job runs.
//
//===----------------------------------------------------------------------===//

#include "ulto/Distributor/ForkServer.h"

#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <iterator>
#include <malloc.h>
#include <optional>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace llvm;

namespace ulto {

namespace {

struct Reply {
  uint64_t ID;
  ForkServer::Status Ended;
};

// A worker's reply also says whether the worker ends after it.
struct WorkerReply {
  Reply Job;
  bool Retiring;
};

// Room for the largest request (a job's command line).
constexpr size_t MaxRequestSize = 1 << 20;

// The server's end of its self-pipe: SIGCHLD and a stop request wake its
// poll().
int ChildExitedFd = -1;
volatile sig_atomic_t StopRequested = 0;

void wakeServer() {
  int Saved = errno;
  char Byte = 0;
  (void)!write(ChildExitedFd, &Byte, 1);
  errno = Saved;
}

void onChildExited(int) { wakeServer(); }

constexpr int StopSignals[] = {SIGINT, SIGTERM, SIGHUP};

// The server's interrupt function, called by LLVM's signal handler. The
// server stops once: another of these signals would end it at once, before
// its workers.
void onStop() {
  StopRequested = 1;
  struct sigaction Ignore = {};
  Ignore.sa_handler = SIG_IGN;
  for (int Signal : StopSignals)
    sigaction(Signal, &Ignore, nullptr);
  wakeServer();
}

sigset_t stopSignals() {
  sigset_t Signals;
  sigemptyset(&Signals);
  for (int Signal : StopSignals)
    sigaddset(&Signals, Signal);
  return Signals;
}

// A request's strings: the output file, then the job's command line.
std::vector<const char *> requestStrings(ArrayRef<char> Request) {
  std::vector<const char *> Strings;
  for (size_t I = sizeof(uint64_t); I < Request.size();
       I += strlen(&Request[I]) + 1)
    Strings.push_back(&Request[I]);
  return Strings;
}

uint64_t peakResidentBytes() {
  struct rusage Usage;
  if (getrusage(RUSAGE_SELF, &Usage) != 0)
    return 0;
  return uint64_t(Usage.ru_maxrss) * 1024;
}

// Runs the job of \p Strings in this worker, stdout and stderr to its output
// file, and returns its exit status.
int runJob(ArrayRef<const char *> Strings, const ForkServer::MainFn &Main) {
  if (Strings.size() < 2)
    return 127;
  int Out = open(Strings[0], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (Out < 0)
    return 127;
  dup2(Out, 1);
  dup2(Out, 2);
  close(Out);
  // While it runs, the worker is the job: a crash's stack dump names the
  // job's command line.
  PrettyStackTraceProgram Job(Strings.size() - 1, Strings.data() + 1);
  int Code = Main(Strings.drop_front());
  outs().flush();
  errs().flush();
  return Code;
}

// Keeps the memory a job freed for the next job. glibc's malloc returns it
// to the kernel by default, above 128 KiB freed at the top of the heap, and
// gives each block of 128 KiB or more (the threshold grows as such blocks
// are freed) its own mapping: every job would fault its whole heap in again,
// about 0.5 ms of a small job. The memory kept is bounded by the worker's:
// a worker retires once it has used Opts.WorkerMemory bytes.
void keepFreedMemory(const ForkServer::Options &Opts) {
#ifdef __GLIBC__
  // The largest threshold glibc allows on 64-bit systems; larger blocks are
  // rare and still get their own mapping.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD,
          int(std::min<uint64_t>(Opts.WorkerMemory, INT_MAX)));
#endif
}

// A worker runs the jobs it is sent, one after another, until the server
// closes its socket or it retires: after a job that failed (which may have
// left its state half-done), after Opts.JobsPerWorker jobs, or once it has
// used Opts.WorkerMemory bytes. Forked with the stop signals held, so that
// none arrives before the child is a worker rather than a server.
[[noreturn]] void runWorker(int Socket, const ForkServer::MainFn &Main,
                            const ForkServer::Options &Opts, pid_t Server) {
  sys::SetInterruptFunction(nullptr);
  if (!terminateWhenParentDies(Server))
    _exit(1);
  sigset_t Signals = stopSignals();
  sigprocmask(SIG_UNBLOCK, &Signals, nullptr);
  signal(SIGCHLD, SIG_DFL);
  int In = open("/dev/null", O_RDONLY);
  if (In < 0)
    _exit(1);
  dup2(In, 0);
  close(In);
  // The distributor's stack trace, carried through the fork, is not the
  // jobs'.
  RestorePrettyStackState(nullptr);
  if (Opts.JobsPerWorker > 1)
    keepFreedMemory(Opts);
  std::vector<char> Request(MaxRequestSize);
  for (unsigned JobsRun = 1;; ++JobsRun) {
    ssize_t Size = recv(Socket, Request.data(), Request.size(), 0);
    if (Size <= 0)
      _exit(0);
    WorkerReply Reply = {{0, {ForkServer::Status::Exited, 0}}, false};
    memcpy(&Reply.Job.ID, Request.data(), sizeof(uint64_t));
    Reply.Job.Ended.Code =
        runJob(requestStrings(ArrayRef(Request.data(), Size)), Main);
    Reply.Retiring = Reply.Job.Ended.Code != 0 ||
                     JobsRun >= Opts.JobsPerWorker ||
                     peakResidentBytes() > Opts.WorkerMemory;
    send(Socket, &Reply, sizeof(Reply), MSG_NOSIGNAL);
    if (Reply.Retiring)
      _exit(0);
  }
}

struct Worker {
  int Socket;                  ///< The server's end; -1 once closed.
  bool TakesMore;              ///< May get a job after this one.
  std::optional<uint64_t> Job; ///< The job it runs.
  bool HungUp = false;         ///< Closed its end: it is ending.
};

// Stops the workers, which a Ctrl-C has reached too, as it has the server:
// a signal of ours while clang handles that one would end it before it has
// removed its temporary output. So they get a moment, then SIGTERM (clang
// removes its temporary output on it), then SIGKILL. Returns how long poll()
// may sleep, in milliseconds.
int stopWorkers(const DenseMap<pid_t, Worker> &Workers,
                std::optional<std::chrono::steady_clock::time_point> &Since,
                size_t &StepsDone) {
  using namespace std::chrono;
  struct {
    milliseconds After;
    int Signal;
  } Steps[] = {{milliseconds(100), SIGTERM}, {seconds(2), SIGKILL}};
  auto Now = steady_clock::now();
  if (!Since)
    Since = Now;
  for (size_t I = 0; I != std::size(Steps); ++I) {
    auto At = *Since + Steps[I].After;
    if (Now < At)
      return duration_cast<milliseconds>(At - Now).count() + 1;
    if (StepsDone > I)
      continue;
    for (const auto &W : Workers)
      kill(W.first, Steps[I].Signal);
    StepsDone = I + 1;
  }
  return -1;
}

class ServerLoop {
public:
  ServerLoop(int Socket, const ForkServer::MainFn &Main,
             const ForkServer::Options &Opts)
      : Socket(Socket), Main(Main), Opts(Opts), Self(getpid()) {}

  [[noreturn]] void serve(pid_t Distributor);

private:
  void reply(const Reply &R) { send(Socket, &R, sizeof(R), MSG_NOSIGNAL); }
  void closeSocket(Worker &W) {
    close(W.Socket);
    W.Socket = -1;
  }
  void readReply(Worker &W);
  void reapWorkers();
  Worker *startWorker(bool TakesMore);
  void startJob(ArrayRef<char> Request);

  int Socket;
  const ForkServer::MainFn &Main;
  const ForkServer::Options &Opts;
  pid_t Self;
  int Wake[2] = {-1, -1};
  DenseMap<pid_t, Worker> Workers;
  bool Open = true; ///< The distributor may send more jobs.
};

void ServerLoop::readReply(Worker &W) {
  WorkerReply WR;
  ssize_t Size = recv(W.Socket, &WR, sizeof(WR), MSG_DONTWAIT);
  if (Size != ssize_t(sizeof(WR))) {
    if (Size == 0 || (Size < 0 && errno != EAGAIN && errno != EINTR))
      W.HungUp = true; // Its end comes with SIGCHLD.
    return;
  }
  reply(WR.Job);
  W.Job.reset();
  if (WR.Retiring || !W.TakesMore || !Open)
    closeSocket(W);
}

void ServerLoop::reapWorkers() {
  int WaitStatus;
  pid_t Pid;
  while ((Pid = waitpid(-1, &WaitStatus, WNOHANG)) > 0) {
    auto It = Workers.find(Pid);
    if (It == Workers.end())
      continue;
    Worker &W = It->second;
    // A reply sent just before the end still counts.
    if (W.Job && W.Socket >= 0 && !W.HungUp)
      readReply(W);
    if (W.Job) {
      Reply R = {*W.Job, {ForkServer::Status::Exited, 0}};
      if (WIFEXITED(WaitStatus))
        R.Ended.Code = WEXITSTATUS(WaitStatus);
      else
        R.Ended = {ForkServer::Status::Signalled, WTERMSIG(WaitStatus)};
      reply(R);
    }
    if (W.Socket >= 0)
      close(W.Socket);
    Workers.erase(It);
  }
}

Worker *ServerLoop::startWorker(bool TakesMore) {
  int Fds[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, Fds) != 0)
    return nullptr;
  sigset_t Signals = stopSignals();
  sigprocmask(SIG_BLOCK, &Signals, nullptr);
  pid_t Pid = fork();
  if (Pid == 0) {
    // Another worker's socket held here would never read as closed.
    for (const auto &Other : Workers)
      if (Other.second.Socket >= 0)
        close(Other.second.Socket);
    close(Fds[0]);
    close(Socket);
    close(Wake[0]);
    close(Wake[1]);
    runWorker(Fds[1], Main, Opts, Self);
  }
  int Error = errno;
  sigprocmask(SIG_UNBLOCK, &Signals, nullptr);
  close(Fds[1]);
  if (Pid < 0) {
    close(Fds[0]);
    errno = Error;
    return nullptr;
  }
  return &(Workers[Pid] = {Fds[0], TakesMore, std::nullopt});
}

void ServerLoop::startJob(ArrayRef<char> Request) {
  Reply Failed = {0, {ForkServer::Status::NotForked, 0}};
  memcpy(&Failed.ID, Request.data(), sizeof(uint64_t));
  std::vector<const char *> Strings = requestStrings(Request);
  bool Shares = Strings.size() < 2 || !Opts.MayShareWorker ||
                Opts.MayShareWorker(ArrayRef(Strings).drop_front());
  Worker *W = nullptr;
  if (Shares && Opts.JobsPerWorker > 1)
    for (auto &Idle : Workers)
      if (Idle.second.TakesMore && Idle.second.Socket >= 0 &&
          !Idle.second.Job && !Idle.second.HungUp)
        W = &Idle.second;
  if (!W)
    W = startWorker(Shares && Opts.JobsPerWorker > 1);
  if (!W) {
    Failed.Ended.Code = errno;
    reply(Failed);
    return;
  }
  if (send(W->Socket, Request.data(), Request.size(), MSG_NOSIGNAL) < 0) {
    Failed.Ended.Code = errno;
    reply(Failed);
    closeSocket(*W);
    return;
  }
  W->Job = Failed.ID;
}

void ServerLoop::serve(pid_t Distributor) {
  if (pipe2(Wake, O_CLOEXEC | O_NONBLOCK) != 0)
    _exit(1);
  ChildExitedFd = Wake[1];
  struct sigaction Action = {};
  Action.sa_handler = onChildExited;
  Action.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigaction(SIGCHLD, &Action, nullptr);
  // Not `ulto dist`'s interrupt function, inherited: the server's own.
  sys::SetInterruptFunction(onStop);
  if (!terminateWhenParentDies(Distributor))
    _exit(1);

  std::vector<char> Request(MaxRequestSize);
  std::vector<pollfd> Fds;
  std::vector<pid_t> Polled;
  std::optional<std::chrono::steady_clock::time_point> StopSince;
  size_t StopSteps = 0;
  if (Opts.JobsPerWorker > 1)
    for (unsigned I = 0; I != Opts.IdleWorkers; ++I)
      if (!startWorker(/*TakesMore=*/true))
        break; // The jobs fork their own.
  while (Open || !Workers.empty()) {
    int Timeout = -1;
    if (StopRequested) {
      Open = false; // Nothing new starts.
      if (Workers.empty())
        break;
      Timeout = stopWorkers(Workers, StopSince, StopSteps);
    }
    // Idle workers end once no job can come.
    if (!Open)
      for (auto &W : Workers)
        if (!W.second.Job && W.second.Socket >= 0)
          closeSocket(W.second);

    Fds.assign({{Wake[0], POLLIN, 0}, {Socket, POLLIN, 0}});
    if (!Open)
      Fds.pop_back();
    Polled.clear();
    for (const auto &W : Workers)
      if (W.second.Socket >= 0 && !W.second.HungUp) {
        Fds.push_back({W.second.Socket, POLLIN, 0});
        Polled.push_back(W.first);
      }
    if (poll(Fds.data(), Fds.size(), Timeout) < 0 && errno != EINTR)
      _exit(1);

    char Drain[64];
    while (read(Wake[0], Drain, sizeof(Drain)) > 0)
      ;
    size_t FirstWorker = Open ? 2 : 1;
    for (size_t I = 0; I != Polled.size(); ++I)
      if (Fds[FirstWorker + I].revents)
        readReply(Workers[Polled[I]]);
    reapWorkers();

    if (!Open || !(Fds[1].revents & (POLLIN | POLLHUP)))
      continue;
    ssize_t Size = recv(Socket, Request.data(), Request.size(), 0);
    if (Size <= 0) {
      Open = false; // The distributor is done: finish the running jobs.
      continue;
    }
    if (Size > ssize_t(sizeof(uint64_t)) && Request[Size - 1] == '\0')
      startJob(ArrayRef(Request.data(), Size));
  }
  _exit(0);
}

} // namespace

void ForkServer::endChildBySignal(int Signal) {
  outs().flush();
  errs().flush();
  // The crash was caught and reported; a core of this call would show
  // nothing of it.
  struct rlimit NoCore = {0, 0};
  setrlimit(RLIMIT_CORE, &NoCore);
  sys::unregisterHandlers();
  signal(Signal, SIG_DFL);
  sigset_t Signals;
  sigemptyset(&Signals);
  sigaddset(&Signals, Signal);
  sigprocmask(SIG_UNBLOCK, &Signals, nullptr);
  raise(Signal);
  _exit(128 + Signal); // A signal that does not end a process.
}

Expected<std::unique_ptr<ForkServer>> ForkServer::start(const MainFn &Main,
                                                        const Options &Opts) {
  int Fds[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, Fds) != 0)
    return createStringError(std::error_code(errno, std::generic_category()),
                             "cannot start the fork server: %s",
                             strerror(errno));
  // An interrupt stops the server, and so its jobs (Cancellation.h).
  JobProcess Process;
  if (!Process.mayStart()) {
    close(Fds[0]);
    close(Fds[1]);
    return createStringError("cannot start the fork server: interrupted");
  }
  // Nothing buffered may be written twice, by the parent and the server.
  outs().flush();
  errs().flush();
  pid_t Distributor = getpid();
  pid_t Pid = fork();
  if (Pid < 0) {
    int Error = errno;
    close(Fds[0]);
    close(Fds[1]);
    return createStringError(std::error_code(Error, std::generic_category()),
                             "cannot start the fork server: %s",
                             strerror(Error));
  }
  if (Pid == 0) {
    close(Fds[0]);
    ServerLoop(Fds[1], Main, Opts).serve(Distributor);
  }
  Process.started(Pid);
  close(Fds[1]);
  return std::unique_ptr<ForkServer>(
      new ForkServer(Fds[0], Pid, std::move(Process)));
}

Expected<std::unique_ptr<ForkServer>> ForkServer::start(const MainFn &Main) {
  return start(Main, Options());
}

ForkServer::~ForkServer() {
  close(Socket);
  int WaitStatus;
  while (waitpid(Server, &WaitStatus, 0) < 0 && errno == EINTR)
    ;
}

ForkServer::Status ForkServer::run(ArrayRef<std::string> Argv,
                                   StringRef OutputFile) {
  std::string Request(sizeof(uint64_t), '\0');
  uint64_t ID;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    ID = NextID++;
  }
  memcpy(Request.data(), &ID, sizeof(ID));
  Request += OutputFile.str() + '\0';
  for (const std::string &Arg : Argv)
    Request += Arg + '\0';
  {
    std::lock_guard<std::mutex> Lock(SendMutex);
    if (send(Socket, Request.data(), Request.size(), MSG_NOSIGNAL) < 0)
      return {Status::NotForked, errno};
  }

  std::unique_lock<std::mutex> Lock(Mutex);
  std::optional<Status> Ended;
  while (!Ended) {
    if (auto It = Replies.find(ID); It != Replies.end()) {
      Ended = It->second;
      Replies.erase(It);
    } else if (Reading) {
      Arrived.wait(Lock);
    } else {
      Reading = true;
      Lock.unlock();
      Reply R;
      ssize_t Size = recv(Socket, &R, sizeof(R), 0);
      Lock.lock();
      Reading = false;
      if (Size != sizeof(R)) {
        // The server is gone: every waiting job fails.
        Replies[ID] = {Status::NotForked, Size < 0 ? errno : ECHILD};
      } else {
        Replies[R.ID] = R.Ended;
      }
      Arrived.notify_all();
    }
  }
  return *Ended;
}

} // namespace ulto
