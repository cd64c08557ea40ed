//===- SchedulerTest.cpp - Largest first, at most N at once ---------------===//

#include "ulto/Distributor/Scheduler.h"

#include "Common/Gate.h"
#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

using namespace llvm;
using namespace ulto;

namespace {

BackendJob sized(uint64_t Bytes) {
  BackendJob Job;
  Job.ModuleBytes = Bytes;
  return Job;
}

TEST(SchedulerTest, LargestFirstTiesInListOrder) {
  std::vector<BackendJob> Jobs = {sized(10), sized(30), sized(20), sized(30),
                                  sized(0)};
  EXPECT_EQ(scheduleLargestFirst(Jobs), (std::vector<size_t>{1, 3, 2, 0, 4}));
  EXPECT_TRUE(scheduleLargestFirst({}).empty());
}

TEST(SchedulerTest, StartsInOrderOneAtATime) {
  std::vector<size_t> Order = {4, 2, 0, 3, 1};
  std::vector<size_t> Started;
  std::mutex Mutex;
  runInParallel(Order, 1, [&](size_t I, bool) {
    std::lock_guard<std::mutex> Lock(Mutex);
    Started.push_back(I);
    return true;
  });
  EXPECT_EQ(Started, Order);
}

// The most tasks that ran at once: the first Parallelism wait for each other
// (a Gate: so that many did run at once), none sleeps.
unsigned maxRunning(unsigned Parallelism, size_t Tasks) {
  std::vector<size_t> Order(Tasks);
  for (size_t I = 0; I != Tasks; ++I)
    Order[I] = I;
  std::atomic<unsigned> Running{0}, Max{0}, Ran{0};
  test::Gate AllAtOnce(Parallelism);
  runInParallel(Order, Parallelism, [&](size_t, bool) {
    unsigned Now = ++Running;
    unsigned Seen = Max.load();
    while (Now > Seen && !Max.compare_exchange_weak(Seen, Now))
      ;
    AllAtOnce.pass();
    --Running;
    ++Ran;
    return true;
  });
  EXPECT_EQ(Ran.load(), Tasks);
  EXPECT_TRUE(AllAtOnce.opened()) << Parallelism << " never ran at once";
  return Max.load();
}

TEST(SchedulerTest, AtMostNAtOnce) {
  EXPECT_LE(maxRunning(1, 6), 1u);
  EXPECT_LE(maxRunning(3, 9), 3u);
  // More at once than cores: remote executors wait on the network.
  EXPECT_LE(maxRunning(8, 16), 8u);
}

// A task that steps aside runs again after the others, once, and may not
// step aside twice.
TEST(SchedulerTest, DeferredTasksRunLastOnce) {
  std::vector<size_t> Order = {0, 1, 2, 3};
  std::vector<std::pair<size_t, bool>> Visits;
  runInParallel(Order, 1, [&](size_t I, bool MayDefer) {
    Visits.push_back({I, MayDefer});
    return I % 2 == 0 || !MayDefer;
  });
  EXPECT_EQ(
      Visits,
      (std::vector<std::pair<size_t, bool>>{
          {0, true}, {1, true}, {2, true}, {3, true}, {1, false}, {3, false}}));
}

} // namespace
