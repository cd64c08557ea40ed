//===- Executor.h - Where backend jobs run ----------------------*- C++ -*-===//
//
// An executor runs one backend job's command and reports how it ended, as
// data (ninja's ExitStatus is the model); the distributor (Distributor.h)
// does everything around it: the cache, the schedule, the output checks, and
// the sentences a user reads, composed by describeExecution(). Executors are
// called from several threads.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_EXECUTOR_H
#define ULTO_DISTRIBUTOR_EXECUTOR_H

#include "ulto/Distributor/JobList.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ulto {

/// How a job's command ended.
enum class ExitKind {
  Exited,     ///< It exited with Code; 0 is success.
  Signalled,  ///< A signal killed it; Detail names the signal.
  NotStarted, ///< It never ran; Detail says why.
  TimedOut,   ///< It was stopped at its time limit; Detail says which.
  /// The link's interrupt stopped it, or kept it from starting: no failure
  /// of the job's, and the interrupt says so once (Cancellation.h).
  Interrupted,
};

/// Why a job ran on this machine though its executor is a remote one.
enum class FallbackKind {
  None,            ///< It ran where its executor runs jobs.
  JobUnfit,        ///< The remote could not run it; FallbackReason says why.
  FailedRemotely,  ///< It failed on the remote: FallbackReason, RemoteOutput.
  RemoteLost,      ///< The remote was lost at this job (FallbackReason); the
                   ///< remaining jobs run here too.
  AfterRemoteLost, ///< The remote was lost earlier, at another job.
};

struct ExecutionResult {
  ExitKind Kind = ExitKind::Exited;
  int Code = 0;
  std::string Detail;
  /// It ran, or failed to start, on a remote.
  bool Remote = false;
  /// The remote answered from its action cache.
  bool RemoteCacheHit = false;
  /// What the command wrote to stdout and stderr.
  std::string Output;
  /// Files the compiler wrote for a bug report about its crash (clang's
  /// reproducers), named here and not in Output.
  std::vector<std::string> Reproducers;
  /// The object, for executors that return it instead of writing the job's
  /// output file (mapped from the file it was downloaded to); unchecked (the
  /// distributor checks every object).
  std::unique_ptr<llvm::MemoryBuffer> Object;

  FallbackKind Fallback = FallbackKind::None;
  std::string FallbackReason;
  /// The remote's stdout and stderr, for FailedRemotely.
  std::string RemoteOutput;

  static ExecutionResult exited(int Code) {
    ExecutionResult R;
    R.Code = Code;
    return R;
  }
  static ExecutionResult ended(ExitKind Kind, std::string Detail) {
    ExecutionResult R;
    R.Kind = Kind;
    R.Detail = std::move(Detail);
    return R;
  }
  bool started() const { return Kind != ExitKind::NotStarted; }
  bool succeeded() const { return Kind == ExitKind::Exited && Code == 0; }
};

/// How \p R ended, as the end of "ThinLTO backend for 'm.o' ...": "exited
/// with status 1", "crashed: Segmentation fault", "could not be started:
/// compiler 'cc' not found", "exited with status 2 on the remote".
std::string describeExecution(const ExecutionResult &R);

class Executor {
public:
  virtual ~Executor();
  virtual std::string name() const = 0;
  virtual ExecutionResult run(const JobList &List, const BackendJob &Job) = 0;
  /// After the jobs: what the executor did beyond running them, for the
  /// summary line ("" when nothing).
  virtual std::string report() const { return std::string(); }
};

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_EXECUTOR_H
