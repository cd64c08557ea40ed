//===- RunningJobs.cpp - Backend jobs in flight on this machine -----------===//

#include "ulto/Distributor/RunningJobs.h"

#include "Flock.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace ulto {

Expected<RunningJobs> RunningJobs::open(StringRef CacheDirectory) {
  SmallString<128> Directory(CacheDirectory);
  sys::path::append(Directory, "running");
  if (std::error_code EC = sys::fs::create_directories(Directory))
    return createStringError(EC, "cannot create '%s': %s", Directory.c_str(),
                             EC.message().c_str());
  return RunningJobs(std::string(Directory));
}

// Whether \p FD is still the file at \p Path: a holder removes the file
// before it lets go, and the next claimant creates a new one.
static bool isFileAt(int FD, StringRef Path) {
  struct stat Open, Named;
  return ::fstat(FD, &Open) == 0 && ::stat(Path.str().c_str(), &Named) == 0 &&
         Open.st_dev == Named.st_dev && Open.st_ino == Named.st_ino;
}

Expected<RunningJobs::Claim> RunningJobs::claim(StringRef Key) const {
  SmallString<128> Path(Directory);
  sys::path::append(Path, Key);
  while (true) {
    int FD = openLockFile(Path.c_str());
    if (FD < 0)
      return createStringError(std::error_code(errno, std::generic_category()),
                               "cannot open '%s': %s", Path.c_str(),
                               sys::StrError(errno).c_str());
    if (flockFD(FD, LOCK_EX | LOCK_NB) != 0)
      return Claim(std::string(Path), FD, /*Held=*/false);
    if (isFileAt(FD, Path))
      return Claim(std::string(Path), FD, /*Held=*/true);
    // The holder removed it between our open and our lock: try the new one.
    ::close(FD);
  }
}

RunningJobs::Claim::~Claim() {
  if (FD < 0)
    return;
  if (Held)
    ::unlink(Path.c_str());
  ::close(FD); // Releases the lock.
}

RunningJobs::WaitResult RunningJobs::wait(Claim &C,
                                          std::chrono::milliseconds Limit) {
  auto Deadline = std::chrono::steady_clock::now() + Limit;
  // Short first naps for short jobs; at most 20 wake-ups a second after.
  std::chrono::milliseconds Nap(1);
  while (flockFD(C.FD, LOCK_EX | LOCK_NB) != 0) {
    if (std::chrono::steady_clock::now() >= Deadline)
      return WaitResult::TimedOut;
    std::this_thread::sleep_for(Nap);
    Nap = std::min(Nap * 2, std::chrono::milliseconds(50));
  }
  if (isFileAt(C.FD, C.Path)) {
    C.Held = true;
    return WaitResult::TakenOver;
  }
  flockFD(C.FD, LOCK_UN);
  return WaitResult::Released;
}

void RunningJobs::removeAbandoned() const {
  std::error_code EC;
  for (sys::fs::directory_iterator It(Directory, EC), End; It != End && !EC;
       It.increment(EC)) {
    int FD = ::open(It->path().c_str(), O_RDWR | O_CLOEXEC);
    if (FD < 0)
      continue;
    // A claimant between its open and its lock retries on a new file.
    if (flockFD(FD, LOCK_EX | LOCK_NB) == 0 && isFileAt(FD, It->path()))
      ::unlink(It->path().c_str());
    ::close(FD);
  }
}

} // namespace ulto
