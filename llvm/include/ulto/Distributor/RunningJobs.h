//===- RunningJobs.h - Backend jobs in flight on this machine ---*- C++ -*-===//
//
// Links that run at once over one library need the same backend jobs. The
// cache shares the jobs that have finished; this shares the running ones.
// The process that starts a job holds an exclusive flock on
// "<cache>/running/<key>" until the job's object is in the cache; another
// process that needs the same key finds the lock taken, waits for it, and
// then takes the object from the cache. The kernel releases the lock of a
// process that dies, so a waiter is never stranded: it gets the lock, finds
// no object, and runs the job itself.
//
// The holder removes its lock file before it lets go. A waiter that then
// gets the lock of the removed file sees that it is no longer the file at
// that path, and looks in the cache. A file left by a killed process is
// taken over by the next process that needs its key, or removed by the next
// link's removeAbandoned().
//
// Locks only save work: objects come from the cache, whose entries are
// checked, so a lost race runs a job twice and never links a wrong object.
// flock rather than sys::fs::tryLockFile for the reasons in SlotPool.h.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_RUNNINGJOBS_H
#define ULTO_DISTRIBUTOR_RUNNINGJOBS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <string>

namespace ulto {

class RunningJobs {
public:
  /// The claims in \p CacheDirectory's "running" subdirectory, created if
  /// needed.
  static llvm::Expected<RunningJobs> open(llvm::StringRef CacheDirectory);

  /// One key, held by this process or watched while another holds it.
  class Claim {
  public:
    Claim(Claim &&Other)
        : Path(std::move(Other.Path)), FD(Other.FD), Held(Other.Held) {
      Other.FD = -1;
    }
    Claim &operator=(Claim &&) = delete;
    /// Lets go: removes the file if this process holds the key.
    ~Claim();
    /// Whether this process holds the key and should run the job.
    bool held() const { return Held; }

  private:
    friend class RunningJobs;
    Claim(std::string Path, int FD, bool Held)
        : Path(std::move(Path)), FD(FD), Held(Held) {}
    std::string Path;
    int FD;
    bool Held;
  };

  /// Claims \p Key; the claim is held unless another process (or another
  /// thread's claim) holds it now.
  llvm::Expected<Claim> claim(llvm::StringRef Key) const;

  enum class WaitResult {
    Released,  ///< The holder let go: look in the cache, claim again if not.
    TakenOver, ///< The holder died; \p C is now held by this process.
    TimedOut,
  };

  /// Waits, up to \p Limit, until the process holding \p C's key lets go.
  static WaitResult wait(Claim &C, std::chrono::milliseconds Limit);

  /// Removes the files of killed processes (no one holds their lock).
  void removeAbandoned() const;

  llvm::StringRef directory() const { return Directory; }

private:
  explicit RunningJobs(std::string Directory)
      : Directory(std::move(Directory)) {}

  std::string Directory;
};

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_RUNNINGJOBS_H
