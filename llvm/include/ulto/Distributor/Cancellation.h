//===- Cancellation.h - An interrupted link leaves nothing ------*- C++ -*-===//
//
// A distributed link is a tree of processes: the linker, `ulto dist` (its
// child), and the jobs (children of `ulto dist`, or of its fork server). A
// link can end early: Ctrl-C, a build system's timeout, `kill -9` of the
// linker. Then every process of the link must end, and every file written
// for it must go. Neither happens by itself: a killed linker's child runs on,
// and nothing removes the files a SIGKILLed linker wrote next to its output
// (the job list, an index shard per job, the archive members it serialised).
//
// - Processes. `ulto dist` asks the kernel for a signal when the linker dies
//   (PR_SET_PDEATHSIG), the fork server when `ulto dist` dies, and each of
//   its children when the server dies: no process of the link outlives its
//   parent, whatever way the parent ended. The kernel signals once for each
//   thread of the parent as they end; so the signal is a real-time one whose
//   handler waits for getppid() to change, then raises SIGTERM once, or, in
//   `ulto dist`, calls the interrupt function. A burst of SIGTERMs would end
//   the process inside LLVM's handler, which restores the default action
//   before it does anything else.
// - SIGINT, SIGTERM, SIGHUP. LLVM's handlers (Signals.h) remove the files
//   registered with sys::RemoveFileOnSignal (the jobs' output captures),
//   then call the interrupt function installed here. It refuses new jobs and
//   new object writes; gives the running jobs a moment (a Ctrl-C reaches them
//   too), then SIGTERM (clang removes its temporary output on it; SIGKILL,
//   after a grace period, would leave it); waits for them and for object
//   writes in progress; removes every job's object; says so once on stderr;
//   and exits with status 1.
// - The linker's files. A linker that is alive removes its own, on its
//   error path or from its own LLVM signal handlers: `ulto dist` never
//   touches them. When the linker is gone (the parent is no longer the one
//   `ulto dist` started with), nobody else will: the interrupt function
//   removes them too, as the job list names them, and only under lld-22's
//   exact names, which carry the linker's process ID (linkerTemporaries()).
//   A user's own objects never have such names. Nor under --save-temps,
//   which keeps them on purpose. ld.ulto's private directory of the link
//   (PrivateOutput.h) is removed by both, each after its own files: the one
//   that ends last finds it empty, and a linker that runs on keeps it.
// - Jobs in a worker service, which is no process of the link: the
//   interrupt function hangs up on the service (WorkerServiceConnection), which
//   stops them, and waits for it to confirm; a link that dies hangs up by
//   itself.
//
// Why the objects are not simply registered with sys::RemoveFileOnSignal:
// LLVM removes its files before the interrupt function runs, while jobs and
// the distributor's threads may still be writing them; and the fork server,
// forked after the registration, would inherit the list, so a crashing child
// would remove every job's object. The objects are removed after the jobs
// have stopped instead.
//
// A signal handler can only reach static state, allocated beforehand and
// read without locks: the registry of running processes, the count of object
// writes in progress and the lists of files are this file's statics, built
// before the jobs start. They are `ulto dist`'s only process-wide state, as
// signals and parent death are process-wide.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_CANCELLATION_H
#define ULTO_DISTRIBUTOR_CANCELLATION_H

#include "ulto/Distributor/JobList.h"

#include "llvm/ADT/StringRef.h"

#include <signal.h>
#include <string>
#include <sys/types.h>
#include <vector>

namespace ulto {

class PrivateObjects;

/// The files that the linker, process \p LinkerPid, wrote for the jobs of
/// \p List and removes itself unless it is killed: the job list at
/// \p JobListPath, each job's index shard and object, and the archive members
/// it serialised (jobs' modules and imports), each once. Only lld-22's names
/// count, in the directory of the linker's output and with the linker's
/// process ID: `<output stem>.<pid>.dist-file.json`,
/// `<module stem>.<task>.<pid>.native.o` and the same plus `.thinlto.bc`,
/// `<member>.<sequence>.<PID in hex>.o`. Nothing when the job list itself is
/// not so named (a copy, another process's list).
std::vector<std::string> linkerTemporaries(const JobList &List,
                                           llvm::StringRef JobListPath,
                                           pid_t LinkerPid);

/// Has the process get SIGTERM, once, when its parent, process \p Parent, has
/// died; false when it has died already.
bool terminateWhenParentDies(pid_t Parent);

/// Ties `ulto dist` to its link, for the lifetime of distMain.
class Cancellation {
public:
  /// Call first: records the parent (the linker), asks for SIGTERM when it
  /// dies, and holds SIGINT, SIGTERM and SIGHUP until watch().
  explicit Cancellation(llvm::StringRef ToolName);
  /// From now on an interrupt, or the linker's death, stops the jobs and
  /// removes the files written for \p List (and in \p Private, if given); then
  /// the held signals arrive. With \p ProgressLine, stderr shows the live
  /// progress line, which the interrupt's message erases first. Call before the
  /// fork server and any thread start.
  void watch(llvm::StringRef JobListPath, const JobList &List,
             const PrivateObjects *Private, bool ProgressLine);
  /// Without watch(), lets held signals through. While an interrupt is being
  /// handled on another thread, waits for it to end the process.
  ~Cancellation();

  Cancellation(const Cancellation &) = delete;
  Cancellation &operator=(const Cancellation &) = delete;

private:
  std::string Tool;
  bool Watching = false;
  sigset_t HeldSignals;
};

/// One job's process (or the fork server, or the compiler's --version probe)
/// that an interrupt must stop: taken before the process starts, given its ID
/// once it has, released after it has been waited for.
class JobProcess {
public:
  JobProcess();
  JobProcess(JobProcess &&Other);
  JobProcess &operator=(JobProcess &&) = delete;
  ~JobProcess();

  /// False once `ulto dist` is being interrupted: start nothing.
  bool mayStart() const { return MayStart; }
  /// \p Pid has started; with \p OwnGroup it leads a process group of its
  /// own, which a Ctrl-C does not reach: an interrupt then stops the whole
  /// group, and kills what remains of it once the leader has ended. The
  /// caller reaps the leader only after it has killed the group itself.
  void started(pid_t Pid, bool OwnGroup = false);

private:
  int Slot = -1;
  bool MayStart = false;
};

/// Whether `ulto dist` is being interrupted.
bool linkInterrupted();

/// Whether the job that \p Signal ended was stopped by the link's interrupt:
/// SIGINT, SIGTERM or SIGHUP may have been sent to the whole link (a
/// terminal's Ctrl-C reaches every process of its group), and this process's
/// interrupt then begins, but maybe after the job's end is known. So this
/// waits, a second at most, for the interrupt. False at once for other
/// signals.
bool endedByLinkInterrupt(int Signal);

/// A connection to a worker service (WorkerService.h) running this link's
/// jobs, for the lifetime of the object: an interrupt shuts down its writing
/// side, on which the service stops the link's jobs, and waits until the
/// service has closed its end, that is until they have ended. One at a time.
class WorkerServiceConnection {
public:
  explicit WorkerServiceConnection(int Socket);
  ~WorkerServiceConnection();
  WorkerServiceConnection(const WorkerServiceConnection &) = delete;
  WorkerServiceConnection &operator=(const WorkerServiceConnection &) = delete;
};

/// Held while a job's object, its completed index shard or its cache entry is
/// written: an interrupt waits for the writes in progress, and no new one
/// starts. So these writes' temporary files need no registration for removal
/// on a signal (AtomicFile.h's OnSignal::CallerWaits).
class WriteGuard {
public:
  WriteGuard();
  ~WriteGuard();
  WriteGuard(const WriteGuard &) = delete;
  WriteGuard &operator=(const WriteGuard &) = delete;

  /// False once `ulto dist` is being interrupted: write nothing.
  explicit operator bool() const { return Allowed; }

private:
  bool Allowed;
};

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_CANCELLATION_H
