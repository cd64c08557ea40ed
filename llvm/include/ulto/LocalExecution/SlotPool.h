//===- SlotPool.h - Backend slots shared by the links of a machine -*- C++ -*-//
//
// Build systems run several links at once, and each distributed link starts
// its own backend jobs: six links of two jobs each put twelve compilers on two
// cores. The slot pool is one limit for all of them: a directory of slot
// files, "slot-0" to "slot-<N-1>", and a job runs while its process holds an
// exclusive flock on one of them. The kernel releases the locks of a process
// that dies, so a killed link never keeps a slot and nothing needs cleaning.
// A process asked for N slots uses the first N files: links with different
// limits share the lower slots, and none runs more jobs than its own limit.
//
// A process that finds every slot taken waits its turn on the pool's "queue"
// file (a blocking flock: the kernel keeps the waiting links asleep), then
// polls the slots every millisecond until one is free. Only the process at
// the head of the queue polls.
//
// flock, not LLVM's sys::fs::tryLockFile: that takes POSIX record locks,
// which belong to the whole process (two threads of a link would share one
// slot) and are dropped when any descriptor of the file is closed.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LOCALEXECUTION_SLOTPOOL_H
#define ULTO_LOCALEXECUTION_SLOTPOOL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ulto {

/// Where the user's pool lives: $XDG_RUNTIME_DIR/ulto-slots, else
/// <temp>/ulto-slots-<uid>. Local to the machine even when the cache is on
/// a shared file system.
std::string defaultSlotDirectory();

/// The slot limit when no option sets one: $ULTO_JOBS if set (an error
/// unless it is a positive number), else one per hardware thread.
llvm::Expected<unsigned> defaultSlotCount();

class SlotPool {
public:
  /// Opens the pool in \p Directory, creating it (private to the user) and
  /// its first \p Slots slot files. Fails if the directory belongs to
  /// another user or the file system has no flock.
  static llvm::Expected<std::unique_ptr<SlotPool>>
  open(llvm::StringRef Directory, unsigned Slots);
  ~SlotPool();

  /// A slot held by this process; given back when destroyed.
  class Slot {
  public:
    Slot(Slot &&Other) : Pool(Other.Pool), Index(Other.Index) {
      Other.Pool = nullptr;
    }
    Slot &operator=(Slot &&) = delete;
    ~Slot();
    unsigned index() const { return Index; }

  private:
    friend class SlotPool;
    Slot(SlotPool *Pool, unsigned Index) : Pool(Pool), Index(Index) {}
    SlotPool *Pool;
    unsigned Index;
  };

  /// Waits until a slot is free on this machine and takes it. Thread-safe.
  Slot acquire();

  unsigned size() const { return SlotFDs.size(); }

private:
  SlotPool(std::vector<int> SlotFDs, int QueueFD);
  std::optional<unsigned> tryTake();
  void release(unsigned Index);

  std::vector<int> SlotFDs;
  int QueueFD;
  std::mutex Mutex; // Guards Held.
  std::vector<bool> Held;
  std::mutex Turn; // One thread of this process stands in the queue.
};

} // namespace ulto

#endif // ULTO_LOCALEXECUTION_SLOTPOOL_H
