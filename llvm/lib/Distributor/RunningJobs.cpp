//===- RunningJobs.cpp - Backend jobs in flight on this machine -----------===//

#include "ulto/Distributor/RunningJobs.h"

#include "ulto/Support/TrustedFile.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace ulto {

static Error cannotOpen(StringRef Path) {
  return createStringError(std::error_code(errno, std::generic_category()),
                           "cannot open '%s': %s", Path.str().c_str(),
                           sys::StrError(errno).c_str());
}

// Why the lock file with \p Status is not one whose locks only the user (and
// \p Group's members) can take: \p Mode is all it may allow.
static std::optional<std::string> unfitLockFile(const struct stat &Status,
                                                mode_t Mode,
                                                std::optional<gid_t> Group) {
  if (!S_ISREG(Status.st_mode))
    return std::string("not a regular file");
  if (Status.st_uid != ::geteuid() && !(Group && Status.st_gid == *Group &&
                                        isGroupMember(Status.st_uid, *Group)))
    return ("it belongs to user " + Twine(Status.st_uid)).str();
  if (Group && Status.st_gid != *Group)
    return ("it is of group " + Twine(Status.st_gid)).str();
  if (Status.st_mode & 07777 & ~Mode)
    return formatv("others can open it (mode {0:o})", Status.st_mode & 07777)
        .str();
  return std::nullopt;
}

// Makes \p Path a lock file fit for the claims (unfitLockFile); one of the
// user's that is not fit is replaced: whoever opened it keeps the old file.
// std::nullopt, and \p Why, when another's is in the way.
static Expected<std::optional<struct stat>>
prepareLockFile(StringRef Path, mode_t Mode, std::optional<gid_t> Group,
                std::string &Why) {
  std::string P = Path.str();
  for (int Attempt = 0; Attempt < 2; ++Attempt) {
    int FD = ::open(P.c_str(),
                    O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, Mode);
    bool Made = FD >= 0;
    if (!Made && errno == EEXIST)
      FD = ::open(P.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (FD < 0 && errno == ELOOP) {
      Why = "'" + P + "' is a symbolic link";
      return std::nullopt;
    }
    if (FD < 0)
      return cannotOpen(Path);
    scope_exit Close([&] { ::close(FD); });
    // The umask may have taken bits the team needs.
    if (Made && (::fchmod(FD, Mode) != 0 ||
                 (Group && ::fchown(FD, uid_t(-1), *Group) != 0)))
      return createStringError(std::error_code(errno, std::generic_category()),
                               "cannot give '%s' to its users: %s", P.c_str(),
                               sys::StrError(errno).c_str());
    struct stat Status;
    if (::fstat(FD, &Status) != 0)
      return cannotOpen(Path);
    std::optional<std::string> Unfit = unfitLockFile(Status, Mode, Group);
    if (!Unfit)
      return Status;
    Why = "'" + P + "' is not used: " + *Unfit;
    if (Status.st_uid != ::geteuid() || ::unlink(P.c_str()) != 0)
      return std::nullopt;
  }
  return std::nullopt;
}

Expected<std::optional<RunningJobs>>
RunningJobs::open(StringRef CacheDirectory, std::optional<gid_t> TrustedGroup,
                  std::string &Warning) {
  std::string Why;
  if (TrustedGroup) {
    SmallString<128> Path(CacheDirectory);
    sys::path::append(Path, "running.lock");
    Expected<std::optional<struct stat>> Status =
        prepareLockFile(Path, 0660, TrustedGroup, Why);
    if (Status && *Status)
      return RunningJobs(std::string(Path), (*Status)->st_dev,
                         (*Status)->st_ino);
    Warning = (Status ? Why : toString(Status.takeError())) +
              "; this link shares running jobs with the user's own links only";
  }
  SmallString<128> Path(CacheDirectory);
  sys::path::append(Path, "running-" + Twine(::geteuid()) + ".lock");
  Expected<std::optional<struct stat>> Status =
      prepareLockFile(Path, 0600, std::nullopt, Why);
  if (!Status)
    return Status.takeError();
  if (!*Status) {
    Warning = Why + "; this link shares no running jobs with other links";
    return std::nullopt;
  }
  return RunningJobs(std::string(Path), (*Status)->st_dev, (*Status)->st_ino);
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
  int FD = ::open(Path.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (FD < 0)
    return cannotOpen(Path);
  struct stat Status;
  if (::fstat(FD, &Status) != 0 || Status.st_dev != Device ||
      Status.st_ino != Inode) {
    ::close(FD);
    return createStringError("'%s' was replaced", Path.c_str());
  }
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
