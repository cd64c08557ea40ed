//===- Distributor.cpp - Runs the backend jobs of a distributed link ------===//

#include "ulto/Distributor/Distributor.h"

#include "ulto/Distributor/CacheKey.h"
#include "ulto/Distributor/Cancellation.h"
#include "ulto/Distributor/CompilerIdentity.h"
#include "ulto/Distributor/ObjectCheck.h"
#include "ulto/Distributor/PrivateObjects.h"
#include "ulto/Distributor/Scheduler.h"
#include "ulto/Support/AtomicFile.h"
#include "ulto/Support/DTLTONames.h"
#include "ulto/Support/MakeJobserver.h"
#include "ulto/Support/Semaphore.h"
#include "ulto/Support/TrustedFile.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/TimeProfiler.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <future>
#include <mutex>

using namespace llvm;

namespace ulto {

std::string DistSummary::format(StringRef ExecutorName,
                                StringRef ExecutorReport) const {
  std::string Line;
  raw_string_ostream OS(Line);
  OS << Jobs << (Jobs == 1 ? " job: " : " jobs: ") << CacheHits << " cached, ";
  if (RemoteHits)
    OS << RemoteHits << " from the remote cache, ";
  if (FromOtherLinks)
    OS << FromOtherLinks << " waited on another link, ";
  OS << Executed << " executed, " << Failed << " failed (" << ExecutorName
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

// The backend jobs of one distributed link, and their shared state.
class LinkBackends {
public:
  LinkBackends(const JobList &List, Executor &Exec, const DistOptions &Opts,
               StatusSink &Status)
      : List(List), Exec(Exec), Opts(Opts), Status(Status), Cache(Opts.Cache),
        States(List.Jobs.size()), UserGroup(userPrivateGroup()),
        CacheUnwritable(Opts.CacheReadOnly), Running(Opts.Running) {
    if (Cache)
      Records.emplace(Cache->directory().str());
  }

  DistSummary run();

  /// Where a job's object came from.
  enum class Source {
    Cache,
    RemoteCache,
    OtherLink,
    Executor,
    None /* failed */
  };
  enum class Lookup { Miss, Hit, Failed };
  /// A job is visited once, or, when another link ran it then, a second
  /// time, prepared and looked up already (Scheduler.h).
  enum class Visit { First, AfterDeferral };

private:
  /// Runs job \p I; false if it was deferred (only when \p MayDefer).
  bool runJob(size_t I, bool MayDefer);
  /// Produces the job's object, Source::None after reporting why it could
  /// not; std::nullopt when it is deferred while another link runs it.
  std::optional<Source> produce(size_t I, Visit V);
  /// produce() for a job with a cache key, shared with concurrent links.
  std::optional<Source> produceShared(size_t I, Visit V);
  /// Writes the job's object from the local cache, else from the remote
  /// one, when one has it; where it came from.
  std::optional<Source> lookUp(size_t I);
  /// Writes the job's object from the cache when the cache has it.
  Lookup lookup(size_t I);
  /// Writes the job's object from the remote cache when it has one fit to
  /// link, and keeps it in the local cache.
  Lookup lookupRemote(size_t I);
  /// Stores an object; a cache that cannot be written (full, read-only) is
  /// one warning, and the link stores no more.
  void store(StringRef Key, StringRef Object);
  Source executeJob(size_t I);
  /// Says why job \p I runs, under --explain.
  void explain(size_t I);
  /// Keeps what job \p I's key was made of, for a later link to explain.
  void record(size_t I);
  bool checkInputs(const BackendJob &Job);
  /// Runs the job on the executor, checks its object and stores it; false
  /// after reporting why it has none fit to link.
  bool execute(size_t I);
  bool prepare(size_t I);
  std::unique_ptr<MemoryBuffer> checkedObject(size_t I,
                                              const ExecutionResult &Result);
  void reportFailure(size_t I, const ExecutionResult &Result);
  /// Whether job \p I's object is a file this run wrote (not one that was
  /// there before, which is never removed).
  bool wroteOutput(size_t I);
  void removeOwnOutput(size_t I);
  /// Where job \p I writes its object (PrivateObjects.h).
  StringRef objectPath(size_t I) const {
    return Opts.Private ? Opts.Private->objectPath(I) : List.Jobs[I].output();
  }
  void completeShard(size_t I);
  /// Writes the job's completed shard for the executor; without it the job
  /// runs on lld's shard, and its object is not this key's to store.
  void writeCompletedShard(size_t I);
  ExecutionResult runExecutor(size_t I);
  void reportFallback(const BackendJob &Job, const ExecutionResult &R);
  bool writeOutput(const BackendJob &Job, StringRef Object);
  /// Moves the object job \p I wrote in the private directory into place.
  bool publish(size_t I, StringRef Object);
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
  std::optional<ShardCompletion> Shards;
  /// What the link knows of one job, written by the thread that runs it.
  struct JobState {
    std::string Key; ///< Empty: not cached.
    /// What the key is made of, for --explain and the records of jobs that
    /// run (ExplainRun.h); computed with the key.
    KeyComponents Components;
    /// The shard completed in memory (ShardCompletion.h), written only for
    /// a job that runs; empty: lld's shard is complete.
    std::string CompletedShard;
    Triple Target;
    /// The object's file before the job ran (wroteOutput()).
    std::optional<sys::fs::file_status> Before;
  };
  std::vector<JobState> States;
  std::optional<gid_t> UserGroup;

  /// With a cache: where jobs that ran leave what their keys were made of.
  std::optional<ExplainRecords> Records;
  std::atomic<bool> CacheUnwritable{false};
  std::atomic<bool> RecordsUnwritable{false};
  /// Null once claiming proved impossible; then jobs run unshared.
  std::atomic<const RunningJobs *> Running;
  /// With a remote cache: the jobs that run at once, fewer than those under
  /// way, so that the lookups' round trips overlap the backends.
  std::optional<Semaphore> Executing;

  std::mutex Mutex; // Guards Summary, Reproducers and Status.
  DistSummary Summary;
  /// The failed jobs' reproducers, said once at the end; their jobs.
  std::vector<std::string> Reproducers;
  unsigned JobsWithReproducers = 0;
};

} // namespace

void LinkBackends::warn(const Twine &Message) {
  std::string Text = Message.str();
  std::lock_guard<std::mutex> Lock(Mutex);
  Status.warning(Text);
}

void LinkBackends::fail(const BackendJob &Job, const Twine &What,
                        StringRef Output, bool WithCommand) {
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
bool LinkBackends::checkInputs(const BackendJob &Job) {
  auto Check = [&](StringRef Path, StringRef Role) {
    if (sys::fs::exists(Path))
      return true;
    fail(Job, "cannot run: its " + Role + " '" + Path + "' does not exist",
         StringRef(), /*WithCommand=*/false);
    return false;
  };
  // What lld wrote for the link, next to its output, must be the user's:
  // another user's shard or archive member would put her code in the
  // program, and in the user's cache.
  auto Own = [&](StringRef Path, StringRef Role) {
    std::optional<std::string> Why = untrustedLinkerFile(Path, UserGroup);
    if (!Why)
      return true;
    fail(Job,
         "cannot run: its " + Role + " '" + Path + "' is not taken: " + *Why,
         StringRef(), /*WithCommand=*/false);
    return false;
  };
  auto OwnIfMember = [&](StringRef Path, StringRef Role) {
    return !isArchiveMemberFile(Path) || Own(Path, Role);
  };
  if (!Check(Job.module(), "module") ||
      !Check(Job.indexShard(), "index shard") ||
      !OwnIfMember(Job.module(), "module") ||
      !Own(Job.indexShard(), "index shard"))
    return false;
  for (StringRef Import : Job.imports())
    if (!Check(Import, "imported module") ||
        !OwnIfMember(Import, "imported module"))
      return false;
  for (StringRef Input : List.CommonInputs)
    if (!Check(Input, "shared input"))
      return false;
  return true;
}

bool LinkBackends::writeOutput(const BackendJob &Job, StringRef Object) {
  // None once interrupted: the interrupt removes the objects (Cancellation.h).
  WriteGuard Writing;
  if (!Writing)
    return false;
  Error E = writeAtomically(Job.output(), Object, OnSignal::CallerWaits,
                            Existing::Replace);
  if (!E)
    return true;
  fail(Job,
       "cannot write " + toString(objectNotWritten(Job.output(), std::move(E))),
       StringRef(), /*WithCommand=*/false);
  return false;
}

bool LinkBackends::publish(size_t I, StringRef Object) {
  const BackendJob &Job = List.Jobs[I];
  WriteGuard Writing;
  if (!Writing)
    return false;
  Error E = publishObject(objectPath(I), Job.output(), Object);
  if (!E)
    return true;
  removeOwnOutput(I);
  fail(Job, "cannot write " + toString(std::move(E)), StringRef(),
       /*WithCommand=*/false);
  return false;
}

// The words for a job that ran here instead of on the remote.
void LinkBackends::reportFallback(const BackendJob &Job,
                                  const ExecutionResult &R) {
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

ExecutionResult LinkBackends::runExecutor(size_t I) {
  const BackendJob &Job = List.Jobs[I];
  ExecutionResult Result;
  {
    if (Executing)
      Executing->acquire();
    TimeTraceScope Scope("execute", Job.module());
    Result = objectPath(I) == Job.output()
                 ? Exec.run(List, Job)
                 : Exec.run(List, withOutput(Job, objectPath(I)));
    if (Executing)
      Executing->release();
  }
  if (Result.started()) {
    std::lock_guard<std::mutex> Lock(Mutex);
    ++Summary.Executed;
  }
  reportFallback(Job, Result);
  return Result;
}

// A file as it is now: rewritten, it is another file or has another time.
static std::optional<sys::fs::file_status> statusOf(StringRef Path) {
  sys::fs::file_status Status;
  if (sys::fs::status(Path, Status) || !sys::fs::exists(Status))
    return std::nullopt;
  return Status;
}

bool LinkBackends::wroteOutput(size_t I) {
  std::optional<sys::fs::file_status> Now = statusOf(objectPath(I));
  const std::optional<sys::fs::file_status> &Then = States[I].Before;
  return Now &&
         (!Then || Now->getUniqueID() != Then->getUniqueID() ||
          Now->getLastModificationTime() != Then->getLastModificationTime() ||
          Now->getSize() != Then->getSize());
}

void LinkBackends::removeOwnOutput(size_t I) {
  if (wroteOutput(I))
    sys::fs::remove(objectPath(I));
}

void LinkBackends::completeShard(size_t I) {
  const BackendJob &Job = List.Jobs[I];
  TimeTraceScope Scope("complete index shard", Job.module());
  Expected<std::optional<std::string>> Shard = Shards->complete(I);
  if (!Shard)
    return warn("cannot complete the index shard of '" + Job.module() +
                "': " + toString(Shard.takeError()));
  if (*Shard)
    States[I].CompletedShard = std::move(**Shard);
}

void LinkBackends::writeCompletedShard(size_t I) {
  if (States[I].CompletedShard.empty())
    return;
  // Its temporary file is not left behind by an interrupt.
  WriteGuard Writing;
  if (!Writing)
    return;
  Error E = Shards->write(I, States[I].CompletedShard);
  States[I].CompletedShard.clear();
  if (!E)
    return;
  States[I].Key.clear();
  warn(toString(std::move(E)));
}

// The job's object in memory: the executor's, else the one it wrote; null
// after reporting that there is none, or that it is unfit to link.
std::unique_ptr<MemoryBuffer>
LinkBackends::checkedObject(size_t I, const ExecutionResult &Result) {
  const BackendJob &Job = List.Jobs[I];
  TimeTraceScope Scope("check", Job.module());
  std::unique_ptr<MemoryBuffer> Object;
  if (Result.Object) {
    Object =
        MemoryBuffer::getMemBuffer(Result.Object->getBuffer(), Job.output(),
                                   /*RequiresNullTerminator=*/false);
  } else {
    // An object left by an earlier link is not this job's.
    if (!wroteOutput(I)) {
      fail(Job,
           "exited 0 but wrote no '" + Job.output() +
               "': " + std::strerror(ENOENT),
           Result.Output);
      return nullptr;
    }
    // One written in place is taken only if it is the user's
    // (PrivateObjects.h).
    Expected<std::unique_ptr<MemoryBuffer>> File =
        objectPath(I) == Job.output() ? readTrustedFile(Job.output())
                                      : errorOrToExpected(MemoryBuffer::getFile(
                                            objectPath(I), /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false));
    if (!File) {
      fail(Job,
           "exited 0 but its output cannot be taken: " +
               toString(File.takeError()),
           Result.Output);
      return nullptr;
    }
    Object = std::move(*File);
  }
  if (Error E = checkBackendObject(*Object, States[I].Target)) {
    removeOwnOutput(I);
    fail(Job,
         "exited 0" + std::string(Result.Remote ? " on the remote" : "") +
             " but its output '" + Job.output() + "' " + toString(std::move(E)),
         Result.Output);
    return nullptr;
  }
  return Object;
}

void LinkBackends::reportFailure(size_t I, const ExecutionResult &Result) {
  removeOwnOutput(I);
  if (!Result.Reproducers.empty()) {
    std::lock_guard<std::mutex> Lock(Mutex);
    append_range(Reproducers, Result.Reproducers);
    ++JobsWithReproducers;
  }
  fail(List.Jobs[I], describeExecution(Result), Result.Output);
}

// Execute, check, store.
bool LinkBackends::execute(size_t I) {
  const BackendJob &Job = List.Jobs[I];
  writeCompletedShard(I);
  ExecutionResult Result = runExecutor(I);
  // The link's interrupt says so, once, and removes the objects; the job
  // still counts as failed, so that no link takes its output.
  if (Result.Kind == ExitKind::Interrupted ||
      (!Result.succeeded() && linkInterrupted())) {
    std::lock_guard<std::mutex> Lock(Mutex);
    ++Summary.Failed;
    return false;
  }
  if (!Result.succeeded()) {
    reportFailure(I, Result);
    return false;
  }
  std::unique_ptr<MemoryBuffer> Object = checkedObject(I, Result);
  if (!Object)
    return false;
  if (Result.Object
          ? !writeOutput(Job, Result.Object->getBuffer())
          : objectPath(I) != Job.output() && !publish(I, Object->getBuffer()))
    return false;
  if (!States[I].Key.empty()) {
    store(States[I].Key, Object->getBuffer());
    record(I);
  }
  if (Opts.Remote)
    Opts.Remote->store(List, Job, Object->getBuffer().str());
  return true;
}

LinkBackends::Lookup LinkBackends::lookup(size_t I) {
  const BackendJob &Job = List.Jobs[I];
  TimeTraceScope Scope("cache lookup", Job.module());
  bool Damaged = false;
  std::unique_ptr<MemoryBuffer> Object = Cache->lookup(States[I].Key, Damaged);
  if (Damaged) {
    std::lock_guard<std::mutex> Lock(Mutex);
    ++Summary.DamagedEntries;
  }
  if (!Object || checkBackendObject(*Object, States[I].Target))
    return Lookup::Miss;
  return writeOutput(Job, Object->getBuffer()) ? Lookup::Hit : Lookup::Failed;
}

LinkBackends::Lookup LinkBackends::lookupRemote(size_t I) {
  const BackendJob &Job = List.Jobs[I];
  RemoteLookup Found;
  {
    TimeTraceScope Scope("remote cache lookup", Job.module());
    Found = Opts.Remote->lookup(List, Job);
  }
  if (!Found.Warning.empty())
    warn(Found.Warning);
  if (!Found.Object)
    return Lookup::Miss;
  if (Error E = checkBackendObject(
          MemoryBufferRef(Found.Object->getBuffer(), Job.output()),
          States[I].Target)) {
    Opts.Remote->rejected(Job);
    warn(Opts.Remote->name() + ": its object for '" + Job.module() + "' " +
         toString(std::move(E)) + "; running the job");
    return Lookup::Miss;
  }
  if (!writeOutput(Job, Found.Object->getBuffer()))
    return Lookup::Failed;
  // Kept as a job that ran here is: the next link of this output can say
  // why a job runs, though none ran here.
  if (!States[I].Key.empty()) {
    store(States[I].Key, Found.Object->getBuffer());
    record(I);
  }
  return Lookup::Hit;
}

void LinkBackends::store(StringRef Key, StringRef Object) {
  if (CacheUnwritable)
    return;
  // An interrupt removes no temporary file of the cache's: it waits.
  WriteGuard Writing;
  if (!Writing)
    return;
  Error E = Cache->store(Key, Object);
  if (!E)
    return;
  if (CacheUnwritable.exchange(true))
    return consumeError(std::move(E));
  warn("cannot store objects in the cache: " + toString(std::move(E)) +
       "; this link stores no more");
}

void LinkBackends::explain(size_t I) {
  if (!Opts.Explain || !Cache)
    return;
  const BackendJob &Job = List.Jobs[I];
  std::string Module = moduleIdentity(Job.module());
  std::string Reason =
      States[I].Key.empty()
          ? "it has no cache key"
          : explainRun(Records->load(linkOutput(List.LinkerOutput), Module),
                       States[I].Components);
  std::lock_guard<std::mutex> Lock(Mutex);
  Status.explain(Module, Reason);
}

void LinkBackends::record(size_t I) {
  if (CacheUnwritable || States[I].Components.Key.empty())
    return;
  // A record that cannot be written costs an explanation, not the link; a
  // full disk is the cache's warning, another user's directory in the
  // records' place one of its own.
  Error E = Records->save(linkOutput(List.LinkerOutput),
                          moduleIdentity(List.Jobs[I].module()),
                          States[I].Components);
  if (!E || !Records->directoryTaken() || RecordsUnwritable.exchange(true))
    return consumeError(std::move(E));
  warn("cannot keep what the jobs' keys were made of: " +
       toString(std::move(E)) + "; later links cannot say why a job ran");
}

LinkBackends::Source LinkBackends::executeJob(size_t I) {
  explain(I);
  return execute(I) ? Source::Executor : Source::None;
}

static LinkBackends::Source fromLookup(LinkBackends::Lookup L,
                                       LinkBackends::Source IfHit) {
  return L == LinkBackends::Lookup::Hit ? IfHit : LinkBackends::Source::None;
}

std::optional<LinkBackends::Source> LinkBackends::produceShared(size_t I,
                                                                Visit V) {
  const BackendJob &Job = List.Jobs[I];
  const RunningJobs *Shared = Running;
  if (!Shared)
    return executeJob(I);
  Expected<RunningJobs::Claim> Claim = Shared->claim(States[I].Key);
  if (!Claim) {
    if (Running.exchange(nullptr))
      warn("concurrent links cannot share this link's jobs: " +
           toString(Claim.takeError()));
    else
      consumeError(Claim.takeError());
    return executeJob(I);
  }
  // A deferred job found another link running it on its first visit.
  bool Waited = V == Visit::AfterDeferral;
  if (!Claim->held()) {
    if (V == Visit::First)
      return std::nullopt;
    Waited = true;
    RunningJobs::WaitResult Wait;
    {
      TimeTraceScope Scope("wait for another link", Job.module());
      Wait = RunningJobs::wait(*Claim, Opts.WaitLimit);
    }
    if (Wait == RunningJobs::WaitResult::TimedOut) {
      warn("waited " + Twine(Opts.WaitLimit.count()) +
           "s for another link running the backend for '" + Job.module() +
           "'; running it here");
      return executeJob(I);
    }
    // Held: the holder stored the object, or failed, or died.
  }
  // Another link may have stored the object since the first lookup.
  Lookup L = lookup(I);
  if (L != Lookup::Miss)
    return fromLookup(L, Waited ? Source::OtherLink : Source::Cache);
  return executeJob(I); // The claim is let go once the object is stored.
}

// What a job needs before anything runs: its inputs checked, its shard
// completed, its target, its cache key (none when it cannot have one);
// false after reporting why it cannot run.
bool LinkBackends::prepare(size_t I) {
  const BackendJob &Job = List.Jobs[I];
  // An object left at the output by an earlier link is never taken for
  // this run's, and is not this run's to remove.
  States[I].Before = statusOf(objectPath(I));
  if (!checkInputs(Job))
    return false;
  if (Shards) {
    if (Error E = Shards->unreadable(I)) {
      fail(Job, "cannot run: " + toString(std::move(E)), StringRef(),
           /*WithCommand=*/false);
      return false;
    }
    completeShard(I);
  }
  Expected<Triple> Target = readModuleTriple(Job.module());
  if (!Target) {
    fail(Job, "cannot run: " + toString(Target.takeError()), StringRef(),
         /*WithCommand=*/false);
    return false;
  }
  States[I].Target = *Target;
  if (!Cache)
    return true;
  TimeTraceScope Scope("cache key", Job.module());
  JobState &State = States[I];
  std::optional<StringRef> Shard;
  if (!State.CompletedShard.empty())
    Shard = State.CompletedShard;
  Expected<std::string> K = computeBackendKey(
      List, Job, CompilerIdentity, Digests, Shard, &State.Components);
  if (K)
    State.Key = std::move(*K);
  else
    warn("not caching the backend for '" + Job.module() +
         "': " + toString(K.takeError()));
  return true;
}

std::optional<LinkBackends::Source> LinkBackends::lookUp(size_t I) {
  if (!States[I].Key.empty())
    if (Lookup L = lookup(I); L != Lookup::Miss)
      return fromLookup(L, Source::Cache);
  if (!Opts.Remote)
    return std::nullopt;
  // The remote names the job by its action, which holds the completed shard.
  writeCompletedShard(I);
  if (Lookup L = lookupRemote(I); L != Lookup::Miss)
    return fromLookup(L, Source::RemoteCache);
  return std::nullopt;
}

// Prepare, look up, claim (produceShared), execute, check, store.
std::optional<LinkBackends::Source> LinkBackends::produce(size_t I, Visit V) {
  if (V == Visit::First) {
    if (!prepare(I))
      return Source::None;
    if (std::optional<Source> Found = lookUp(I))
      return Found;
  }
  if (States[I].Key.empty() || !Running)
    return executeJob(I);
  return produceShared(I, V);
}

bool LinkBackends::runJob(size_t I, bool MayDefer) {
  const BackendJob &Job = List.Jobs[I];
  // LLVM's profiler is per thread: each visit of a job is one thread's
  // record.
  if (Opts.TimeTrace)
    timeTraceProfilerInitialize(/*TimeTraceGranularity=*/0, "backend job");
  scope_exit FinishTrace([&] {
    if (Opts.TimeTrace)
      timeTraceProfilerFinishThread();
  });
  auto Start = std::chrono::steady_clock::now();
  if (MayDefer) {
    std::lock_guard<std::mutex> Lock(Mutex);
    Status.jobStarted();
  }
  std::optional<Source> From;
  {
    TimeTraceScope Scope("backend", Job.module());
    From = produce(I, MayDefer ? Visit::First : Visit::AfterDeferral);
  }
  if (!From)
    return false;
  double Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();

  std::lock_guard<std::mutex> Lock(Mutex);
  Status.jobFinished(*From == Source::Cache || *From == Source::OtherLink ||
                     *From == Source::RemoteCache);
  Summary.CacheHits += *From == Source::Cache;
  Summary.RemoteHits += *From == Source::RemoteCache;
  Summary.FromOtherLinks += *From == Source::OtherLink;
  if (Seconds > Summary.SlowestSeconds) {
    Summary.SlowestSeconds = Seconds;
    Summary.SlowestJob = moduleIdentity(Job.module());
  }
  return true;
}

DistSummary LinkBackends::run() {
  auto Start = std::chrono::steady_clock::now();
  Summary.Jobs = List.Jobs.size();
  Summary.Parallelism =
      hardware_concurrency(Opts.Parallelism).compute_thread_count();
  if (Opts.Explain && !Cache)
    warn("--explain compares cache keys, and the cache is off: no job is "
         "explained");

  // The compiler's --version, for the cache keys, is asked for while the
  // shards are read: each takes about a millisecond in a small link, and
  // every job waits for both. With no shards to read, no thread is needed.
  std::future<Expected<std::string>> Asked;
  if (Cache)
    Asked = std::async(
        Opts.CompleteShards ? std::launch::async : std::launch::deferred, [&] {
          return computeCompilerIdentity(List.compiler(), Opts.AskVersion);
        });
  if (Opts.CompleteShards) {
    TimeTraceScope Scope("read for shard completion");
    Shards.emplace(List);
  }
  if (Cache) {
    TimeTraceScope Scope("compiler identity");
    Expected<std::string> Identity = Asked.get();
    if (Identity) {
      CompilerIdentity = std::move(*Identity);
    } else {
      warn("not using the cache: " + toString(Identity.takeError()));
      Cache = nullptr;
    }
  }

  // Under a jobserver every job under way holds one of make's slots, so
  // lookups cannot overlap the backends without taking slots from make.
  unsigned UnderWay = Summary.Parallelism;
  if (Opts.Remote && !(Opts.Jobserver && hasMakeJobserver())) {
    Executing.emplace(Summary.Parallelism);
    UnderWay *= 2;
  }
  runInParallel(
      scheduleLargestFirst(List.Jobs), UnderWay,
      [&](size_t I, bool MayDefer) { return runJob(I, MayDefer); },
      Opts.Jobserver);
  if (!Reproducers.empty()) {
    // In no order of completion.
    llvm::sort(Reproducers);
    Status.reproducers(Reproducers, JobsWithReproducers);
  }
  Status.finished();
  Summary.WallSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return Summary;
}

DistSummary runBackends(const JobList &List, Executor &Exec,
                        const DistOptions &Opts, StatusSink &Status) {
  return LinkBackends(List, Exec, Opts, Status).run();
}

} // namespace ulto
