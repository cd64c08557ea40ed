//===- Gate.h - Tasks held until N are there at once ------------*- C++ -*-===//
//
// For tests of concurrency limits without sleeps: the first N arrivals wait
// for each other, which proves that N ran at once (or times out, which
// fails the test rather than hanging it); later arrivals pass.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_UNITTESTS_COMMON_GATE_H
#define ULTO_UNITTESTS_COMMON_GATE_H

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace ulto::test {

class Gate {
public:
  explicit Gate(unsigned N) : N(N) {}

  /// Returns once N have arrived (at once), or at once for later ones.
  void pass() {
    std::unique_lock<std::mutex> Lock(Mutex);
    if (Arrived >= N)
      return;
    if (++Arrived == N)
      Changed.notify_all();
    if (!Changed.wait_for(Lock, std::chrono::seconds(30),
                          [&] { return Arrived >= N; }))
      TimedOut = true;
  }

  /// Whether N arrived while the first of them still waited.
  bool opened() {
    std::lock_guard<std::mutex> Lock(Mutex);
    return Arrived >= N && !TimedOut;
  }

private:
  const unsigned N;
  unsigned Arrived = 0;
  bool TimedOut = false;
  std::mutex Mutex;
  std::condition_variable Changed;
};

} // namespace ulto::test

#endif // ULTO_UNITTESTS_COMMON_GATE_H
