//===- MakeJobserverTest.cpp ----------------------------------------------===//

#include "ulto/Support/MakeJobserver.h"
#include "gtest/gtest.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#include <cstdlib>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace llvm;
using namespace ulto;

namespace {

FileFacts pipeEnd(uint64_t Inode, bool Reads) {
  FileFacts F;
  F.Inode = Inode;
  F.IsFifo = true;
  F.Readable = Reads;
  F.Writable = !Reads;
  F.OwnedByUser = true;
  return F;
}

FileFacts socketOrFile(uint64_t Inode) {
  FileFacts F;
  F.Inode = Inode;
  F.Readable = F.Writable = F.OwnedByUser = true;
  return F;
}

// A process's descriptors and paths, as the check sees them.
struct FakeProcess {
  DenseMap<int, FileFacts> Descriptors;
  StringMap<FileFacts> Paths;

  JobserverCheck check(StringRef MakeFlags) const {
    return checkJobserver(
        MakeFlags,
        [&](int FD) -> std::optional<FileFacts> {
          auto It = Descriptors.find(FD);
          if (It == Descriptors.end())
            return std::nullopt;
          return It->second;
        },
        [&](StringRef Path) -> std::optional<FileFacts> {
          auto It = Paths.find(Path);
          if (It == Paths.end())
            return std::nullopt;
          return It->second;
        });
  }
};

TEST(MakeJobserverTest, NoneNamed) {
  FakeProcess P;
  EXPECT_EQ(P.check("").Kind, JobserverCheck::None);
  EXPECT_EQ(P.check("s -j2").Kind, JobserverCheck::None);
}

TEST(MakeJobserverTest, TwoEndsOfOnePipeAreMakes) {
  FakeProcess P;
  P.Descriptors[3] = pipeEnd(7, /*Reads=*/true);
  P.Descriptors[4] = pipeEnd(7, /*Reads=*/false);
  EXPECT_EQ(P.check(" -j2 --jobserver-auth=3,4").Kind, JobserverCheck::Usable);
  EXPECT_EQ(P.check("--jobserver-fds=3,4 -j").Kind, JobserverCheck::Usable);
}

TEST(MakeJobserverTest, ClosedDescriptors) {
  FakeProcess P;
  JobserverCheck C = P.check("-j2 --jobserver-auth=3,4");
  EXPECT_EQ(C.Kind, JobserverCheck::Unusable);
  EXPECT_EQ(C.Problem, "descriptor 3 is closed");
  P.Descriptors[3] = pipeEnd(7, /*Reads=*/true);
  EXPECT_EQ(P.check("-j2 --jobserver-auth=3,4").Problem,
            "descriptor 4 is closed");
}

TEST(MakeJobserverTest, ASocketOrAFileIsNoPipe) {
  FakeProcess P;
  P.Descriptors[3] = socketOrFile(9);
  P.Descriptors[4] = pipeEnd(7, /*Reads=*/false);
  JobserverCheck C = P.check("-j2 --jobserver-auth=3,4");
  EXPECT_EQ(C.Kind, JobserverCheck::Unusable);
  EXPECT_EQ(C.Problem, "descriptor 3 is not a pipe");
  P.Descriptors[3] = pipeEnd(7, /*Reads=*/true);
  P.Descriptors[4] = socketOrFile(9);
  EXPECT_EQ(P.check("-j2 --jobserver-auth=3,4").Problem,
            "descriptor 4 is not a pipe");
}

TEST(MakeJobserverTest, EndsOfTwoPipes) {
  FakeProcess P;
  P.Descriptors[3] = pipeEnd(7, /*Reads=*/true);
  P.Descriptors[4] = pipeEnd(8, /*Reads=*/false);
  JobserverCheck C = P.check("-j2 --jobserver-auth=3,4");
  EXPECT_EQ(C.Kind, JobserverCheck::Unusable);
  EXPECT_EQ(C.Problem, "descriptors 3 and 4 are not one pipe");
}

TEST(MakeJobserverTest, EndsSwapped) {
  FakeProcess P;
  P.Descriptors[3] = pipeEnd(7, /*Reads=*/false);
  P.Descriptors[4] = pipeEnd(7, /*Reads=*/true);
  JobserverCheck C = P.check("-j2 --jobserver-auth=3,4");
  EXPECT_EQ(C.Kind, JobserverCheck::Unusable);
  EXPECT_EQ(C.Problem, "descriptor 3 is the wrong end of the pipe");
}

TEST(MakeJobserverTest, TheLastJobserverCounts) {
  FakeProcess P;
  P.Descriptors[5] = pipeEnd(7, /*Reads=*/true);
  P.Descriptors[6] = pipeEnd(7, /*Reads=*/false);
  EXPECT_EQ(P.check("--jobserver-auth=3,4 --jobserver-auth=5,6").Kind,
            JobserverCheck::Usable);
  EXPECT_EQ(P.check("--jobserver-auth=5,6 --jobserver-auth=3,4").Kind,
            JobserverCheck::Unusable);
}

TEST(MakeJobserverTest, NoDescriptorsNamed) {
  FakeProcess P;
  EXPECT_EQ(P.check("--jobserver-auth=3").Problem, "'3' names no descriptors");
  EXPECT_EQ(P.check("--jobserver-auth=-1,-1").Kind, JobserverCheck::Unusable);
}

TEST(MakeJobserverTest, Fifo) {
  FakeProcess P;
  P.Paths["/tmp/GMfifo1"] = pipeEnd(7, /*Reads=*/true);
  P.Paths["/tmp/file"] = socketOrFile(9);
  FileFacts Theirs = pipeEnd(8, /*Reads=*/true);
  Theirs.OwnedByUser = false;
  P.Paths["/tmp/theirs"] = Theirs;
  EXPECT_EQ(P.check("-j4 --jobserver-auth=fifo:/tmp/GMfifo1").Kind,
            JobserverCheck::Usable);
  EXPECT_EQ(P.check("--jobserver-auth=fifo:/tmp/gone").Problem,
            "'/tmp/gone' does not exist");
  EXPECT_EQ(P.check("--jobserver-auth=fifo:/tmp/file").Problem,
            "'/tmp/file' is not a FIFO");
  EXPECT_EQ(P.check("--jobserver-auth=fifo:/tmp/theirs").Problem,
            "'/tmp/theirs' belongs to another user");
}

TEST(MakeJobserverTest, WithoutJobserverKeepsTheOtherFlags) {
  EXPECT_EQ(withoutJobserver("s -j2 --jobserver-auth=3,4"), "s -j2");
  EXPECT_EQ(withoutJobserver(" -j --jobserver-fds=3,4 --jobserver-auth=3,4"),
            "-j");
  EXPECT_EQ(withoutJobserver("--jobserver-auth=fifo:/tmp/x"), "");
}

// The process's own descriptors: a real pipe is make's, a socket is not,
// and an unusable jobserver leaves the environment.
TEST(MakeJobserverTest, VetsTheRealDescriptors) {
  int Pipe[2], Pair[2];
  ASSERT_EQ(pipe(Pipe), 0);
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, Pair), 0);
  std::string Flags = "-j2 --jobserver-auth=" + std::to_string(Pipe[0]) + "," +
                      std::to_string(Pipe[1]);
  setenv("MAKEFLAGS", Flags.c_str(), 1);
  EXPECT_EQ(vetInheritedJobserver().Kind, JobserverCheck::Usable);
  EXPECT_TRUE(hasMakeJobserver());

  Flags = "-j2 --jobserver-auth=" + std::to_string(Pair[0]) + "," +
          std::to_string(Pair[1]);
  setenv("MAKEFLAGS", Flags.c_str(), 1);
  JobserverCheck C = vetInheritedJobserver();
  EXPECT_EQ(C.Kind, JobserverCheck::Unusable);
  EXPECT_EQ(C.Problem,
            "descriptor " + std::to_string(Pair[0]) + " is not a pipe");
  EXPECT_STREQ(getenv("MAKEFLAGS"), "-j2");
  EXPECT_FALSE(hasMakeJobserver());
  // The socket is as it was: still blocking.
  EXPECT_EQ(fcntl(Pair[0], F_GETFL) & O_NONBLOCK, 0);

  unsetenv("MAKEFLAGS");
  for (int FD : {Pipe[0], Pipe[1], Pair[0], Pair[1]})
    close(FD);
}

} // namespace
