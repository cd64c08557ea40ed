//===- LocalExecutor.h - Backend jobs run on this machine -------*- C++ -*-===//
//
// The executor of the jobs that run here (Executor.h): in a worker of a fork
// server or of the user's worker service, else in a new process of the
// job's compiler, each holding one of the machine's backend slots.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LOCALEXECUTION_LOCALEXECUTOR_H
#define ULTO_LOCALEXECUTION_LOCALEXECUTOR_H

#include "ulto/Distributor/CompilerIdentity.h"
#include "ulto/Distributor/Executor.h"

#include <atomic>
#include <chrono>
#include <optional>

namespace ulto {

/// How long a job whose process could not start, for the \p Attempt th time,
/// waits before it tries again; std::nullopt when it should not. Only
/// \p Errno EAGAIN is worth a wait: a process limit reached for a moment.
std::optional<std::chrono::milliseconds> startRetryDelay(int Errno,
                                                         unsigned Attempt);

class ForkServer;
class SlotPool;

/// Runs each job in a process on this machine, in the linker's directory: a
/// worker of \p Server when there is one (ForkServer.h), else a new process
/// running the job's compiler; while it runs, the job holds one of \p Slots
/// (SlotPool.h) when there is a pool. A process that cannot start for a
/// moment (startRetryDelay) is tried again, then as a new process of the
/// job's compiler. A job that clang's driver says crashed
/// (CrashReport.h) ended by the signal it names. When \p Server is a worker
/// service that has ended, the job runs in a new process.
class LocalExecutor final : public Executor {
public:
  explicit LocalExecutor(ForkServer *Server = nullptr,
                         SlotPool *Slots = nullptr)
      : Server(Server), Slots(Slots) {}
  std::string name() const override { return "local"; }
  ExecutionResult run(const JobList &List, const BackendJob &Job) override;
  /// Asks the jobs' compiler for --version where its jobs run: a worker of
  /// the fork server answers as a clang-22 process does, without starting
  /// one.
  VersionProbe versionProbe() const;
  /// The worker service that ran the jobs, if one did.
  std::string report() const override;

private:
  ForkServer *Server;
  SlotPool *Slots;
  /// Jobs run in new processes after the worker service ended.
  std::atomic<unsigned> RunHere{0};
};

} // namespace ulto

#endif // ULTO_LOCALEXECUTION_LOCALEXECUTOR_H
