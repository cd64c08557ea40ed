//===- Executor.h - Where backend jobs run ----------------------*- C++ -*-===//
//
// An executor runs one backend job's command and reports how it ended; the
// distributor (Distributor.h) does everything around it: the cache, the
// schedule, the output checks. Executors are called from several threads.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_EXECUTOR_H
#define ULTO_DISTRIBUTOR_EXECUTOR_H

#include "ulto/Distributor/JobList.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace ulto {

struct ExecutionResult {
  /// False when the job never ran (no compiler, no process).
  bool Started = true;
  /// Why the job failed, as one phrase ("exited with status 1", "crashed:
  /// Segmentation fault"); empty when it exited 0.
  std::string Failure;
  /// What the command wrote to stdout and stderr.
  std::string Output;
  /// Something the user should know though the job succeeded, such as that
  /// it ran locally after the remote failed.
  std::string Warning;
};

class Executor {
public:
  virtual ~Executor();
  virtual std::string name() const = 0;
  virtual ExecutionResult run(const JobList &List, const BackendJob &Job) = 0;
  /// After the jobs: what the executor did beyond running them, for the
  /// summary line ("" when nothing).
  virtual std::string report() const { return std::string(); }
};

class ForkServer;

/// Runs each job as a process on this machine, in the linker's directory:
/// a child of \p Server when there is one (ForkServer.h), else a new process
/// running the job's compiler.
class LocalExecutor final : public Executor {
public:
  explicit LocalExecutor(ForkServer *Server = nullptr) : Server(Server) {}
  std::string name() const override { return "local"; }
  ExecutionResult run(const JobList &List, const BackendJob &Job) override;

private:
  ForkServer *Server;
};

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_EXECUTOR_H
