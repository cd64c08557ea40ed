//===- RunningJobsTest.cpp - Jobs in flight, shared between links ---------===//
//
// Two claims on one key stand for two processes (the locks belong to open
// files); a holder that dies is a forked child killed with SIGKILL. The
// claims make no file of their own.
//
//===----------------------------------------------------------------------===//

#include "ulto/Distributor/RunningJobs.h"

#include "Common/ErrorText.h"
#include "Common/Files.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <fcntl.h>
#include <future>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

using namespace std::chrono_literals;
using WaitResult = RunningJobs::WaitResult;

class RunningJobsTest : public testing::Test {
protected:
  RunningJobsTest() : Dir("running", /*Unique=*/true) {
    std::string Warning;
    Expected<std::optional<RunningJobs>> Opened =
        RunningJobs::open(Dir.path(), std::nullopt, Warning);
    EXPECT_EQ(errorText(Opened), "");
    EXPECT_EQ(Warning, "");
    if (Opened && *Opened)
      Running.emplace(std::move(**Opened));
  }

  RunningJobs::Claim claim(StringRef Key) {
    Expected<RunningJobs::Claim> C = Running->claim(Key);
    EXPECT_EQ(errorText(C), "");
    return std::move(*C);
  }

  unittest::TempDir Dir;
  std::optional<RunningJobs> Running;
};

TEST_F(RunningJobsTest, OneHolderPerKey) {
  std::optional<RunningJobs::Claim> Holder(claim("k1"));
  EXPECT_TRUE(Holder->held());
  RunningJobs::Claim Watcher = claim("k1");
  EXPECT_FALSE(Watcher.held());
  EXPECT_TRUE(claim("k2").held());

  EXPECT_EQ(RunningJobs::wait(Watcher, 20ms), WaitResult::TimedOut);
  std::future<WaitResult> Waiting = std::async(
      std::launch::async, [&] { return RunningJobs::wait(Watcher, 10s); });
  EXPECT_EQ(Waiting.wait_for(50ms), std::future_status::timeout);
  Holder.reset();
  EXPECT_EQ(Waiting.get(), WaitResult::Held);
  EXPECT_TRUE(Watcher.held());
  // Others now wait for the watcher.
  EXPECT_FALSE(claim("k1").held());
  EXPECT_EQ(
      filesIn(Dir.path()),
      std::vector<std::string>{sys::path::filename(Running->path()).str()});
}

TEST_F(RunningJobsTest, AWaiterTakesOverFromAKilledHolder) {
  int Ready[2];
  ASSERT_EQ(::pipe(Ready), 0);
  pid_t Child = ::fork();
  if (Child == 0) {
    Expected<RunningJobs::Claim> C = Running->claim("k");
    if (!C || !C->held())
      ::_exit(1);
    (void)!::write(Ready[1], "x", 1);
    ::pause();
    ::_exit(0);
  }
  char Byte;
  ASSERT_EQ(::read(Ready[0], &Byte, 1), 1);
  ::close(Ready[0]);
  ::close(Ready[1]);

  RunningJobs::Claim Watcher = claim("k");
  EXPECT_FALSE(Watcher.held());
  ::kill(Child, SIGKILL);
  ::waitpid(Child, nullptr, 0);
  EXPECT_EQ(RunningJobs::wait(Watcher, 10s), WaitResult::Held);
  EXPECT_TRUE(Watcher.held());
  EXPECT_FALSE(claim("k").held());
}

TEST_F(RunningJobsTest, AnUnopenableLockFileIsAnErrorNamingIt) {
  unittest::TempDir Other("running", /*Unique=*/true);
  std::string Lock =
      (Other.path() + "/running-" + Twine(::geteuid()) + ".lock").str();
  ASSERT_FALSE(sys::fs::create_directory(Lock));
  std::string Warning;
  EXPECT_EQ(errorText(RunningJobs::open(Other.path(), std::nullopt, Warning)),
            "cannot open '" + Lock + "': Is a directory");
}

// Whoever can open the file can lock its bytes, and stall the jobs that
// wait there: it is the user's alone, replaced if others could open it
// (whoever opened it keeps the old file), and a link does not wait on
// another process's lock of the old one.
TEST_F(RunningJobsTest, OnlyTheUserCanOpenTheLockFile) {
  struct stat Status;
  ASSERT_EQ(::stat(Running->path().str().c_str(), &Status), 0);
  EXPECT_EQ(Status.st_mode & 07777, 0600u);

  unittest::TempDir Other("running", /*Unique=*/true);
  std::string Lock =
      (Other.path() + "/running-" + Twine(::geteuid()) + ".lock").str();
  int Reader = ::open(Lock.c_str(), O_RDWR | O_CREAT, 0644);
  ASSERT_GE(Reader, 0);
  ASSERT_EQ(::fchmod(Reader, 0644), 0);
  struct flock Whole = {};
  Whole.l_type = F_RDLCK;
  ASSERT_EQ(::fcntl(Reader, F_OFD_SETLK, &Whole), 0);
  std::string Warning;
  Expected<std::optional<RunningJobs>> Opened =
      RunningJobs::open(Other.path(), std::nullopt, Warning);
  ASSERT_EQ(errorText(Opened), "");
  ASSERT_TRUE(*Opened);
  EXPECT_EQ(Warning, "");
  Expected<RunningJobs::Claim> C = (*Opened)->claim("key");
  ASSERT_EQ(errorText(C), "");
  EXPECT_TRUE(C->held());
  ::close(Reader);
}

// Another user's file at the user's name: no sharing, one warning, and no
// error (the cache stays writable).
TEST_F(RunningJobsTest, AnotherUsersFileIsNotUsed) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "needs root to make another user's file";
  unittest::TempDir Other("running", /*Unique=*/true);
  std::string Lock =
      (Other.path() + "/running-" + Twine(::geteuid()) + ".lock").str();
  int FD = ::open(Lock.c_str(), O_RDWR | O_CREAT, 0600);
  ASSERT_GE(FD, 0);
  ASSERT_EQ(::fchown(FD, 65534, 65534), 0);
  ::close(FD);
  std::string Warning;
  Expected<std::optional<RunningJobs>> Opened =
      RunningJobs::open(Other.path(), std::nullopt, Warning);
  ASSERT_EQ(errorText(Opened), "");
  EXPECT_FALSE(*Opened);
  EXPECT_EQ(Warning, "'" + Lock +
                         "' is not used: it belongs to user 65534; this link "
                         "shares no running jobs with other links");
}

} // namespace
