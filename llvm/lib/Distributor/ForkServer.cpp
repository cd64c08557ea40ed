//===- ForkServer.cpp - Compiler jobs without exec ------------------------===//
//
// Requests and replies are messages on a SOCK_SEQPACKET socket pair, so each
// arrives whole: a request is a 64-bit ID, then the output file and the
// arguments, each ending in NUL; a reply is the ID and how the child ended.
//
// The server ends with `ulto dist`, and each child with the server
// (PR_SET_PDEATHSIG, Cancellation.h). On SIGTERM, SIGINT or SIGHUP the server
// stops its children with SIGTERM, on which clang removes its temporary
// output, SIGKILL after two seconds, and exits once it has reaped them all:
// when `ulto dist` has waited for the server, no job runs.
//
//===----------------------------------------------------------------------===//

#include "ulto/Distributor/ForkServer.h"

#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <iterator>
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
// its children.
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

// Forked with the stop signals held, so that none arrives before the child
// is a job rather than a server.
[[noreturn]] void runChild(int Socket, int WakeRead, ArrayRef<char> Request,
                           const ForkServer::MainFn &Main, pid_t Server) {
  sys::SetInterruptFunction(nullptr);
  if (!terminateWhenParentDies(Server))
    _exit(1);
  sigset_t Signals = stopSignals();
  sigprocmask(SIG_UNBLOCK, &Signals, nullptr);
  signal(SIGCHLD, SIG_DFL);
  close(Socket);
  close(WakeRead);
  close(ChildExitedFd);
  std::vector<const char *> Strings;
  for (size_t I = sizeof(uint64_t); I < Request.size();
       I += strlen(&Request[I]) + 1)
    Strings.push_back(&Request[I]);
  int Out = open(Strings[0], O_WRONLY | O_CREAT | O_TRUNC, 0666);
  int In = open("/dev/null", O_RDONLY);
  if (Out < 0 || In < 0 || Strings.size() < 2)
    _exit(127);
  dup2(In, 0);
  dup2(Out, 1);
  dup2(Out, 2);
  close(In);
  close(Out);
  // The child is the job: a crash's stack dump names the job's command line,
  // not the distributor's, which LLVM's stack trace carries through the fork.
  RestorePrettyStackState(nullptr);
  PrettyStackTraceProgram Job(Strings.size() - 1, Strings.data() + 1);
  int Code = Main(ArrayRef(Strings).drop_front());
  outs().flush();
  errs().flush();
  _exit(Code);
}

// Stops the running children, which a Ctrl-C has reached too, as it has
// the server: a signal of ours while clang handles that one would end it
// before it has removed its temporary output. So they get a moment, then
// SIGTERM (clang removes its temporary output on it), then SIGKILL. Returns
// how long poll() may sleep, in milliseconds.
int stopChildren(const DenseMap<pid_t, uint64_t> &Running,
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
    for (const auto &Child : Running)
      kill(Child.first, Steps[I].Signal);
    StepsDone = I + 1;
  }
  return -1;
}

[[noreturn]] void serve(int Socket, const ForkServer::MainFn &Main,
                        pid_t Distributor) {
  int Wake[2];
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
  pid_t Self = getpid();
  sigset_t Signals = stopSignals();

  DenseMap<pid_t, uint64_t> Running;
  std::vector<char> Request(1 << 20);
  bool Open = true;
  std::optional<std::chrono::steady_clock::time_point> StopSince;
  size_t StopSteps = 0;
  while (Open || !Running.empty()) {
    int Timeout = -1;
    if (StopRequested) {
      Open = false; // Nothing new starts.
      if (Running.empty())
        break;
      Timeout = stopChildren(Running, StopSince, StopSteps);
    }
    pollfd Fds[2] = {{Wake[0], POLLIN, 0}, {Socket, POLLIN, 0}};
    if (poll(Fds, Open ? 2 : 1, Timeout) < 0 && errno != EINTR)
      _exit(1);

    char Drain[64];
    while (read(Wake[0], Drain, sizeof(Drain)) > 0)
      ;
    int WaitStatus;
    pid_t Child;
    while ((Child = waitpid(-1, &WaitStatus, WNOHANG)) > 0) {
      auto It = Running.find(Child);
      if (It == Running.end())
        continue;
      Reply R = {It->second, {ForkServer::Status::Exited, 0}};
      if (WIFEXITED(WaitStatus))
        R.Ended.Code = WEXITSTATUS(WaitStatus);
      else
        R.Ended = {ForkServer::Status::Signalled, WTERMSIG(WaitStatus)};
      Running.erase(It);
      send(Socket, &R, sizeof(R), MSG_NOSIGNAL);
    }

    if (!Open || !(Fds[1].revents & (POLLIN | POLLHUP)))
      continue;
    ssize_t Size = recv(Socket, Request.data(), Request.size(), 0);
    if (Size <= 0) {
      Open = false; // The distributor is done: finish the running jobs.
      continue;
    }
    if (Size <= ssize_t(sizeof(uint64_t)) || Request[Size - 1] != '\0')
      continue;
    uint64_t ID;
    memcpy(&ID, Request.data(), sizeof(ID));
    sigprocmask(SIG_BLOCK, &Signals, nullptr);
    pid_t Pid = fork();
    if (Pid == 0)
      runChild(Socket, Wake[0], ArrayRef(Request.data(), Size), Main, Self);
    sigprocmask(SIG_UNBLOCK, &Signals, nullptr);
    if (Pid < 0) {
      Reply R = {ID, {ForkServer::Status::NotForked, errno}};
      send(Socket, &R, sizeof(R), MSG_NOSIGNAL);
      continue;
    }
    Running[Pid] = ID;
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

Expected<std::unique_ptr<ForkServer>> ForkServer::start(const MainFn &Main) {
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
    serve(Fds[1], Main, Distributor);
  }
  Process.started(Pid);
  close(Fds[1]);
  return std::unique_ptr<ForkServer>(
      new ForkServer(Fds[0], Pid, std::move(Process)));
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
