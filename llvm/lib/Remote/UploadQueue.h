//===- UploadQueue.h - Uploads in the background of a link ------*- C++ -*-===//
//
// A link's uploads to a remote cache run on a few threads of their own while
// its remaining jobs run, so that no job waits for the network. What waits
// is bounded in bytes: past the bound an upload is dropped, not held. At the
// link's end finish() waits a bounded time, then drops what has not started
// and tells the running uploads to stop.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LIB_REMOTE_UPLOADQUEUE_H
#define ULTO_LIB_REMOTE_UPLOADQUEUE_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace ulto {

class UploadQueue {
public:
  /// One upload; true when it succeeded. It ends soon once \p Stop is set.
  using Upload = std::function<bool(const std::atomic<bool> &Stop)>;

  struct Counts {
    unsigned Done = 0, Failed = 0, Dropped = 0;
    uint64_t BytesDone = 0;
  };

  /// \p Threads are started at the first upload; \p MaxBytes bounds the
  /// bytes of the uploads waiting and running.
  UploadQueue(unsigned Threads, uint64_t MaxBytes);
  ~UploadQueue();

  /// Queues \p Run, of \p Bytes; false when it is dropped: over the bound,
  /// or after finish().
  bool push(uint64_t Bytes, Upload Run);
  /// Waits at most \p Limit for the uploads, then drops those not started
  /// and stops the others; returns once no upload runs.
  void finish(std::chrono::milliseconds Limit);
  Counts counts() const;

private:
  void work();

  const unsigned MaxThreads;
  const uint64_t MaxBytes;
  std::vector<std::thread> Threads;
  std::atomic<bool> Stop{false};

  mutable std::mutex Mutex;
  std::condition_variable Queued, Idle;
  std::deque<std::pair<uint64_t, Upload>> Waiting;
  uint64_t HeldBytes = 0; // Waiting and running.
  unsigned Running = 0;
  bool Closed = false;
  Counts Totals;
};

} // namespace ulto

#endif // ULTO_LIB_REMOTE_UPLOADQUEUE_H
