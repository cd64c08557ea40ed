//===- DistMain.cpp - ulto dist, as a library -----------------------------===//
//
// The phases of a run: the command line, the job list, the cache, the
// executors, the options of the run (decided once), the backends, the
// summary.
//
//===----------------------------------------------------------------------===//

#include "DistConfig.h"
#include "DistExecutors.h"
#include "StockLinker.h"

#include "ulto/DistDriver/DistDriver.h"
#include "ulto/DistProtocol/AttachedCommand.h"
#include "ulto/DistProtocol/DistOptTable.h"
#include "ulto/Distributor/BackendCache.h"
#include "ulto/Distributor/Cancellation.h"
#include "ulto/Distributor/Distributor.h"
#include "ulto/Distributor/JobList.h"
#include "ulto/Distributor/NinjaFile.h"
#include "ulto/Distributor/PrivateObjects.h"
#include "ulto/Distributor/RemoteCacheStats.h"
#include "ulto/Distributor/RunningJobs.h"
#include "ulto/Distributor/StatusSink.h"
#include "ulto/LocalExecution/WorkerService.h"
#include "ulto/Support/AtomicFile.h"
#include "ulto/Support/DTLTONames.h"
#include "ulto/Support/MakeJobserver.h"
#include "ulto/Support/Message.h"
#include "ulto/Support/ReaderCrashRecovery.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/prctl.h>

using namespace llvm;
using namespace ulto;
using namespace ulto::dist;

namespace {

// --check-remote: what the server offers and how far away it is.
static int checkRemote(const RemoteConfig &Config) {
  Expected<const RemotePlugin &> Plugin = remotePlugin();
  if (!Plugin)
    return reportErrors(DistToolName, Plugin.takeError());
  Expected<RemoteCapabilities> Caps =
      Plugin->FetchCapabilities(Config, std::chrono::seconds(10));
  if (!Caps)
    return reportErrors(DistToolName, Caps.takeError());
  outs() << "remote " << Config.URL;
  if (!Config.Instance.empty())
    outs() << " (instance '" << Config.Instance << "')";
  outs() << ": REAPI " << Caps->LowAPIVersion;
  if (Caps->HighAPIVersion != Caps->LowAPIVersion)
    outs() << "-" << Caps->HighAPIVersion;
  outs() << ", digest " << join(Caps->DigestFunctions, "/") << ", max batch "
         << (Caps->MaxBatchTotalSizeBytes
                 ? std::to_string(Caps->MaxBatchTotalSizeBytes) + " bytes"
                 : std::string("unlimited"))
         << ", execution " << (Caps->ExecutionEnabled ? "enabled" : "disabled")
         << ", round trip " << format("%.1f", Caps->RoundTripMilliseconds)
         << " ms\n";
  return 0;
}

// The cache and the jobs other links are running, or neither: a link must
// not fail for want of them.
struct CacheAccess {
  std::unique_ptr<BackendCache> Cache;
  std::optional<RunningJobs> Running;
  bool ReadOnly = false;
};

static Expected<CacheAccess> openCache(const DistConfig &Config) {
  CacheAccess Shared;
  if (!Config.UseCache)
    return Shared;
  Expected<std::unique_ptr<BackendCache>> Cache =
      BackendCache::open(Config.CacheDir, Config.TrustedGroup);
  if (!Cache) {
    writeMessage(errs(), DistToolName, MessageKind::Warning,
                 toString(Cache.takeError()) + "; running without a cache");
    return Shared;
  }
  Shared.Cache = std::move(*Cache);
  // Pruning before the link never removes what this link stores.
  if (Error E = prunePeriodically(Config.CacheDir, Config.CachePolicy))
    return E;
  // A read-only cache is one warning, not one per job.
  std::string Why;
  if (std::error_code EC =
          sys::fs::access(Config.CacheDir, sys::fs::AccessMode::Write)) {
    Why = "'" + Config.CacheDir + "': " + EC.message();
  } else {
    std::string Warning;
    Expected<std::optional<RunningJobs>> Running =
        RunningJobs::open(Config.CacheDir, Config.TrustedGroup, Warning);
    if (!Warning.empty())
      writeMessage(errs(), DistToolName, MessageKind::Warning, Warning);
    if (Running) {
      Shared.Running = std::move(*Running);
      return Shared;
    }
    Why = toString(Running.takeError());
  }
  writeMessage(errs(), DistToolName, MessageKind::Warning,
               "cannot write the cache: " + Why + "; this link only reads it");
  Shared.ReadOnly = true;
  return Shared;
}

// The team's cache that the command line names, or null: a link does not
// fail for want of it.
static std::unique_ptr<RemoteCache> openRemoteCache(const DistConfig &Config,
                                                    const Executors &Exec) {
  if (!Config.RemoteCache)
    return nullptr;
  RemoteCacheOptions Options;
  Options.Remote = Config.RemoteOptions;
  Options.Remote.Server = *Config.RemoteCache;
  Options.Remote.AskVersion = Exec.Local->versionProbe();
  Options.ReadOnly = Config.RemoteCacheReadOnly;
  Options.Timeout = Config.RemoteCacheTimeout;
  Expected<const RemotePlugin &> Plugin = [] {
    TimeTraceScope Scope("load the remote plugin");
    return remotePlugin();
  }();
  Expected<std::unique_ptr<RemoteCache>> Connected =
      Plugin ? Plugin->ConnectCache(std::move(Options))
             : Expected<std::unique_ptr<RemoteCache>>(Plugin.takeError());
  if (Connected)
    return std::move(*Connected);
  writeMessage(errs(), DistToolName, MessageKind::Warning,
               toString(Connected.takeError()) +
                   "; this link goes on without the remote cache");
  return nullptr;
}

// After the jobs: the uploads, and the user's totals for `ulto cache stats`
// (a cache that cannot be written said so).
static void finishRemoteCache(RemoteCache &Remote, const DistConfig &Config,
                              const CacheAccess &Cache) {
  TimeTraceScope Scope("finish the uploads");
  for (const std::string &Warning : Remote.finish())
    writeMessage(errs(), DistToolName, MessageKind::Warning, Warning);
  if (!Cache.Cache || Cache.ReadOnly)
    return;
  // A full disk is the cache's warning; another user's directory one here.
  Error E = addRemoteCacheStats(Config.CacheDir, Remote.counts());
  if (!E || !remoteCacheStatsTaken(Config.CacheDir))
    return consumeError(std::move(E));
  writeMessage(
      errs(), DistToolName, MessageKind::Warning,
      "cannot add to the remote cache's statistics: " + toString(std::move(E)) +
          "; `ulto cache stats` leaves this link out");
}

} // namespace

// The options of the run, decided once, from the command line, the cache
// and where the jobs run.
static DistOptions
runtimeOptions(const DistConfig &Config, const CacheAccess &Cache,
               const Executors &Exec, RemoteCache *Remote,
               const std::optional<PrivateObjects> &Private) {
  DistOptions Opts;
  Opts.Private = Private ? &*Private : nullptr;
  // Remote jobs wait on the network, not on this machine's cores.
  Opts.Parallelism = Exec.Remote ? Config.RemoteJobs : Config.Parallelism;
  Opts.Jobserver = !Exec.Remote;
  Opts.WaitLimit = std::chrono::seconds(Config.WaitLimit);
  Opts.Cache = Cache.Cache.get();
  Opts.CacheReadOnly = Cache.ReadOnly;
  Opts.Remote = Remote;
  if (Cache.Running)
    Opts.Running = &*Cache.Running;
  Opts.AskVersion = Exec.Local->versionProbe();
  Opts.CompleteShards = true;
  Opts.TimeTrace = !Config.TraceFile.empty();
  Opts.Explain = Config.Explain;
  return Opts;
}

static Error writeTrace(const DistConfig &Config) {
  if (Config.TraceFile.empty())
    return Error::success();
  Error E = writeAtomically(Config.TraceFile, [](raw_ostream &OS) {
    SmallString<0> Trace;
    raw_svector_ostream TraceOS(Trace);
    timeTraceProfilerWrite(TraceOS);
    OS << Trace;
  });
  timeTraceProfilerCleanup();
  return E;
}

// What stock lld leaves out of the jobs, and their ninja file if asked for.
static Error describeJobs(const DistConfig &Config, const JobList &List) {
  warnAboutStockLinker(DistToolName, List);
  if (Config.NinjaFile.empty())
    return Error::success();
  return writeAtomically(Config.NinjaFile,
                         [&](raw_ostream &OS) { writeNinjaFile(List, OS); });
}

// The trace and the summary line; the exit status.
static int report(const DistConfig &Config, const DistSummary &Summary,
                  const Executor &Exec, const RemoteCache *Remote) {
  bool Ok = Summary.Failed == 0;
  if (Error E = writeTrace(Config)) {
    reportErrors(DistToolName, std::move(E));
    Ok = false;
  }
  std::string Report = Exec.report();
  if (Remote)
    Report += (Report.empty() ? "" : "; ") + Remote->name() + ": " +
              Remote->counts().format();
  // One write: concurrent links may share a stderr (unbuffered).
  if (!Config.Quiet)
    errs() << (DistToolName + ": " + Summary.format(Exec.name(), Report) + "\n")
                  .str();
  return Ok ? 0 : 1;
}

static int runDist(ArrayRef<const char *> Args,
                   function_ref<void(int)> Finished, ReadyServer Ready,
                   ClangWorkersLoader LoadWorkers);

// The link's options that choose its workers, from $ULTO_DIST_FLAGS and
// \p Options (what ld.ulto knows of them), into \p Workers and \p Service:
// their errors are the link's to report, once its command has come. Whether
// the link names a remote.
static bool readEarlyOptions(ArrayRef<const char *> Options,
                             ForkServer::Options &Workers,
                             ServiceConfig &Service) {
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  unsigned MissingIndex, MissingCount;
  opt::InputArgList Args = dist::optTable().ParseArgs(
      expandArgs(Options, Saver), MissingIndex, MissingCount);
  consumeError(readServiceConfig(Args, Service));
  consumeError(parseCount(Args, OPT_jobs_per_process, Workers.JobsPerWorker));
  return Args.hasArg(OPT_remote, OPT_remote_cache);
}

// `ulto dist --await-command=FD [--await-checks=CHECKS] [OPTIONS]`: the
// command line comes later, on \p FD, and runs after a pass read on
// \p Checks, if not -1 (AttachedCommand.h); \p Options, those of its
// options that choose the workers, come now.
static int distAwaitCommand(int FD, int Checks, ArrayRef<const char *> Options,
                            ClangWorkersLoader LoadWorkers) {
  // While lld reads the inputs: the fork server for clang-22's jobs, as most
  // links' are with the default worker options.
  ReadyServer Ready;
  // A worker for each job the link runs at once, by default.
  if (Expected<unsigned> Slots = defaultSlotCount())
    Ready.Workers.IdleWorkers = *Slots;
  else
    consumeError(Slots.takeError()); // The link's own options say why.
  ServiceConfig Service;
  bool UsesRemote = readEarlyOptions(Options, Ready.Workers, Service);
  if (std::optional<std::string> Clang =
          findClang22(ULTO_LLVM_TOOLS_DIR "/clang")) {
    Expected<std::unique_ptr<ForkServer>> Started = startClangWorkers(
        *Clang, Ready.Workers, Service, Ready.Workers.IdleWorkers, LoadWorkers);
    if (Started) {
      Ready.Server = std::move(*Started);
      Ready.Clang = *Clang;
    } else {
      consumeError(Started.takeError()); // The link's own start says why.
    }
  }
  // Remote execution's library takes 15 ms to load: while lld works, after
  // the fork, before any thread. The link's own start says why it fails.
  if (UsesRemote)
    consumeError(remotePlugin().takeError());
  Expected<std::optional<std::vector<std::string>>> Command =
      readAttachedCommand(FD);
  if (!Command)
    return reportErrors(DistToolName, Command.takeError());
  // The link ended before its distributor ran.
  if (!*Command)
    return 0;
  std::vector<const char *> Args;
  for (const std::string &Arg : **Command)
    Args.push_back(Arg.c_str());
  // lld's distributor arguments begin with the multi-tool's command.
  if (Args.empty() || StringRef(Args[0]) != "dist")
    return reportErrors(
        DistToolName, createStringError("the command sent is not ulto dist's"));
  std::optional<Error> Replied;
  auto Reply = [&](int Code) { Replied = replyExitStatus(FD, Code); };
  int Code = 1;
  // ld.ulto names what its checks refused.
  Expected<bool> Passed =
      Checks < 0 ? Expected<bool>(true) : readChecksVerdict(Checks);
  if (!Passed)
    reportErrors(DistToolName, Passed.takeError());
  else if (*Passed)
    Code = runDist(ArrayRef(Args).drop_front(), Reply, std::move(Ready),
                   LoadWorkers);
  if (!Replied)
    Reply(Code);
  if (*Replied)
    return reportErrors(DistToolName, std::move(*Replied));
  return Code;
}

// The descriptor of \p Option (--await-command= or --await-checks=) in
// \p Arg, or -1 after reporting an error.
static int awaitedDescriptor(StringRef Arg, StringRef Option) {
  if (!Arg.starts_with(Option)) {
    reportErrors(DistToolName,
                 createStringError("expected %sFD, not '%s'", Option.data(),
                                   Arg.str().c_str()));
    return -1;
  }
  StringRef FDText = Arg.drop_front(Option.size());
  int FD;
  if (FDText.getAsInteger(10, FD) || FD < 0) {
    reportErrors(DistToolName,
                 createStringError("invalid %s value '%s'", Option.data(),
                                   FDText.str().c_str()));
    return -1;
  }
  return FD;
}

// --serve-workers=NAME: the worker service, which a link's
// joinWorkerService() started in a session of its own; serves until idle.
static int serveWorkers(ArrayRef<const char *> Args,
                        ClangWorkersLoader LoadWorkers) {
  unsigned MissingIndex, MissingCount;
  opt::InputArgList ArgList =
      dist::optTable().ParseArgs(Args, MissingIndex, MissingCount);
  ForkServer::Options Workers;
  ServiceConfig Service;
  unsigned IdleWorkers = 1;
  Error Errors = dist::unknownArguments(ArgList);
  addError(Errors, parseCount(ArgList, OPT_jobs, IdleWorkers));
  addError(Errors,
           parseCount(ArgList, OPT_jobs_per_process, Workers.JobsPerWorker));
  addError(Errors, readServiceConfig(ArgList, Service));
  if (Errors)
    return reportErrors(DistToolName, std::move(Errors));
  Workers.IdleWorkers = IdleWorkers;
  std::optional<std::string> Clang = findClang22(ULTO_LLVM_TOOLS_DIR "/clang");
  if (!Clang)
    return reportErrors(DistToolName,
                        createStringError("no clang-22 at " ULTO_LLVM_TOOLS_DIR
                                          "/clang for the worker service"));
  Expected<int> Listening =
      listenAsWorkerService(ArgList.getLastArgValue(OPT_serve_workers));
  if (!Listening)
    return reportErrors(DistToolName, Listening.takeError());
  if (*Listening < 0)
    return 0; // Another link's service came first.
  // What ps and top show.
  prctl(PR_SET_NAME, "ulto workers");
  Expected<ClangWorkersFn> Load = LoadWorkers();
  if (!Load)
    return reportErrors(DistToolName, Load.takeError());
  ForkServer::MainFn Main = (*Load)(*Clang, Workers);
  ForkServer::serve(*Listening, Main, Workers,
                    std::chrono::seconds(Service.IdleLimit));
}

int ulto::distMain(ArrayRef<const char *> Args,
                   ClangWorkersLoader LoadWorkers) {
  // Before anything is opened: make's jobserver only if it is one.
  if (vetInheritedJobserver().Kind == JobserverCheck::Unusable)
    writeMessage(errs(), DistToolName, MessageKind::Note,
                 JobserverUnavailableNote);
  if (!Args.empty() && StringRef(Args[0]).starts_with("--serve-workers="))
    return serveWorkers(Args, LoadWorkers);
  if (Args.empty() || !StringRef(Args[0]).starts_with(AwaitCommandOption))
    return runDist(Args, nullptr, ReadyServer(), LoadWorkers);
  // --await-command=FD [--await-checks=FD] [the link's options]
  int FD = awaitedDescriptor(Args[0], AwaitCommandOption);
  if (FD < 0)
    return 1;
  Args = Args.drop_front();
  int Checks = -1;
  if (!Args.empty() && StringRef(Args[0]).starts_with(AwaitChecksOption)) {
    Checks = awaitedDescriptor(Args[0], AwaitChecksOption);
    if (Checks < 0)
      return 1;
    Args = Args.drop_front();
  }
  // What ld.ulto passes of the options that choose the workers.
  unsigned MissingIndex, MissingCount;
  opt::InputArgList Given =
      dist::optTable().ParseArgs(Args, MissingIndex, MissingCount);
  for (const opt::Arg *A : Given) {
    if (dist::isWorkerOption(*A))
      continue;
    return reportErrors(
        DistToolName,
        createStringError("%s takes no other options but %s, %s; "
                          "not '%s'",
                          AwaitCommandOption.data(), AwaitChecksOption.data(),
                          dist::workerOptionNames().c_str(),
                          A->getAsString(Given).c_str()));
  }
  return distAwaitCommand(FD, Checks, Args, LoadWorkers);
}

// Runs the jobs of the list that \p Args name. \p Finished, if given, gets
// the exit status as soon as the link may go on: before the fork server and
// its workers end, which takes milliseconds the link need not wait for.
static int runDist(ArrayRef<const char *> Args,
                   function_ref<void(int)> Finished, ReadyServer Ready,
                   ClangWorkersLoader LoadWorkers) {
  // Ends with the link: when the linker dies, or on an interrupt, the jobs
  // stop and the files written for them go (Cancellation.h).
  Cancellation Cancel(DistToolName);
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  std::optional<opt::InputArgList> ArgList =
      dist::parse(expandArgs(Args, Saver));
  if (!ArgList)
    return 0;
  Expected<DistConfig> Config = readDistConfig(*ArgList);
  if (!Config)
    return reportErrors(DistToolName, Config.takeError());
  for (const std::string &Warning : remoteWarnings(*Config, Args))
    writeMessage(errs(), DistToolName, MessageKind::Warning, Warning);
  if (Config->CheckRemote)
    return checkRemote(*Config->Remote);
  // The trace begins here, to show what comes before the first job too.
  if (!Config->TraceFile.empty())
    timeTraceProfilerInitialize(/*TimeTraceGranularity=*/0, DistToolName);

  // The jobs lld wrote, and their ninja file when asked for.
  Expected<JobList> List = [&] {
    TimeTraceScope Scope("read the job list");
    return readJobList(Config->JobList);
  }();
  if (!List)
    return reportErrors(DistToolName, List.takeError());
  std::optional<TimeTraceScope> Whole(std::in_place, "ulto dist",
                                      linkOutput(List->LinkerOutput));
  // Where the jobs write their objects: only the user can enter it.
  std::optional<PrivateObjects> Private = PrivateObjects::create(*List);
  // ...and where remote objects are kept while they arrive.
  if (Private)
    Config->RemoteOptions.DownloadDirectory = Private->directory().str();
  Cancel.watch(Config->JobList, *List, Private ? &*Private : nullptr,
               Config->Progress);
  if (Error E = describeJobs(*Config, *List))
    return reportErrors(DistToolName, std::move(E));

  Expected<CacheAccess> Cache = [&] {
    TimeTraceScope Scope("open the cache");
    return openCache(*Config);
  }();
  if (!Cache)
    return reportErrors(DistToolName, Cache.takeError());
  Expected<Executors> Exec = [&] {
    TimeTraceScope Scope("start the executors");
    return startExecutors(*Config, *List, std::move(Ready), LoadWorkers);
  }();
  if (!Exec)
    return reportErrors(DistToolName, Exec.takeError());
  // Index shards are read here; the fork server, started already, keeps
  // clang's own handling of its crashes.
  enableReaderCrashRecovery();
  std::unique_ptr<RemoteCache> Remote = [&] {
    TimeTraceScope Scope("connect the remote cache");
    return openRemoteCache(*Config, *Exec);
  }();

  // The backends, the trace, the summary; the link uses the objects only
  // after a zero exit.
  DistSummary Summary = [&] {
    TerminalStatus Status(errs(), DistToolName, Config->Progress,
                          List->Jobs.size());
    return runBackends(
        *List, Exec->chosen(),
        runtimeOptions(*Config, *Cache, *Exec, Remote.get(), Private), Status);
  }();
  Private.reset();
  if (Remote)
    finishRemoteCache(*Remote, *Config, *Cache);
  Whole.reset();
  int Code = report(*Config, Summary, Exec->chosen(), Remote.get());
  if (Finished)
    Finished(Code);
  return Code;
}
