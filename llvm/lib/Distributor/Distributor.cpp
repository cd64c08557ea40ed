//===- Distributor.cpp - Runs the backend jobs of a distributed link ------===//

#include "ulto/Distributor/Distributor.h"

#include "ulto/Distributor/CacheKey.h"
#include "ulto/Distributor/ObjectCheck.h"
#include "ulto/Distributor/Progress.h"
#include "ulto/Distributor/Scheduler.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/WithColor.h"

#include <chrono>
#include <mutex>

using namespace llvm;

namespace ulto {

std::string DistSummary::format(StringRef ExecutorName,
                                StringRef ExecutorReport) const {
  std::string Line;
  raw_string_ostream OS(Line);
  OS << "ulto dist: " << Jobs << (Jobs == 1 ? " job: " : " jobs: ") << CacheHits
     << " cached, " << Executed << " executed, " << Failed << " failed ("
     << ExecutorName << ", " << Parallelism << " at once";
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
      raw_ostream &ErrS)
      : List(List), Exec(Exec), Opts(Opts), ErrS(ErrS), Cache(Opts.Cache),
        Progress(ErrS, Opts.Progress, List.Jobs.size()) {}

  DistSummary run();

private:
  void runJob(const BackendJob &Job);
  /// Produces the job's object; false after reporting why it could not.
  bool produce(const BackendJob &Job, bool &CacheHit);
  bool checkInputs(const BackendJob &Job);
  bool writeOutput(const BackendJob &Job, StringRef Object);
  void fail(const BackendJob &Job, const Twine &What,
            StringRef Output = StringRef(), bool WithCommand = true);
  void warn(const Twine &Message);

  const JobList &List;
  Executor &Exec;
  const DistOptions &Opts;
  raw_ostream &ErrS;
  /// Null when caching is off or the compiler has no identity.
  BackendCache *Cache;
  ProgressLine Progress;
  FileDigests Digests;
  std::string CompilerIdentity;

  std::mutex Mutex; // Guards Summary, Progress and ErrS.
  DistSummary Summary;
};

} // namespace

// Lines after the first are indented under it.
void Run::warn(const Twine &Message) {
  std::string Text = Message.str();
  SmallVector<StringRef, 8> Lines;
  StringRef(Text).rtrim().split(Lines, '\n');
  std::lock_guard<std::mutex> Lock(Mutex);
  Progress.clear();
  WithColor::warning(ErrS, "ulto dist") << Lines.front() << "\n";
  for (StringRef Line : ArrayRef(Lines).drop_front())
    ErrS << "    " << Line << "\n";
}

void Run::fail(const BackendJob &Job, const Twine &What, StringRef Output,
               bool WithCommand) {
  std::string Command;
  raw_string_ostream CS(Command);
  for (const std::string &Arg : List.command(Job)) {
    CS << ' ';
    sys::printArg(CS, Arg, /*Quote=*/false);
  }
  std::lock_guard<std::mutex> Lock(Mutex);
  ++Summary.Failed;
  Progress.clear();
  WithColor::error(ErrS, "ulto dist")
      << "ThinLTO backend for '" << Job.module() << "' " << What << "\n";
  if (WithCommand)
    ErrS << "  command:" << Command << "\n";
  if (!Output.empty()) {
    ErrS << "  output:\n";
    SmallVector<StringRef, 16> Lines;
    Output.rtrim().split(Lines, '\n');
    for (StringRef Line : Lines)
      ErrS << "    " << Line << "\n";
  }
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

  ExecutionResult Result;
  {
    TimeTraceScope Scope("execute", Job.module());
    Result = Exec.run(List, Job);
  }
  if (Result.Started) {
    std::lock_guard<std::mutex> Lock(Mutex);
    ++Summary.Executed;
  }
  if (!Result.Warning.empty())
    warn(Result.Warning);
  if (!Result.Failure.empty()) {
    sys::fs::remove(Job.output());
    fail(Job, Result.Failure, Result.Output);
    return false;
  }

  TimeTraceScope Scope("check", Job.module());
  ErrorOr<std::unique_ptr<MemoryBuffer>> Object = MemoryBuffer::getFile(
      Job.output(), /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Object) {
    fail(Job,
         "exited 0 but wrote no '" + Job.output() +
             "': " + Object.getError().message(),
         Result.Output);
    return false;
  }
  if (Error E = checkBackendObject(**Object, *Target)) {
    sys::fs::remove(Job.output());
    fail(Job,
         "exited 0 but its output '" + Job.output() + "' " +
             toString(std::move(E)),
         Result.Output);
    return false;
  }
  if (!Key.empty())
    if (Error E = Cache->store(Key, (*Object)->getBuffer()))
      warn("cannot store the object of '" + Job.module() +
           "' in the cache: " + toString(std::move(E)));
  return true;
}

void Run::runJob(const BackendJob &Job) {
  // LLVM's profiler is per thread: each job is one thread's record.
  if (Opts.TimeTrace)
    timeTraceProfilerInitialize(/*TimeTraceGranularity=*/0, "ulto dist");
  scope_exit FinishTrace([&] {
    if (Opts.TimeTrace)
      timeTraceProfilerFinishThread();
  });
  auto Start = std::chrono::steady_clock::now();
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Progress.started();
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
  Progress.finished(CacheHit);
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
  Progress.clear();
  Summary.WallSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return Summary;
}

DistSummary runBackends(const JobList &List, Executor &Exec,
                        const DistOptions &Opts, raw_ostream &ErrS) {
  return Run(List, Exec, Opts, ErrS).run();
}

} // namespace ulto
