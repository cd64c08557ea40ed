//===- Semaphore.h - At most N holders at once ------------------*- C++ -*-===//
//
// C++17 has no std::counting_semaphore.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_SUPPORT_SEMAPHORE_H
#define ULTO_SUPPORT_SEMAPHORE_H

#include <condition_variable>
#include <mutex>

namespace ulto {

class Semaphore {
public:
  explicit Semaphore(unsigned N) : Free(N) {}
  void acquire() {
    std::unique_lock<std::mutex> Lock(Mutex);
    Changed.wait(Lock, [&] { return Free != 0; });
    --Free;
  }
  void release() {
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      ++Free;
    }
    Changed.notify_one();
  }

private:
  std::mutex Mutex;
  std::condition_variable Changed;
  unsigned Free;
};

} // namespace ulto

#endif // ULTO_SUPPORT_SEMAPHORE_H
