//===- Distributor.h - Runs a distributed link's backends -------*- C++ -*-===//
//
// For each job of a DTLTO job list: its object comes from the cache when the
// cache holds it, else from the executor; either way it is checked
// (ObjectCheck.h) before it is written where the linker expects it, and a
// fresh object is stored in the cache. Jobs start largest first, at most N
// at once (Scheduler.h). A job that another link on this machine is running
// (RunningJobs.h) is left for last, then waited for and taken from the cache.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_DISTRIBUTOR_H
#define ULTO_DISTRIBUTOR_DISTRIBUTOR_H

#include "ulto/Distributor/BackendCache.h"
#include "ulto/Distributor/CompilerIdentity.h"
#include "ulto/Distributor/Executor.h"
#include "ulto/Distributor/JobList.h"
#include "ulto/Distributor/RemoteCache.h"
#include "ulto/Distributor/RunningJobs.h"
#include "ulto/Distributor/ShardCompletion.h"
#include "ulto/Distributor/StatusSink.h"

#include <chrono>
#include <string>

namespace ulto {

class PrivateObjects;

struct DistOptions {
  /// Jobs at once; 0: one per hardware thread (or per jobserver slot).
  unsigned Parallelism = 0;
  /// Whether each running job holds a make jobserver slot; not for jobs
  /// that run elsewhere.
  bool Jobserver = true;
  /// The cache, or null to run every job.
  BackendCache *Cache = nullptr;
  /// Read from the cache, but store nothing in it (it is not writable).
  bool CacheReadOnly = false;
  /// A team's cache on a server, asked after the local cache; or null.
  RemoteCache *Remote = nullptr;
  /// The jobs running on this machine, or null to run a job even while
  /// another link runs it; only with a cache.
  const RunningJobs *Running = nullptr;
  /// How long a job waits for another link before it runs here.
  std::chrono::seconds WaitLimit{600};
  /// How the compiler is asked for its --version, for the cache keys: where
  /// its jobs run (LocalExecutor::versionProbe). Required.
  VersionProbe AskVersion;
  /// Complete each job's index shard (ShardCompletion.h) before its cache
  /// key; otherwise lld's shards are used as they are.
  bool CompleteShards = false;
  /// Record each job in LLVM's time-trace profiler, which the caller has
  /// initialised on its own thread and writes out afterwards.
  bool TimeTrace = false;
  /// Say why each job that runs was not in the cache (ExplainRun.h). The
  /// jobs that run leave their records either way, for a later link.
  bool Explain = false; /// Where the jobs write their objects; null: in place.
  const PrivateObjects *Private = nullptr;
};

struct DistSummary {
  unsigned Jobs = 0;
  unsigned CacheHits = 0;
  /// Objects from the remote cache.
  unsigned RemoteHits = 0;
  /// Objects another link computed while this one waited.
  unsigned FromOtherLinks = 0;
  unsigned Executed = 0;
  unsigned Failed = 0;
  /// Damaged cache entries found, dropped and rebuilt.
  unsigned DamagedEntries = 0;
  /// Jobs that could run at once.
  unsigned Parallelism = 0;
  double WallSeconds = 0;
  /// The slowest job's module, as moduleIdentity() names it.
  std::string SlowestJob;
  double SlowestSeconds = 0;

  /// One line: "3 jobs: 1 cached, [5 from the remote cache, ][4 waited on
  /// another link, ]2 executed, 0 failed (local, 2 at once[;
  /// <ExecutorReport>]); wall ...".
  std::string format(llvm::StringRef ExecutorName,
                     llvm::StringRef ExecutorReport = "") const;
};

/// Runs every job of \p List; failures and warnings go to \p Status as they
/// happen. The link may use the outputs only if the summary counts no
/// failure.
DistSummary runBackends(const JobList &List, Executor &Exec,
                        const DistOptions &Opts, StatusSink &Status);

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_DISTRIBUTOR_H
