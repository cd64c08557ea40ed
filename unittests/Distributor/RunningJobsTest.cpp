//===- RunningJobsTest.cpp - Jobs in flight, shared between links ---------===//
//
// Two claims on one key stand for two processes (flock locks belong to open
// files); a holder that dies is a forked child killed with SIGKILL.
//
//===----------------------------------------------------------------------===//

#include "ulto/Distributor/RunningJobs.h"

#include "Common/ErrorText.h"
#include "Common/LockHolder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <fcntl.h>
#include <future>
#include <sys/file.h>
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

  std::string path(StringRef Key) {
    return (Running->directory() + "/" + Key).str();
  }

  unittest::TempDir Dir;
  std::optional<RunningJobs> Running;
};

TEST_F(RunningJobsTest, OneHolderPerKey) {
  std::optional<RunningJobs::Claim> Holder(claim("k1"));
  EXPECT_TRUE(Holder->held());
  EXPECT_TRUE(sys::fs::exists(path("k1")));
  RunningJobs::Claim Watcher = claim("k1");
  EXPECT_FALSE(Watcher.held());
  EXPECT_TRUE(claim("k2").held());

  EXPECT_EQ(RunningJobs::wait(Watcher, 20ms), WaitResult::TimedOut);
  std::future<WaitResult> Waiting = std::async(
      std::launch::async, [&] { return RunningJobs::wait(Watcher, 10s); });
  EXPECT_EQ(Waiting.wait_for(50ms), std::future_status::timeout);
  Holder.reset();
  EXPECT_EQ(Waiting.get(), WaitResult::Released);
  EXPECT_FALSE(Watcher.held());
  // The holder removed its file; the next claim makes a new one.
  EXPECT_FALSE(sys::fs::exists(path("k1")));
  EXPECT_TRUE(claim("k1").held());
  EXPECT_FALSE(sys::fs::exists(path("k1")));
}

TEST_F(RunningJobsTest, AWaiterTakesOverFromAKilledHolder) {
  LockHolder Holder(path("k"));
  ASSERT_TRUE(Holder.held());
  RunningJobs::Claim Watcher = claim("k");
  EXPECT_FALSE(Watcher.held());
  Holder.kill();
  EXPECT_EQ(RunningJobs::wait(Watcher, 10s), WaitResult::TakenOver);
  EXPECT_TRUE(Watcher.held());
  // Others now wait for this process.
  EXPECT_FALSE(claim("k").held());
}

TEST_F(RunningJobsTest, AbandonedFilesAreRemovedHeldOnesKept) {
  std::string Abandoned = path("dead");
  ASSERT_EQ(::close(::open(Abandoned.c_str(), O_CREAT | O_WRONLY, 0600)), 0);
  RunningJobs::Claim Live = claim("live");
  Running->removeAbandoned();
  EXPECT_FALSE(sys::fs::exists(Abandoned));
  EXPECT_TRUE(sys::fs::exists(path("live")));
  EXPECT_FALSE(claim("live").held());
}

TEST_F(RunningJobsTest, ClaimFailsWithTheFileNamed) {
  ASSERT_FALSE(sys::fs::create_directory(path("dir")));
  Expected<RunningJobs::Claim> C = Running->claim("dir");
  EXPECT_EQ(errorText(C), "cannot open '" + path("dir") + "': Is a directory");
}

} // namespace
