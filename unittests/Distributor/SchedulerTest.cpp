//===- SchedulerTest.cpp - Largest first, at most N at once ---------------===//

#include "ulto/Distributor/Scheduler.h"

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

// Each task stays long enough for others to start if the limit allowed it.
unsigned maxRunning(unsigned Parallelism, size_t Tasks) {
  std::vector<size_t> Order(Tasks);
  for (size_t I = 0; I != Tasks; ++I)
    Order[I] = I;
  std::atomic<unsigned> Running{0}, Max{0}, Ran{0};
  runInParallel(Order, Parallelism, [&](size_t, bool) {
    unsigned Now = ++Running;
    unsigned Seen = Max.load();
    while (Now > Seen && !Max.compare_exchange_weak(Seen, Now))
      ;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    --Running;
    ++Ran;
    return true;
  });
  EXPECT_EQ(Ran.load(), Tasks);
  return Max.load();
}

TEST(SchedulerTest, AtMostNAtOnce) {
  EXPECT_EQ(maxRunning(1, 6), 1u);
  EXPECT_EQ(maxRunning(3, 9), 3u);
  // More at once than cores: remote executors wait on the network.
  EXPECT_EQ(maxRunning(8, 16), 8u);
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
