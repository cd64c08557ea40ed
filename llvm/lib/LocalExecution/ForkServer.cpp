//===- ForkServer.cpp - Compiler jobs without exec ------------------------===//
//
// Messages travel on SOCK_SEQPACKET sockets, so each arrives whole: a
// request is a 64-bit ID, then the job's directory and $PWD (empty for a
// link's own server), the output file and the arguments, each ending in NUL;
// a reply is the ID and how the job ended. The distributor sends its
// requests to the server, which hands each to a worker over the worker's own
// socket pair and passes the worker's reply back. A service greets each link
// that connects with a reply of its own ID, HelloID, and its process ID.
//
// The server ends with `ulto dist`, and each worker with the server
// (PR_SET_PDEATHSIG, Cancellation.h). On SIGTERM, SIGINT or SIGHUP the server
// stops its workers with SIGTERM, on which clang removes its temporary
// output, SIGKILL after two seconds, and exits once it has reaped them all:
// when `ulto dist` has waited for the server, no job runs. A service stops a
// link's jobs the same way when the link hangs up while they run.
//
//===----------------------------------------------------------------------===//

#include "ulto/LocalExecution/ForkServer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
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
#include <map>
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

// A request's strings: the working directory and $PWD (both empty for a
// server of the link's own), the output file, then the job's command line.
std::vector<const char *> requestStrings(ArrayRef<char> Request) {
  std::vector<const char *> Strings;
  for (size_t I = sizeof(uint64_t); I < Request.size();
       I += strlen(&Request[I]) + 1)
    Strings.push_back(&Request[I]);
  return Strings;
}

constexpr size_t FirstArgument = 3;

// The ID of the service's greeting (connected()); no job's.
constexpr uint64_t HelloID = UINT64_MAX;

uint64_t peakResidentBytes() {
  struct rusage Usage;
  if (getrusage(RUSAGE_SELF, &Usage) != 0)
    return 0;
  return uint64_t(Usage.ru_maxrss) * 1024;
}

// Enters a service's job's directory, as its link has it: LLVM's
// current_path() prefers $PWD where it names the same directory.
bool enterDirectory(const char *Directory, const char *Pwd) {
  if (!*Directory)
    return true;
  if (chdir(Directory) != 0)
    return false;
  if (*Pwd)
    setenv("PWD", Pwd, 1);
  else
    unsetenv("PWD");
  return true;
}

// Runs the job of \p Strings in this worker, stdout and stderr to its output
// file, and returns its exit status.
int runJob(ArrayRef<const char *> Strings, const ForkServer::MainFn &Main) {
  if (Strings.size() <= FirstArgument)
    return 127;
  int Entered = enterDirectory(Strings[0], Strings[1]) ? 0 : errno;
  int Out = open(Strings[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (Out < 0)
    return 127;
  dup2(Out, 1);
  dup2(Out, 2);
  close(Out);
  if (Entered) {
    errs() << "ulto: error: cannot enter the link's directory '" << Strings[0]
           << "': " << strerror(Entered) << "\n";
    return 127;
  }
  ArrayRef<const char *> Argv = Strings.drop_front(FirstArgument);
  // While it runs, the worker is the job: a crash's stack dump names the
  // job's command line.
  PrettyStackTraceProgram Job(Argv.size(), Argv.data());
  int Code = Main(Argv);
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

// Waits for the next request on \p Socket. The memory kept for the next job
// goes back once no job has come for \p KeepMemory.
void awaitRequest(int Socket, std::chrono::milliseconds KeepMemory) {
  pollfd Fd = {Socket, POLLIN, 0};
  if (poll(&Fd, 1, int(KeepMemory.count())) != 0)
    return;
#ifdef __GLIBC__
  malloc_trim(0);
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
    awaitRequest(Socket, Opts.KeepMemoryWhileIdle);
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

using Clock = std::chrono::steady_clock;

// A link the server runs jobs for.
struct Client {
  int Socket;
  bool HungUp = false; ///< It sends no more jobs.
};

struct Worker {
  int Socket = -1;             ///< The server's end; -1 once closed.
  bool TakesMore = false;      ///< May get a job after this one.
  std::optional<uint64_t> Job; ///< The job it runs,
  unsigned Client = 0;         ///< for this link.
  bool HungUp = false;         ///< Closed its end: it is ending.
  /// When its job was stopped, its link gone, and whether SIGKILL followed.
  std::optional<Clock::time_point> Stopped;
  bool Killed = false;
};

// Stops the workers, which a Ctrl-C has reached too, as it has the server:
// a signal of ours while clang handles that one would end it before it has
// removed its temporary output. So they get a moment, then SIGTERM (clang
// removes its temporary output on it), then SIGKILL. Returns how long poll()
// may sleep, in milliseconds.
int stopWorkers(const DenseMap<pid_t, Worker> &Workers,
                std::optional<Clock::time_point> &Since, size_t &StepsDone) {
  using namespace std::chrono;
  struct {
    milliseconds After;
    int Signal;
  } Steps[] = {{milliseconds(100), SIGTERM}, {seconds(2), SIGKILL}};
  auto Now = Clock::now();
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

// The shorter of two poll() timeouts in milliseconds, -1 being none.
int sooner(int Timeout, Clock::time_point At, Clock::time_point Now) {
  using namespace std::chrono;
  int Until =
      At <= Now ? 0 : int(duration_cast<milliseconds>(At - Now).count() + 1);
  return Timeout < 0 ? Until : std::min(Timeout, Until);
}

class ServerLoop {
public:
  // A link's own server, with \p Socket its one connection.
  ServerLoop(int Socket, const ForkServer::MainFn &Main,
             const ForkServer::Options &Opts)
      : Main(Main), Opts(Opts), Self(getpid()) {
    Clients[0] = {Socket};
  }
  // A service, taking connections on \p Listening.
  ServerLoop(int Listening, const ForkServer::MainFn &Main,
             const ForkServer::Options &Opts,
             std::chrono::milliseconds IdleLimit)
      : Main(Main), Opts(Opts), Self(getpid()), Service(true),
        Listening(Listening), IdleLimit(IdleLimit) {}

  [[noreturn]] void serve(std::optional<pid_t> Distributor);

private:
  void reply(unsigned Client, const Reply &R);
  void closeSocket(Worker &W) {
    close(W.Socket);
    W.Socket = -1;
  }
  bool keepsIdle(const Worker &Done) const;
  void readReply(Worker &W);
  void reapWorkers();
  Worker *startWorker(bool TakesMore);
  void startJob(unsigned Client, ArrayRef<char> Request);
  void readRequest(unsigned Client, std::vector<char> &Request);
  void hangUp(unsigned Client);
  void accept();
  void stopListening() {
    if (Listening >= 0)
      close(Listening);
    Listening = -1;
  }
  int serviceDuties();
  void installHandlers(std::optional<pid_t> Distributor);
  int stopStep();
  /// What each polled descriptor is: a worker's process ID, a client, or
  /// the listening socket (Listen).
  enum class Polled { Wake, Client, Listen, Worker };
  void fillPoll(std::vector<pollfd> &Fds,
                std::vector<std::pair<Polled, int>> &What) const;
  void handlePolled(const std::vector<pollfd> &Fds,
                    const std::vector<std::pair<Polled, int>> &What,
                    std::vector<char> &Request);

  const ForkServer::MainFn &Main;
  const ForkServer::Options &Opts;
  pid_t Self;
  bool Service = false;
  int Listening = -1; ///< A service's, until it ends.
  std::chrono::milliseconds IdleLimit{0};
  Clock::time_point LastWork = Clock::now();
  int Wake[2] = {-1, -1};
  std::map<unsigned, Client> Clients;
  unsigned NextClient = 1;
  DenseMap<pid_t, Worker> Workers;
  bool Open = true; ///< May take more jobs.
  /// Since when, and in how many steps, the workers are being stopped.
  std::optional<Clock::time_point> StopSince;
  size_t StopSteps = 0;
};

void ServerLoop::reply(unsigned Client, const Reply &R) {
  auto It = Clients.find(Client);
  if (It != Clients.end() && !It->second.HungUp)
    send(It->second.Socket, &R, sizeof(R), MSG_NOSIGNAL);
}

// Whether \p Done, a worker that has just finished its job, waits for
// another: a service keeps Opts.IdleWorkers warm, and no more.
bool ServerLoop::keepsIdle(const Worker &Done) const {
  if (!Done.TakesMore || !Open)
    return false;
  if (!Service)
    return true;
  unsigned Idle = 0;
  for (const auto &W : Workers)
    if (&W.second != &Done && W.second.Socket >= 0 && !W.second.Job &&
        !W.second.HungUp && W.second.TakesMore)
      ++Idle;
  return Idle < std::max(Opts.IdleWorkers, 1u);
}

void ServerLoop::readReply(Worker &W) {
  WorkerReply WR;
  ssize_t Size = recv(W.Socket, &WR, sizeof(WR), MSG_DONTWAIT);
  if (Size != ssize_t(sizeof(WR))) {
    if (Size == 0 || (Size < 0 && errno != EAGAIN && errno != EINTR))
      W.HungUp = true; // Its end comes with SIGCHLD.
    return;
  }
  reply(W.Client, WR.Job);
  W.Job.reset();
  if (WR.Retiring || !keepsIdle(W))
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
      reply(W.Client, R);
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
    // Another worker's socket, or a link's, held here would never read as
    // closed.
    for (const auto &Other : Workers)
      if (Other.second.Socket >= 0)
        close(Other.second.Socket);
    for (const auto &C : Clients)
      close(C.second.Socket);
    if (Listening >= 0)
      close(Listening);
    close(Fds[0]);
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
  Worker &W = Workers[Pid];
  W.Socket = Fds[0];
  W.TakesMore = TakesMore;
  return &W;
}

void ServerLoop::startJob(unsigned Client, ArrayRef<char> Request) {
  Reply Failed = {0, {ForkServer::Status::NotForked, 0}};
  memcpy(&Failed.ID, Request.data(), sizeof(uint64_t));
  std::vector<const char *> Strings = requestStrings(Request);
  bool Shares =
      Strings.size() <= FirstArgument || !Opts.MayShareWorker ||
      Opts.MayShareWorker(ArrayRef(Strings).drop_front(FirstArgument));
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
    reply(Client, Failed);
    return;
  }
  if (send(W->Socket, Request.data(), Request.size(), MSG_NOSIGNAL) < 0) {
    Failed.Ended.Code = errno;
    reply(Client, Failed);
    closeSocket(*W);
    return;
  }
  W->Job = Failed.ID;
  W->Client = Client;
}

void ServerLoop::readRequest(unsigned Client, std::vector<char> &Request) {
  ssize_t Size =
      recv(Clients[Client].Socket, Request.data(), Request.size(), 0);
  if (Size <= 0) {
    hangUp(Client);
    return;
  }
  if (Size > ssize_t(sizeof(uint64_t)) && Request[Size - 1] == '\0')
    startJob(Client, ArrayRef(Request.data(), Size));
}

// A link's own server finishes the running jobs of a distributor that is
// done. A link that hangs up on a service while its jobs run was
// interrupted, or died: its jobs are stopped (SIGTERM, on which clang
// removes its temporary output; SIGKILL after two seconds), and its
// connection closed once they have ended (Cancellation.h waits for that).
void ServerLoop::hangUp(unsigned Client) {
  if (!Service) {
    Open = false;
    return;
  }
  Clients[Client].HungUp = true;
  for (auto &W : Workers)
    if (W.second.Job && W.second.Client == Client && !W.second.Stopped) {
      kill(W.first, SIGTERM);
      W.second.Stopped = Clock::now();
    }
}

// A new link, once it is known to be the user's own: greeted with the
// service's process ID.
void ServerLoop::accept() {
  int Socket = accept4(Listening, nullptr, nullptr, SOCK_CLOEXEC);
  if (Socket < 0)
    return;
  struct ucred Peer;
  socklen_t Size = sizeof(Peer);
  Reply Hello = {HelloID, {ForkServer::Status::Exited, int32_t(Self)}};
  if (getsockopt(Socket, SOL_SOCKET, SO_PEERCRED, &Peer, &Size) != 0 ||
      Peer.uid != geteuid() ||
      send(Socket, &Hello, sizeof(Hello), MSG_NOSIGNAL) < 0) {
    close(Socket);
    return;
  }
  Clients[NextClient++] = {Socket};
}

// A service's timers: SIGKILL for the stopped jobs that outlast their grace,
// closing the connections of links whose jobs have ended, and the end of an
// idle service. Returns how long poll() may sleep, in milliseconds.
int ServerLoop::serviceDuties() {
  auto Now = Clock::now();
  int Timeout = -1;
  bool Running = false;
  for (auto &W : Workers) {
    Running |= W.second.Job.has_value();
    if (!W.second.Stopped || W.second.Killed)
      continue;
    auto At = *W.second.Stopped + std::chrono::seconds(2);
    if (Now < At) {
      Timeout = sooner(Timeout, At, Now);
      continue;
    }
    kill(W.first, SIGKILL);
    W.second.Killed = true;
  }
  for (auto It = Clients.begin(); It != Clients.end();) {
    unsigned ID = It->first;
    bool HasJobs = any_of(Workers, [&](const auto &W) {
      return W.second.Job && W.second.Client == ID;
    });
    if (It->second.HungUp && !HasJobs) {
      close(It->second.Socket);
      It = Clients.erase(It);
    } else {
      ++It;
    }
  }
  if (!Clients.empty() || Running) {
    LastWork = Now;
  } else if (Now - LastWork >= IdleLimit) {
    // No new link may connect to a service that is ending: the next one
    // starts a service of its own.
    Open = false;
    stopListening();
  } else {
    Timeout = sooner(Timeout, LastWork + IdleLimit, Now);
  }
  return Timeout;
}

void ServerLoop::installHandlers(std::optional<pid_t> Distributor) {
  if (pipe2(Wake, O_CLOEXEC | O_NONBLOCK) != 0)
    _exit(1);
  ChildExitedFd = Wake[1];
  struct sigaction Action = {};
  Action.sa_handler = onChildExited;
  Action.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigaction(SIGCHLD, &Action, nullptr);
  // Not `ulto dist`'s interrupt function, inherited: the server's own.
  sys::SetInterruptFunction(onStop);
  if (Distributor && !terminateWhenParentDies(*Distributor))
    _exit(1);
}

// After a stop was asked for: nothing new starts, a service's links run
// their remaining jobs themselves (LocalExecutor), the stopped ones again
// (they get no reply). The poll's timeout; -1 when no worker is left.
int ServerLoop::stopStep() {
  Open = false;
  if (Service) {
    for (auto &C : Clients)
      close(C.second.Socket);
    Clients.clear();
    stopListening();
  }
  if (Workers.empty())
    return -1;
  return stopWorkers(Workers, StopSince, StopSteps);
}

void ServerLoop::fillPoll(std::vector<pollfd> &Fds,
                          std::vector<std::pair<Polled, int>> &What) const {
  Fds.assign({{Wake[0], POLLIN, 0}});
  What.assign({{Polled::Wake, 0}});
  if (Open) {
    for (const auto &C : Clients)
      if (!C.second.HungUp) {
        Fds.push_back({C.second.Socket, POLLIN, 0});
        What.push_back({Polled::Client, int(C.first)});
      }
    if (Listening >= 0) {
      Fds.push_back({Listening, POLLIN, 0});
      What.push_back({Polled::Listen, 0});
    }
  }
  for (const auto &W : Workers)
    if (W.second.Socket >= 0 && !W.second.HungUp) {
      Fds.push_back({W.second.Socket, POLLIN, 0});
      What.push_back({Polled::Worker, W.first});
    }
}

void ServerLoop::handlePolled(const std::vector<pollfd> &Fds,
                              const std::vector<std::pair<Polled, int>> &What,
                              std::vector<char> &Request) {
  char Drain[64];
  while (read(Wake[0], Drain, sizeof(Drain)) > 0)
    ;
  for (size_t I = 0; I != Fds.size(); ++I)
    if (Fds[I].revents && What[I].first == Polled::Worker)
      readReply(Workers[What[I].second]);
  reapWorkers();
  for (size_t I = 0; I != Fds.size() && Open; ++I) {
    if (!(Fds[I].revents & (POLLIN | POLLHUP)))
      continue;
    if (What[I].first == Polled::Client)
      readRequest(What[I].second, Request);
    else if (What[I].first == Polled::Listen)
      accept();
  }
}

void ServerLoop::serve(std::optional<pid_t> Distributor) {
  installHandlers(Distributor);
  std::vector<char> Request(MaxRequestSize);
  std::vector<pollfd> Fds;
  std::vector<std::pair<Polled, int>> What;
  if (Opts.JobsPerWorker > 1)
    for (unsigned I = 0; I != Opts.IdleWorkers; ++I)
      if (!startWorker(/*TakesMore=*/true))
        break; // The jobs fork their own.
  while (Open || !Workers.empty()) {
    int Timeout = -1;
    if (Listening >= 0)
      Timeout = serviceDuties();
    if (StopRequested) {
      Timeout = stopStep();
      if (Workers.empty())
        break;
    }
    // Idle workers end once no job can come.
    if (!Open)
      for (auto &W : Workers)
        if (!W.second.Job && W.second.Socket >= 0)
          closeSocket(W.second);
    fillPoll(Fds, What);
    if (poll(Fds.data(), Fds.size(), Timeout) < 0 && errno != EINTR)
      _exit(1);
    handlePolled(Fds, What, Request);
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

Expected<std::unique_ptr<ForkServer>> ForkServer::connected(int Socket) {
  // A service that is ending closes the connections it has not accepted:
  // its greeting says it is not.
  pollfd Fd = {Socket, POLLIN, 0};
  Reply Hello;
  if (poll(&Fd, 1, /*Milliseconds=*/2000) != 1 ||
      recv(Socket, &Hello, sizeof(Hello), MSG_DONTWAIT) != sizeof(Hello) ||
      Hello.ID != HelloID) {
    close(Socket);
    return createStringError("the worker service did not answer");
  }
  SmallString<256> Directory;
  if (std::error_code EC = sys::fs::current_path(Directory)) {
    close(Socket);
    return createStringError(EC, "cannot tell the working directory: %s",
                             EC.message().c_str());
  }
  std::string Where = (Directory + StringRef("\0", 1)).str();
  if (const char *Pwd = getenv("PWD"))
    Where += Pwd;
  Where += '\0';
  return std::unique_ptr<ForkServer>(
      new ForkServer(Socket, Hello.Ended.Code, std::move(Where)));
}

void ForkServer::serve(int Listening, const MainFn &Main, const Options &Opts,
                       std::chrono::milliseconds IdleLimit) {
  ServerLoop(Listening, Main, Opts, IdleLimit).serve(std::nullopt);
}

ForkServer::~ForkServer() {
  // No interrupt may shut down the descriptor once it is closed, and maybe
  // another file's.
  bool OfService = isService();
  Served.reset();
  close(Socket);
  if (OfService)
    return;
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
  Request += Directory;
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
