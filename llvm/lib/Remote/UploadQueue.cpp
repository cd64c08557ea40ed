//===- UploadQueue.cpp - Uploads in the background of a link --------------===//

#include "UploadQueue.h"

namespace ulto {

UploadQueue::UploadQueue(unsigned Threads, uint64_t MaxBytes)
    : MaxThreads(Threads ? Threads : 1), MaxBytes(MaxBytes) {}

UploadQueue::~UploadQueue() { finish(std::chrono::milliseconds(0)); }

bool UploadQueue::push(uint64_t Bytes, Upload Run) {
  std::lock_guard<std::mutex> Lock(Mutex);
  // One upload larger than the bound still goes when nothing else is held.
  if (Closed || (HeldBytes && HeldBytes + Bytes > MaxBytes)) {
    ++Totals.Dropped;
    return false;
  }
  HeldBytes += Bytes;
  Waiting.emplace_back(Bytes, std::move(Run));
  if (Threads.size() < MaxThreads && Threads.size() < Waiting.size() + Running)
    Threads.emplace_back([this] { work(); });
  Queued.notify_one();
  return true;
}

void UploadQueue::work() {
  std::unique_lock<std::mutex> Lock(Mutex);
  while (true) {
    Queued.wait(Lock, [&] { return !Waiting.empty() || Closed; });
    if (Waiting.empty())
      return;
    auto [Bytes, Run] = std::move(Waiting.front());
    Waiting.pop_front();
    ++Running;
    Lock.unlock();
    bool Done = Run(Stop);
    Lock.lock();
    --Running;
    HeldBytes -= Bytes;
    if (Done) {
      ++Totals.Done;
      Totals.BytesDone += Bytes;
    } else {
      ++Totals.Failed;
    }
    Idle.notify_all();
  }
}

void UploadQueue::finish(std::chrono::milliseconds Limit) {
  std::vector<std::thread> Joined;
  {
    std::unique_lock<std::mutex> Lock(Mutex);
    Closed = true;
    Queued.notify_all();
    Idle.wait_for(Lock, Limit, [&] { return Waiting.empty() && !Running; });
    Totals.Dropped += Waiting.size();
    for (auto &[Bytes, Run] : Waiting)
      HeldBytes -= Bytes;
    Waiting.clear();
    Stop = true;
    Joined.swap(Threads);
  }
  for (std::thread &T : Joined)
    T.join();
}

UploadQueue::Counts UploadQueue::counts() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Totals;
}

} // namespace ulto
