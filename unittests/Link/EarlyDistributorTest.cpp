//===- EarlyDistributorTest.cpp - ulto dist, started as the link begins ---===//
//
// The `ulto` started here is a shell script that copies what arrives on its
// --await-command= descriptor, then on its --await-checks= one, to a file,
// so the test sees what ulto dist would get, and when; the library forked
// into (ForkedDistributor.cpp) does the same.
//
//===----------------------------------------------------------------------===//

#include "ulto/Link/EarlyDistributor.h"
#include "ulto/DistProtocol/AttachedCommand.h"

#include "Common/Files.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

std::string writeScript(StringRef Dir, StringRef Name, StringRef Text) {
  std::string Path = (Dir + "/" + Name).str();
  {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    EXPECT_FALSE(EC);
    OS << Text;
  }
  EXPECT_FALSE(sys::fs::setPermissions(
      Path, sys::fs::all_exe | sys::fs::owner_read | sys::fs::owner_write));
  return Path;
}

struct Fixture {
  unittest::TempDir Dir{"early", /*Unique=*/true};
  std::string Received = (Dir.path() + "/received").str();
  std::string Ulto =
      writeScript(Dir.path(), "ulto",
                  "#!/bin/sh\n"
                  "echo \"$1 ${2%=*}= ${3%=*}=$(shift 3; for A; do "
                  "printf ' %s' \"$A\"; done)\" > " +
                      Received +
                      "\n"
                      "eval \"cat <&${2#--await-command=}\" >> " +
                      Received +
                      "\n"
                      "eval \"cat <&${3#--await-checks=}\" >> " +
                      Received + "\n");
  std::string Attach = writeScript(Dir.path(), "ulto-dist-attach", "");
  std::string NoLibrary = (Dir.path() + "/libUltoDist.so").str();
  Fixture() { setenv("ULTO_TEST_RECEIVED", Received.c_str(), 1); }
};

// What the attach program, lld's child, would write on its inherited end.
void attach(const EarlyDistributor &Early, StringRef Command) {
  StringRef Argument = Early.attachArgument();
  ASSERT_TRUE(Argument.consume_front("--attach="));
  int FD;
  ASSERT_FALSE(Argument.getAsInteger(10, FD));
  ASSERT_EQ(write(FD, Command.data(), Command.size()), ssize_t(Command.size()));
}

TEST(EarlyDistributorTest, TheDistributorGetsWhatArrivesOnTheSocket) {
  Fixture F;
  {
    std::unique_ptr<EarlyDistributor> Early =
        EarlyDistributor::start(F.Ulto, F.Attach, F.NoLibrary);
    ASSERT_TRUE(Early);
    EXPECT_EQ(Early->distributor(), F.Attach);
    attach(*Early, StringRef("dist\0x\0", 7));
  }
  // The destructor closed ld.ulto's end and waited for `ulto dist`.
  EXPECT_EQ(
      readFile(F.Received),
      std::string("dist --await-command= --await-checks=\ndist\0x\0", 45));
}

TEST(EarlyDistributorTest, TheVerdictOnTheChecksFollowsOnItsPipe) {
  for (bool Passed : {true, false}) {
    Fixture F;
    {
      std::unique_ptr<EarlyDistributor> Early =
          EarlyDistributor::start(F.Ulto, F.Attach, F.NoLibrary);
      ASSERT_TRUE(Early);
      attach(*Early, StringRef("dist\0x\0", 7));
      Early->reportChecks(Passed);
      Early->reportChecks(!Passed); // Once only.
    }
    EXPECT_EQ(
        readFile(F.Received),
        std::string("dist --await-command= --await-checks=\ndist\0x\0", 45) +
            (Passed ? ChecksPassed : ChecksRefused));
  }
}

TEST(EarlyDistributorTest, ALinkWithoutDistributorEndsIt) {
  Fixture F;
  EarlyDistributor::start(F.Ulto, F.Attach, F.NoLibrary).reset();
  EXPECT_EQ(readFile(F.Received), "dist --await-command= --await-checks=\n");
}

TEST(EarlyDistributorTest, NothingStartsWithoutTheAttachProgram) {
  Fixture F;
  EXPECT_FALSE(EarlyDistributor::start(
      F.Ulto, (F.Dir.path() + "/missing").str(), FORKED_DISTRIBUTOR));
  EXPECT_FALSE(sys::fs::exists(F.Received));
}

TEST(EarlyDistributorTest, ForksIntoTheLibrary) {
  Fixture F;
  {
    std::unique_ptr<EarlyDistributor> Early =
        EarlyDistributor::start(F.Ulto, F.Attach, FORKED_DISTRIBUTOR);
    ASSERT_TRUE(Early);
    attach(*Early, StringRef("dist\0x\0", 7));
    Early->reportChecks(true);
  }
  // The library's entry ran on the child's ends, not the `ulto` script.
  std::string Received = readFile(F.Received);
  ASSERT_TRUE(StringRef(Received).starts_with("library "));
  EXPECT_EQ(StringRef(Received).split('\n').second, StringRef("dist\0x\0y", 8));
}

TEST(EarlyDistributorTest, TheWorkerOptionsComeWithTheStart) {
  Fixture F;
  std::vector<std::string> Options = {"--service", "--jobs-per-process=3"};
  EarlyDistributor::start(F.Ulto, F.Attach, FORKED_DISTRIBUTOR, Options)
      .reset();
  EXPECT_TRUE(StringRef(readFile(F.Received))
                  .split('\n')
                  .first.ends_with(" --service --jobs-per-process=3"));
  EarlyDistributor::start(F.Ulto, F.Attach, F.NoLibrary, Options).reset();
  EXPECT_EQ(readFile(F.Received), "dist --await-command= --await-checks= "
                                  "--service --jobs-per-process=3\n");
}

TEST(EarlyDistributorTest, TheForkedChildKeepsNoCloseOnExecDescriptor) {
  Fixture F;
  // Opened close-on-exec, as ld.ulto opens its files: a started `ulto`
  // would not hold the writing end, and neither may the forked child.
  int Pipe[2];
  ASSERT_EQ(pipe2(Pipe, O_CLOEXEC), 0);
  std::unique_ptr<EarlyDistributor> Early =
      EarlyDistributor::start(F.Ulto, F.Attach, FORKED_DISTRIBUTOR);
  ASSERT_TRUE(Early);
  close(Pipe[1]);
  // The child waits for its command meanwhile; the pipe reads as closed
  // only if it holds no writing end.
  pollfd Reader = {Pipe[0], POLLIN, 0};
  EXPECT_EQ(poll(&Reader, 1, /*Milliseconds=*/10000), 1);
  EXPECT_TRUE(Reader.revents & POLLHUP);
  close(Pipe[0]);
  Early.reset();
  EXPECT_TRUE(StringRef(readFile(F.Received)).starts_with("library "));
}

TEST(EarlyDistributorTest, AnUnloadableLibraryStartsUlto) {
  Fixture F;
  std::string NotALibrary = (F.Dir.path() + "/libUltoDist.so").str();
  {
    std::error_code EC;
    raw_fd_ostream OS(NotALibrary, EC);
    ASSERT_FALSE(EC);
    OS << "not a library\n";
  }
  EarlyDistributor::start(F.Ulto, F.Attach, NotALibrary).reset();
  EXPECT_EQ(readFile(F.Received), "dist --await-command= --await-checks=\n");
}

} // namespace
