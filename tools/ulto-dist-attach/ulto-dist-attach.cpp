//===- ulto-dist-attach.cpp - lld's distributor, attached to ulto dist ----===//
//
// ld.ulto starts `ulto dist` when a distributed link begins and names this
// program as lld's DTLTO distributor (AttachedCommand.h): lld runs it as
//   ulto-dist-attach --attach=FD dist [ulto dist options] <jobs.json>
// and it sends everything after --attach=FD to the waiting `ulto dist` on
// descriptor FD, then exits with the status that comes back. It needs only
// the C library, so that it starts in a millisecond: loading libLLVM is the
// cost it exists to avoid.
//
// An interrupt of the link reaches `ulto dist` too, which stops its jobs,
// removes their files and exits 1: this program waits for that status
// rather than dying first, so that lld reports the distributor's end only
// once it has cleaned up, as when lld runs `ulto dist` itself.
//
//===----------------------------------------------------------------------===//

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/socket.h>
#include <unistd.h>

namespace {

const char Tool[] = "ulto-dist-attach";

int fail(const char *Message) {
  std::fprintf(stderr, "%s: error: %s\n", Tool, Message);
  return 1;
}

// send(), not write(): a `ulto dist` that has died is an error, not SIGPIPE.
bool sendAll(int FD, const char *Bytes, size_t Size) {
  for (size_t Done = 0; Done < Size;) {
    ssize_t N = send(FD, Bytes + Done, Size - Done, MSG_NOSIGNAL);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Done += N;
  }
  return true;
}

} // namespace

int main(int Argc, char **Argv) {
  const char Prefix[] = "--attach=";
  if (Argc < 2 || std::strncmp(Argv[1], Prefix, sizeof(Prefix) - 1) != 0)
    return fail("usage: ulto-dist-attach --attach=FD <command line>; ld.ulto "
                "runs it as lld's distributor");
  char *End;
  long FD = std::strtol(Argv[1] + sizeof(Prefix) - 1, &End, 10);
  if (*End || FD < 0)
    return fail("--attach= needs a file descriptor");

  const int StopSignals[] = {SIGINT, SIGTERM, SIGHUP};
  for (int Signal : StopSignals)
    std::signal(Signal, SIG_IGN);
  // Each argument with its NUL: they lie one after another in memory only
  // by the loader's habit, so they are copied.
  size_t Size = 0;
  for (int I = 2; I < Argc; ++I)
    Size += std::strlen(Argv[I]) + 1;
  char *Command = static_cast<char *>(std::malloc(Size ? Size : 1));
  if (!Command)
    return fail("out of memory");
  size_t At = 0;
  for (int I = 2; I < Argc; ++I) {
    size_t Length = std::strlen(Argv[I]) + 1;
    std::memcpy(Command + At, Argv[I], Length);
    At += Length;
  }
  if (!sendAll(FD, Command, Size) || shutdown(FD, SHUT_WR) != 0) {
    std::fprintf(stderr, "%s: error: cannot reach ulto dist: %s\n", Tool,
                 std::strerror(errno));
    return 1;
  }
  unsigned char Status;
  ssize_t N;
  do
    N = read(FD, &Status, 1);
  while (N < 0 && errno == EINTR);
  // Ended without a status: interrupted or killed, and it has said so itself
  // when it could; lld reports the failure, as for `ulto dist` exiting 1.
  if (N != 1)
    return 1;
  return Status;
}
