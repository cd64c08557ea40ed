//===- SlotPoolTest.cpp - One limit for the links of a machine ------------===//
//
// Two pools opened on one directory stand for two processes: flock locks
// belong to open files, so they exclude each other as processes would. A
// holder that dies is a forked child killed with SIGKILL.
//
//===----------------------------------------------------------------------===//

#include "ulto/LocalExecution/SlotPool.h"

#include "Common/ErrorText.h"
#include "Common/Gate.h"
#include "Common/LockHolder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <fcntl.h>
#include <future>
#include <sys/file.h>
#include <thread>
#include <unistd.h>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

using namespace std::chrono_literals;

std::unique_ptr<SlotPool> openPool(StringRef Dir, unsigned Slots) {
  Expected<std::unique_ptr<SlotPool>> Pool = SlotPool::open(Dir, Slots);
  EXPECT_TRUE(bool(Pool)) << errorText(Pool.takeError());
  return Pool ? std::move(*Pool) : nullptr;
}

TEST(SlotPoolTest, AcquireWaitsForAnotherProcessesSlot) {
  unittest::TempDir Dir("slots", /*Unique=*/true);
  std::unique_ptr<SlotPool> First = openPool(Dir.path(), 2);
  std::unique_ptr<SlotPool> Second = openPool(Dir.path(), 2);
  ASSERT_TRUE(First && Second);
  std::optional<SlotPool::Slot> A(First->acquire());
  SlotPool::Slot B = First->acquire();
  EXPECT_NE(A->index(), B.index());

  std::future<unsigned> Waiting =
      std::async(std::launch::async, [&] { return Second->acquire().index(); });
  EXPECT_EQ(Waiting.wait_for(100ms), std::future_status::timeout);
  unsigned Freed = A->index();
  A.reset();
  ASSERT_EQ(Waiting.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(Waiting.get(), Freed);
}

TEST(SlotPoolTest, NoProcessExceedsItsOwnLimit) {
  unittest::TempDir Dir("slots", /*Unique=*/true);
  std::unique_ptr<SlotPool> Small = openPool(Dir.path(), 1);
  std::unique_ptr<SlotPool> Large = openPool(Dir.path(), 3);
  ASSERT_TRUE(Small && Large);
  // The small one shares slot 0; the large one still has two of its own.
  SlotPool::Slot S = Small->acquire();
  EXPECT_EQ(S.index(), 0u);
  SlotPool::Slot L1 = Large->acquire(), L2 = Large->acquire();
  EXPECT_EQ(L1.index() + L2.index(), 3u);
}

// Threads of one process hold different slots, never more than its limit,
// and share them with the other processes.
TEST(SlotPoolTest, ThreadsShareTheLimit) {
  unittest::TempDir Dir("slots", /*Unique=*/true);
  std::unique_ptr<SlotPool> Other = openPool(Dir.path(), 1);
  std::unique_ptr<SlotPool> Pool = openPool(Dir.path(), 2);
  ASSERT_TRUE(Other && Pool);
  // The most threads that held a slot at once; the first \p Limit wait for
  // each other (a Gate: so that many did hold one at once), none sleeps.
  auto MaxRunning = [&](unsigned Limit) {
    std::atomic<unsigned> Running{0}, Max{0};
    test::Gate AllAtOnce(Limit);
    std::vector<std::thread> Threads;
    for (int I = 0; I < 4; ++I)
      Threads.emplace_back([&] {
        SlotPool::Slot Held = Pool->acquire();
        unsigned Now = ++Running;
        unsigned Seen = Max.load();
        while (Now > Seen && !Max.compare_exchange_weak(Seen, Now))
          ;
        AllAtOnce.pass();
        --Running;
      });
    for (std::thread &T : Threads)
      T.join();
    EXPECT_TRUE(AllAtOnce.opened()) << Limit << " never held slots at once";
    return Max.load();
  };
  EXPECT_LE(MaxRunning(2), 2u);
  SlotPool::Slot Taken = Other->acquire();
  EXPECT_LE(MaxRunning(1), 1u);
}

TEST(SlotPoolTest, SlotsOfAKilledProcessComeBack) {
  unittest::TempDir Dir("slots", /*Unique=*/true);
  std::unique_ptr<SlotPool> Pool = openPool(Dir.path(), 1);
  ASSERT_TRUE(Pool);
  LockHolder Holder((Dir.path() + "/slot-0").str());
  ASSERT_TRUE(Holder.held());
  std::future<unsigned> Waiting =
      std::async(std::launch::async, [&] { return Pool->acquire().index(); });
  EXPECT_EQ(Waiting.wait_for(100ms), std::future_status::timeout);
  Holder.kill();
  EXPECT_EQ(Waiting.wait_for(10s), std::future_status::ready);
}

TEST(SlotPoolTest, RefusesADirectoryItCannotTrust) {
  unittest::TempDir Dir("slots", /*Unique=*/true);
  std::string File = (Dir.path() + "/file").str();
  ASSERT_EQ(::close(::open(File.c_str(), O_CREAT | O_WRONLY, 0600)), 0);
  EXPECT_EQ(errorText(SlotPool::open(File, 2).takeError()),
            "slot pool '" + File + "': not a directory");

  std::string Other = (Dir.path() + "/other").str();
  ASSERT_FALSE(sys::fs::create_directory(Other));
  if (::chown(Other.c_str(), 65534, 65534) != 0)
    GTEST_SKIP() << "cannot give a directory to another user";
  EXPECT_EQ(errorText(SlotPool::open(Other, 2).takeError()),
            "slot pool '" + Other + "': owned by another user");
}

} // namespace
