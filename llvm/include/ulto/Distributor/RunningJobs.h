//===- RunningJobs.h - Backend jobs in flight on this machine ---*- C++ -*-===//
//
// Links that run at once over one library need the same backend jobs. The
// cache shares the jobs that have finished; this shares the running ones.
// The process that starts a job holds an exclusive lock on one byte of a
// file in the cache, the byte the key's hash picks, until the job's
// object is in the cache; another process that needs the same key finds the
// byte locked, waits for it, and then looks in the cache. The kernel
// releases the lock of a process that dies, so a waiter is never stranded:
// it gets the lock, finds no object, and runs the job itself.
//
// The locks are open file description locks (F_OFD_SETLK): they belong to
// an open file, as flock's do, so two claims in one process exclude each
// other, and none is lost when the process closes another descriptor of the
// file. One file made once, not a file made and removed a job: on ext4
// without a journal every new inode walks past the inodes freed in the last
// minute, and a file a job cost cjpeg 25 ms a link (measured at 27505a0).
//
// Locks only save work: objects come from the cache, whose entries are
// checked, so a lost race (or two keys on one byte, one in 2^62) runs a job
// twice or waits once for nothing, and never links a wrong object.
//
// Anyone who can open the file can lock its bytes (a read lock will do) and
// so stall every job that waits there. So the file is one only those whose
// objects a link takes can open: the user's own "running-<uid>.lock", mode
// 0600; with a trusted group, the team's "running.lock", mode 0660, of that
// group, made by a member. One that others can open is replaced if it is
// the user's, and otherwise not used.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_RUNNINGJOBS_H
#define ULTO_DISTRIBUTOR_RUNNINGJOBS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <optional>
#include <string>
#include <sys/types.h>

namespace ulto {

class RunningJobs {
public:
  /// The claims of the links that take objects from \p CacheDirectory: the
  /// user's, and with \p TrustedGroup that group's members'. Where the
  /// group's file cannot be used, \p Warning says why, and the claims are
  /// the user's alone; where another user's is in the way of the user's,
  /// std::nullopt and \p Warning. An error: no file can be made there.
  static llvm::Expected<std::optional<RunningJobs>>
  open(llvm::StringRef CacheDirectory, std::optional<gid_t> TrustedGroup,
       std::string &Warning);

  /// One key, held by this process or watched while another holds it.
  class Claim {
  public:
    Claim(Claim &&Other) : FD(Other.FD), Byte(Other.Byte), Held(Other.Held) {
      Other.FD = -1;
    }
    Claim &operator=(Claim &&) = delete;
    /// Lets go, if this process holds the key.
    ~Claim();
    /// Whether this process holds the key and should run the job.
    bool held() const { return Held; }

  private:
    friend class RunningJobs;
    Claim(int FD, off_t Byte, bool Held) : FD(FD), Byte(Byte), Held(Held) {}
    int FD;
    off_t Byte;
    bool Held;
  };

  /// Claims \p Key; the claim is held unless another process (or another
  /// thread's claim) holds it now.
  llvm::Expected<Claim> claim(llvm::StringRef Key) const;

  enum class WaitResult {
    /// The holder let go, or died: \p C is now held by this process, which
    /// looks in the cache and runs the job if the object is not there.
    Held,
    TimedOut,
  };

  /// Waits, up to \p Limit, until the process holding \p C's key lets go.
  static WaitResult wait(Claim &C, std::chrono::milliseconds Limit);

  /// The file whose bytes the claims lock.
  llvm::StringRef path() const { return Path; }

private:
  RunningJobs(std::string Path, dev_t Device, ino_t Inode)
      : Path(std::move(Path)), Device(Device), Inode(Inode) {}

  std::string Path;
  /// The file prepared: a claim that opens another (renamed over it in a
  /// directory others can write) fails.
  dev_t Device;
  ino_t Inode;
};

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_RUNNINGJOBS_H
