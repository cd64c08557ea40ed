//===- ForkServer.cpp - Compiler jobs without exec ------------------------===//
//
// Requests and replies are messages on a SOCK_SEQPACKET socket pair, so each
// arrives whole: a request is a 64-bit ID, then the output file and the
// arguments, each ending in NUL; a reply is the ID and how the child ended.
//
//===----------------------------------------------------------------------===//

#include "ulto/Distributor/ForkServer.h"

#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <optional>
#include <poll.h>
#include <signal.h>
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

// The server's end of its self-pipe: SIGCHLD wakes its poll().
int ChildExitedFd = -1;

void onChildExited(int) {
  int Saved = errno;
  char Byte = 0;
  (void)!write(ChildExitedFd, &Byte, 1);
  errno = Saved;
}

[[noreturn]] void runChild(int Socket, int WakeRead, ArrayRef<char> Request,
                           const ForkServer::MainFn &Main) {
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
  int Code = Main(ArrayRef(Strings).drop_front());
  outs().flush();
  errs().flush();
  _exit(Code);
}

[[noreturn]] void serve(int Socket, const ForkServer::MainFn &Main) {
  int Wake[2];
  if (pipe2(Wake, O_CLOEXEC | O_NONBLOCK) != 0)
    _exit(1);
  ChildExitedFd = Wake[1];
  struct sigaction Action = {};
  Action.sa_handler = onChildExited;
  Action.sa_flags = SA_RESTART | SA_NOCLDSTOP;
  sigaction(SIGCHLD, &Action, nullptr);

  DenseMap<pid_t, uint64_t> Running;
  std::vector<char> Request(1 << 20);
  bool Open = true;
  while (Open || !Running.empty()) {
    pollfd Fds[2] = {{Wake[0], POLLIN, 0}, {Socket, POLLIN, 0}};
    if (poll(Fds, Open ? 2 : 1, -1) < 0 && errno != EINTR)
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
    pid_t Pid = fork();
    if (Pid == 0)
      runChild(Socket, Wake[0], ArrayRef(Request.data(), Size), Main);
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

Expected<std::unique_ptr<ForkServer>> ForkServer::start(const MainFn &Main) {
  int Fds[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, Fds) != 0)
    return createStringError(std::error_code(errno, std::generic_category()),
                             "cannot start the fork server: %s",
                             strerror(errno));
  // Nothing buffered may be written twice, by the parent and the server.
  outs().flush();
  errs().flush();
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
    serve(Fds[1], Main);
  }
  close(Fds[1]);
  return std::unique_ptr<ForkServer>(new ForkServer(Fds[0], Pid));
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
