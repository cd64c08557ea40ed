//===- Distributor.cpp - Runs the backend jobs of a distributed link ------===//

#include "ulto/Distributor/Distributor.h"

#include "ulto/Distributor/CacheKey.h"
#include "ulto/Distributor/Cancellation.h"
#include "ulto/Distributor/ObjectCheck.h"
#include "ulto/Distributor/Scheduler.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/TimeProfiler.h"

#include <chrono>
#include <mutex>

using namespace llvm;

namespace ulto {

std::string DistSummary::format(StringRef ExecutorName,
                                StringRef ExecutorReport) const {
  std::string Line;
  raw_string_ostream OS(Line);
  OS << Jobs << (Jobs == 1 ? " job: " : " jobs: ") << CacheHits << " cached, "
     << Executed << " executed, " << Failed << " failed (" << ExecutorName
     << ", " << Parallelism << " at once";
  if (!ExecutorReport.empty())
    OS << "; " << ExecutorReport;
  OS << ")";
  if (DamagedEntries)
    OS << ", " << DamagedEntries << " damaged cache "
       << (DamagedEntries == 1 ? "entry" : "entries") << " dropped";
  OS << "; wall " << llvm::format("%.2f", WallSeconds) << "s";
  if (!SlowestJob.empty())
    OS << "; slowest " << SlowestJob << " "
       << llvm::format("%.2f", SlowestSeconds) << "s";
  return Line;
}

namespace {

// One distributed link's run: the shared state of the jobs.
class Run {
public:
  Run(const JobList &List, Executor &Exec, const DistOptions &Opts,
      StatusSink &Status)
      : List(List), Exec(Exec), Opts(Opts), Status(Status), Cache(Opts.Cache) {}

  DistSummary run();

private:
  void runJob(const BackendJob &Job);
  /// Produces the job's object; false after reporting why it could not.
  bool produce(const BackendJob &Job, bool &CacheHit);
  bool checkInputs(const BackendJob &Job);
  /// Runs the job on the executor and checks its object; false after
  /// reporting why it has none fit to link.
  bool execute(const BackendJob &Job, const Triple &Target, StringRef Key);
  ExecutionResult runExecutor(const BackendJob &Job);
  void reportFallback(const BackendJob &Job, const ExecutionResult &R);
  bool writeOutput(const BackendJob &Job, StringRef Object);
  void fail(const BackendJob &Job, const Twine &What,
            StringRef Output = StringRef(), bool WithCommand = true);
  void warn(const Twine &Message);

  const JobList &List;
  Executor &Exec;
  const DistOptions &Opts;
  StatusSink &Status;
  /// Null when caching is off or the compiler has no identity.
  BackendCache *Cache;
  FileDigests Digests;
  std::string CompilerIdentity;

  std::mutex Mutex; // Guards Summary and Status.
  DistSummary Summary;
};

} // namespace

void Run::warn(const Twine &Message) {
  std::string Text = Message.str();
  std::lock_guard<std::mutex> Lock(Mutex);
  Status.warning(Text);
}

void Run::fail(const BackendJob &Job, const Twine &What, StringRef Output,
               bool WithCommand) {
  std::vector<std::string> Command;
  if (WithCommand)
    Command = List.command(Job);
  std::string Text = What.str();
  std::lock_guard<std::mutex> Lock(Mutex);
  ++Summary.Failed;
  Status.jobFailed(Job.module(), Text, Command, Output);
}

// clang-22 reports a missing import by writing an empty object and exiting
// 0; say what is missing instead.
bool Run::checkInputs(const BackendJob &Job) {
  auto Check = [&](StringRef Path, StringRef Role) {
    if (sys::fs::exists(Path))
      return true;
    fail(Job, "cannot run: its " + Role + " '" + Path + "' does not exist",
         StringRef(), /*WithCommand=*/false);
    return false;
  };
  if (!Check(Job.module(), "module") || !Check(Job.indexShard(), "index shard"))
    return false;
  for (StringRef Import : Job.imports())
    if (!Check(Import, "imported module"))
      return false;
  for (StringRef Input : List.CommonInputs)
    if (!Check(Input, "shared input"))
      return false;
  return true;
}

bool Run::writeOutput(const BackendJob &Job, StringRef Object) {
  // None once interrupted: the interrupt removes the objects (Cancellation.h).
  ObjectWrite Writing;
  if (!Writing)
    return false;
  Error E = writeToOutput(Job.output(), [&](raw_ostream &OS) {
    OS << Object;
    return Error::success();
  });
  if (!E)
    return true;
  fail(Job, "cannot write '" + Job.output() + "': " + toString(std::move(E)),
       StringRef(), /*WithCommand=*/false);
  return false;
}

// The words for a job that ran here instead of on the remote.
void Run::reportFallback(const BackendJob &Job, const ExecutionResult &R) {
  std::string Backend = ("ThinLTO backend for '" + Job.module() + "'").str();
  switch (R.Fallback) {
  case FallbackKind::None:
  case FallbackKind::AfterRemoteLost: // Said once, at the job that lost it.
    return;
  case FallbackKind::JobUnfit:
    return warn(Backend + " ran locally: " + R.FallbackReason);
  case FallbackKind::FailedRemotely:
    return warn(Backend + " failed on the remote (" + R.FallbackReason +
                ") and ran locally:\n" + R.RemoteOutput);
  case FallbackKind::RemoteLost:
    return warn(R.FallbackReason +
                "; running this and the remaining jobs locally");
  }
}

ExecutionResult Run::runExecutor(const BackendJob &Job) {
  ExecutionResult Result;
  {
    TimeTraceScope Scope("execute", Job.module());
    Result = Exec.run(List, Job);
  }
  if (Result.started()) {
    std::lock_guard<std::mutex> Lock(Mutex);
    ++Summary.Executed;
  }
  reportFallback(Job, Result);
  return Result;
}

bool Run::execute(const BackendJob &Job, const Triple &Target, StringRef Key) {
  ExecutionResult Result = runExecutor(Job);
  while (true) {
    if (!Result.succeeded()) {
      sys::fs::remove(Job.output());
      fail(Job, describeExecution(Result), Result.Output);
      return false;
    }

    TimeTraceScope Scope("check", Job.module());
    std::unique_ptr<MemoryBuffer> Object;
    if (Result.Object) {
      Object = MemoryBuffer::getMemBuffer(*Result.Object, Job.output(),
                                          /*RequiresNullTerminator=*/false);
    } else {
      ErrorOr<std::unique_ptr<MemoryBuffer>> File = MemoryBuffer::getFile(
          Job.output(), /*IsText=*/false, /*RequiresNullTerminator=*/false);
      if (!File) {
        fail(Job,
             "exited 0 but wrote no '" + Job.output() +
                 "': " + File.getError().message(),
             Result.Output);
        return false;
      }
      Object = std::move(*File);
    }

    if (Error E = checkBackendObject(*Object, Target)) {
      std::string Why = toString(std::move(E));
      // A remote's bad object is not the end of the job: run it here.
      if (Result.Remote)
        if (std::optional<ExecutionResult> Local =
                Exec.runLocally(Result, List, Job)) {
          Local->Fallback = FallbackKind::JobUnfit;
          Local->FallbackReason = "the remote's object " + Why;
          reportFallback(Job, *Local);
          Result = std::move(*Local);
          continue;
        }
      sys::fs::remove(Job.output());
      fail(Job,
           "exited 0" + std::string(Result.Remote ? " on the remote" : "") +
               " but its output '" + Job.output() + "' " + Why,
           Result.Output);
      return false;
    }
    if (Result.Object && !writeOutput(Job, *Result.Object))
      return false;
    if (!Key.empty())
      if (Error E = Cache->store(Key, Object->getBuffer()))
        warn("cannot store the object of '" + Job.module() +
             "' in the cache: " + toString(std::move(E)));
    return true;
  }
}

bool Run::produce(const BackendJob &Job, bool &CacheHit) {
  CacheHit = false;
  // Whatever happens next, no stale object from an earlier run may remain.
  sys::fs::remove(Job.output());
  if (!checkInputs(Job))
    return false;
  Expected<Triple> Target = readModuleTriple(Job.module());
  if (!Target) {
    fail(Job, "cannot run: " + toString(Target.takeError()), StringRef(),
         /*WithCommand=*/false);
    return false;
  }

  std::string Key;
  if (Cache) {
    TimeTraceScope Scope("cache lookup", Job.module());
    Expected<std::string> K =
        computeBackendKey(List, Job, CompilerIdentity, Digests);
    if (!K) {
      warn("not caching the backend for '" + Job.module() +
           "': " + toString(K.takeError()));
    } else {
      Key = std::move(*K);
      bool Damaged = false;
      std::unique_ptr<MemoryBuffer> Object = Cache->lookup(Key, Damaged);
      if (Damaged) {
        std::lock_guard<std::mutex> Lock(Mutex);
        ++Summary.DamagedEntries;
      }
      if (Object && !checkBackendObject(*Object, *Target)) {
        CacheHit = true;
        return writeOutput(Job, Object->getBuffer());
      }
    }
  }
  return execute(Job, *Target, Key);
}

void Run::runJob(const BackendJob &Job) {
  // LLVM's profiler is per thread: each job is one thread's record.
  if (Opts.TimeTrace)
    timeTraceProfilerInitialize(/*TimeTraceGranularity=*/0, "backend job");
  scope_exit FinishTrace([&] {
    if (Opts.TimeTrace)
      timeTraceProfilerFinishThread();
  });
  auto Start = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Status.jobStarted();
  }
  bool CacheHit = false;
  {
    TimeTraceScope Scope("backend", Job.module());
    produce(Job, CacheHit);
  }
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();

  std::lock_guard<std::mutex> Lock(Mutex);
  Status.jobFinished(CacheHit);
  Summary.CacheHits += CacheHit;
  if (Seconds > Summary.SlowestSeconds) {
    Summary.SlowestSeconds = Seconds;
    Summary.SlowestJob = Job.module().str();
  }
}

DistSummary Run::run() {
  auto Start = std::chrono::steady_clock::now();
  Summary.Jobs = List.Jobs.size();
  Summary.Parallelism =
      hardware_concurrency(Opts.Parallelism).compute_thread_count();

  if (Cache) {
    Expected<std::string> Identity = computeCompilerIdentity(List.compiler());
    if (Identity) {
      CompilerIdentity = std::move(*Identity);
    } else {
      warn("not using the cache: " + toString(Identity.takeError()));
      Cache = nullptr;
    }
  }

  runInParallel(
      scheduleLargestFirst(List.Jobs), Opts.Parallelism,
      [&](size_t I) { runJob(List.Jobs[I]); }, Opts.Jobserver);
  Status.finished();
  Summary.WallSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return Summary;
}

DistSummary runBackends(const JobList &List, Executor &Exec,
                        const DistOptions &Opts, StatusSink &Status) {
  return Run(List, Exec, Opts, Status).run();
}

} // namespace ulto
