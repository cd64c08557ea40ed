//===- Flock.h - flock for the locks that processes share -------*- C++ -*-===//
//
// The slot pool coordinates processes with flock, and the running jobs with
// open file description locks on bytes of one file: locks that belong to an
// open file (not to the process, as POSIX record locks and so LLVM's
// sys::fs::tryLockFile do) and that the kernel releases when the process
// dies.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_SUPPORT_FLOCK_H
#define ULTO_SUPPORT_FLOCK_H

#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>

namespace ulto {

/// Opens (creating) a lock file that no child process inherits, and not
/// through a symbolic link (in a shared cache, another user's choice); -1
/// and errno on failure. Created as the umask allows, so that the other
/// users of a shared cache can lock it too.
inline int openLockFile(const char *Path) {
  int FD;
  do
    FD = ::open(Path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
                0666);
  while (FD < 0 && errno == EINTR);
  return FD;
}

/// flock, retried when a signal interrupts a blocking wait.
inline int flockFD(int FD, int Operation) {
  int Result;
  do
    Result = ::flock(FD, Operation);
  while (Result != 0 && errno == EINTR);
  return Result;
}

} // namespace ulto

#endif // ULTO_SUPPORT_FLOCK_H
