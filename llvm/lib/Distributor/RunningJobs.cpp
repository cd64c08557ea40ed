//===- RunningJobs.cpp - Backend jobs in flight on this machine -----------===//

#include "ulto/Distributor/RunningJobs.h"

#include "ulto/Support/Flock.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace ulto {

static Error cannotOpen(StringRef Path) {
  return createStringError(std::error_code(errno, std::generic_category()),
                           "cannot open '%s': %s", Path.str().c_str(),
                           sys::StrError(errno).c_str());
}

Expected<RunningJobs> RunningJobs::open(StringRef CacheDirectory) {
  SmallString<128> Path(CacheDirectory);
  sys::path::append(Path, "running.lock");
  int FD = openLockFile(Path.c_str());
  if (FD < 0)
    return cannotOpen(Path);
  ::close(FD);
  return RunningJobs(std::string(Path));
}

// Locks byte \p Byte of \p FD exclusively, or unlocks it; without waiting.
static int lockByte(int FD, off_t Byte, short Type) {
  struct flock Lock = {};
  Lock.l_type = Type;
  Lock.l_whence = SEEK_SET;
  Lock.l_start = Byte;
  Lock.l_len = 1;
  int Result;
  do
    Result = ::fcntl(FD, F_OFD_SETLK, &Lock);
  while (Result != 0 && errno == EINTR);
  return Result;
}

Expected<RunningJobs::Claim> RunningJobs::claim(StringRef Key) const {
  // Anywhere below 2^62: far from off_t's end, which l_start + l_len must
  // not pass.
  off_t Byte = off_t(xxh3_64bits(Key) >> 2);
  // A descriptor of its own: the lock belongs to it.
  int FD = openLockFile(Path.c_str());
  if (FD < 0)
    return cannotOpen(Path);
  if (lockByte(FD, Byte, F_WRLCK) == 0)
    return Claim(FD, Byte, /*Held=*/true);
  if (errno == EAGAIN || errno == EACCES)
    return Claim(FD, Byte, /*Held=*/false);
  Error E = createStringError(std::error_code(errno, std::generic_category()),
                              "cannot lock '%s': %s", Path.c_str(),
                              sys::StrError(errno).c_str());
  ::close(FD);
  return std::move(E);
}

RunningJobs::Claim::~Claim() {
  if (FD >= 0)
    ::close(FD); // Releases the lock.
}

RunningJobs::WaitResult RunningJobs::wait(Claim &C,
                                          std::chrono::milliseconds Limit) {
  auto Deadline = std::chrono::steady_clock::now() + Limit;
  // Short first naps for short jobs; at most 20 wake-ups a second after.
  std::chrono::milliseconds Nap(1);
  while (lockByte(C.FD, C.Byte, F_WRLCK) != 0) {
    if (std::chrono::steady_clock::now() >= Deadline)
      return WaitResult::TimedOut;
    std::this_thread::sleep_for(Nap);
    Nap = std::min(Nap * 2, std::chrono::milliseconds(50));
  }
  C.Held = true;
  return WaitResult::Held;
}

} // namespace ulto
