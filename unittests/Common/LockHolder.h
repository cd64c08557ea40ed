//===- LockHolder.h - Another process holding a flock -----------*- C++ -*-===//
//
// The slot pool and the running jobs must survive a holder that dies: a
// forked child takes an exclusive flock on a file and keeps it until it is
// killed with SIGKILL, as an OOM kill or `kill -9` would end a link.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_UNITTESTS_COMMON_LOCKHOLDER_H
#define ULTO_UNITTESTS_COMMON_LOCKHOLDER_H

#include <fcntl.h>
#include <signal.h>
#include <string>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ulto::test {

class LockHolder {
public:
  /// Forks a child that creates \p Path if needed and locks it; returns once
  /// the lock is held. held() is false if that failed.
  explicit LockHolder(const std::string &Path) {
    int Ready[2];
    if (::pipe(Ready) != 0)
      return;
    Child = ::fork();
    if (Child == 0) {
      // Only system calls in the child of a threaded process.
      int FD = ::open(Path.c_str(), O_RDWR | O_CREAT, 0600);
      if (FD < 0 || ::flock(FD, LOCK_EX) != 0)
        ::_exit(1);
      (void)!::write(Ready[1], "x", 1);
      ::pause();
      ::_exit(0);
    }
    char Byte;
    Held = Child > 0 && ::read(Ready[0], &Byte, 1) == 1;
    ::close(Ready[0]);
    ::close(Ready[1]);
  }
  ~LockHolder() { kill(); }

  bool held() const { return Held; }

  /// SIGKILL, and the kernel releases the lock.
  void kill() {
    if (Child <= 0)
      return;
    ::kill(Child, SIGKILL);
    ::waitpid(Child, nullptr, 0);
    Child = -1;
  }

private:
  pid_t Child = -1;
  bool Held = false;
};

} // namespace ulto::test

#endif // ULTO_UNITTESTS_COMMON_LOCKHOLDER_H
