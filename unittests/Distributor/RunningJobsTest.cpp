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

#include <future>
#include <signal.h>
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
    Expected<RunningJobs> Opened = RunningJobs::open(Dir.path());
    EXPECT_EQ(errorText(Opened), "");
    if (Opened)
      Running.emplace(std::move(*Opened));
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
  EXPECT_EQ(filesIn(Dir.path()), std::vector<std::string>{"running.lock"});
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
  std::string Lock = (Other.path() + "/running.lock").str();
  ASSERT_FALSE(sys::fs::create_directory(Lock));
  EXPECT_EQ(errorText(RunningJobs::open(Other.path())),
            "cannot open '" + Lock + "': Is a directory");
}

} // namespace
