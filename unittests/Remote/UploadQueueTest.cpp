//===- UploadQueueTest.cpp - Uploads in the background of a link ----------===//
//
// Fake uploads: the queue runs them on its own threads, drops those past its
// byte bound or after its end, and at its end waits only so long: it drops
// what has not started and stops what runs.
//
//===----------------------------------------------------------------------===//

#include "UploadQueue.h"

#include "gtest/gtest.h"

#include <thread>

using namespace ulto;
using namespace std::chrono_literals;

namespace {

// An upload held until released, which says when it has started.
struct Held {
  std::mutex Mutex;
  std::condition_variable Changed;
  bool Started = false, Released = false;

  UploadQueue::Upload upload() {
    return [this](const std::atomic<bool> &) {
      std::unique_lock<std::mutex> Lock(Mutex);
      Started = true;
      Changed.notify_all();
      Changed.wait(Lock, [&] { return Released; });
      return true;
    };
  }
  void waitStarted() {
    std::unique_lock<std::mutex> Lock(Mutex);
    ASSERT_TRUE(Changed.wait_for(Lock, 30s, [&] { return Started; }));
  }
  void release() {
    std::lock_guard<std::mutex> Lock(Mutex);
    Released = true;
    Changed.notify_all();
  }
};

TEST(UploadQueueTest, RunsUploadsOnItsOwnThreads) {
  UploadQueue Queue(2, 1 << 20);
  std::atomic<int> Ran{0};
  std::thread::id Caller = std::this_thread::get_id();
  std::atomic<bool> OnCaller{false};
  for (int I = 0; I != 5; ++I)
    EXPECT_TRUE(Queue.push(10, [&, I](const std::atomic<bool> &) {
      OnCaller = OnCaller || std::this_thread::get_id() == Caller;
      ++Ran;
      return I != 4; // The last one fails.
    }));
  Queue.finish(30s);
  EXPECT_EQ(Ran, 5);
  EXPECT_FALSE(OnCaller);
  UploadQueue::Counts C = Queue.counts();
  EXPECT_EQ(C.Done, 4u);
  EXPECT_EQ(C.Failed, 1u);
  EXPECT_EQ(C.Dropped, 0u);
  EXPECT_EQ(C.BytesDone, 40u);
}

TEST(UploadQueueTest, DropsPastItsByteBound) {
  UploadQueue Queue(1, 10);
  Held First;
  EXPECT_TRUE(Queue.push(6, First.upload()));
  First.waitStarted();
  // 6 are held while the first runs: 6 more are over the bound, 4 are not.
  EXPECT_FALSE(Queue.push(6, [](const std::atomic<bool> &) { return true; }));
  EXPECT_TRUE(Queue.push(4, [](const std::atomic<bool> &) { return true; }));
  First.release();
  Queue.finish(30s);
  UploadQueue::Counts C = Queue.counts();
  EXPECT_EQ(C.Done, 2u);
  EXPECT_EQ(C.Dropped, 1u);
  // One upload larger than the bound goes when nothing else is held.
  UploadQueue Large(1, 10);
  EXPECT_TRUE(Large.push(50, [](const std::atomic<bool> &) { return true; }));
  Large.finish(30s);
  EXPECT_EQ(Large.counts().Done, 1u);
}

TEST(UploadQueueTest, FinishWaitsBoundedlyThenDropsAndStops) {
  UploadQueue Queue(1, 1 << 20);
  std::atomic<bool> Started{false};
  // Runs until told to stop, as a transfer to a server that hangs.
  EXPECT_TRUE(Queue.push(1, [&](const std::atomic<bool> &Stop) {
    Started = true;
    while (!Stop)
      std::this_thread::sleep_for(1ms);
    return false;
  }));
  bool WaitingRan = false;
  EXPECT_TRUE(Queue.push(1, [&](const std::atomic<bool> &) {
    WaitingRan = true;
    return true;
  }));
  while (!Started)
    std::this_thread::sleep_for(1ms);
  auto Start = std::chrono::steady_clock::now();
  Queue.finish(50ms);
  EXPECT_LT(std::chrono::steady_clock::now() - Start, 20s);
  EXPECT_FALSE(WaitingRan);
  UploadQueue::Counts C = Queue.counts();
  EXPECT_EQ(C.Failed, 1u);
  EXPECT_EQ(C.Dropped, 1u);
  // After its end, nothing more is taken.
  EXPECT_FALSE(Queue.push(1, [](const std::atomic<bool> &) { return true; }));
  EXPECT_EQ(Queue.counts().Dropped, 2u);
}

TEST(UploadQueueTest, NoUploadsNoThreads) {
  UploadQueue Queue(4, 1 << 20);
  Queue.finish(0ms);
  UploadQueue::Counts C = Queue.counts();
  EXPECT_EQ(C.Done + C.Failed + C.Dropped, 0u);
}

} // namespace
