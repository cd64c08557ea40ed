//===- DistCommand.cpp - ulto dist ----------------------------------------===//
//
// `ulto dist [options] JOBS.json` is a ThinLTO distributor for LLVM 22's
// DTLTO: ld.ulto --lto=distributed runs it, and so can stock lld and clang:
//
//   ld.lld --thinlto-distributor=ulto --thinlto-distributor-arg=dist ...
//   clang -fthinlto-distributor=ulto -Xthinlto-distributor=dist ...
//
// lld appends the job list's path after the options and waits; a non-zero
// exit fails the link.
//
//===----------------------------------------------------------------------===//

#include "ClangWorkers.h"
#include "Commands.h"

#include "ulto/Distributor/AttachedCommand.h"
#include "ulto/Distributor/BackendCache.h"
#include "ulto/Distributor/Cancellation.h"
#include "ulto/Distributor/Distributor.h"
#include "ulto/Distributor/JobList.h"
#include "ulto/Distributor/NinjaFile.h"
#include "ulto/Distributor/RunningJobs.h"
#include "ulto/Distributor/Scheduler.h"
#include "ulto/LocalExecution/ForkServer.h"
#include "ulto/LocalExecution/LocalExecutor.h"
#include "ulto/LocalExecution/SlotPool.h"
#include "ulto/LocalExecution/WorkerService.h"
#include "ulto/Remote/RemoteConfig.h"
#include "ulto/Remote/RemotePlugin.h"
#include "ulto/Support/AtomicFile.h"
#include "ulto/Support/InstalledLibrary.h"
#include "ulto/Support/MakeJobserver.h"
#include "ulto/Support/Message.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"

#include <grp.h>
#include <sys/prctl.h>

using namespace llvm;
using namespace ulto;

namespace {

#define ULTO_OPTIONS_INC "DistOpts.inc"
#include "CommandOptTable.def"

constexpr StringLiteral ToolName = "ulto dist";

// clang-22's real path when \p Compiler is the clang-22 whose libclang-cpp
// ulto runs on: then ulto can run its jobs itself, with the very same code.
std::optional<std::string> findClang22(StringRef Compiler) {
  ErrorOr<std::string> Path = sys::findProgramByName(Compiler);
  SmallString<256> Real, Ours;
  if (!Path || sys::fs::real_path(*Path, Real) ||
      sys::fs::real_path(ULTO_LLVM_TOOLS_DIR "/clang", Ours) || Real != Ours)
    return std::nullopt;
  return std::string(Ours);
}

// A file's whole text, for certificates and tokens.
Expected<std::string> readWhole(StringRef Path, StringRef What) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return createStringError("cannot read %s '%s': %s", What.str().c_str(),
                             Path.str().c_str(),
                             Buffer.getError().message().c_str());
  return (*Buffer)->getBuffer().str();
}

// The server and how to reach it, from --remote and its companions.
Expected<RemoteConfig> remoteConfig(const opt::InputArgList &ArgList) {
  Expected<RemoteConfig> Config =
      parseRemoteURL(ArgList.getLastArgValue(OPT_remote));
  if (!Config)
    return Config.takeError();
  Config->Instance = ArgList.getLastArgValue(OPT_remote_instance).str();
  Config->ToolVersion = ULTO_VERSION;
  Config->BuildId = ArgList.getLastArgValue(
      OPT_remote_build_id, sys::Process::GetEnv("ULTO_BUILD_ID").value_or(""));
  for (StringRef Header : ArgList.getAllArgValues(OPT_remote_header)) {
    Expected<std::pair<std::string, std::string>> H = parseRemoteHeader(Header);
    if (!H)
      return H.takeError();
    Config->Headers.push_back(std::move(*H));
  }
  if (const opt::Arg *A = ArgList.getLastArg(OPT_remote_token_file)) {
    Expected<std::string> Token = readWhole(A->getValue(), "token file");
    if (!Token)
      return Token.takeError();
    StringRef Trimmed = StringRef(*Token).trim();
    if (Trimmed.empty() || Trimmed.contains_insensitive('\n'))
      return createStringError("token file '%s': expected one line, the "
                               "token",
                               A->getValue());
    if (Error E = checkHeaderValue(
            ("token file '" + Twine(A->getValue()) + "'").str(), Trimmed))
      return std::move(E);
    Config->Headers.push_back({"authorization", "Bearer " + Trimmed.str()});
  }
  struct {
    OptSpecifier Option;
    std::string *Into;
    const char *What;
  } Files[] = {
      {OPT_remote_tls_ca, &Config->RootCertificates, "CA certificates"},
      {OPT_remote_tls_cert, &Config->ClientCertificate, "client certificate"},
      {OPT_remote_tls_key, &Config->ClientKey, "client key"},
  };
  for (auto &File : Files) {
    const opt::Arg *A = ArgList.getLastArg(File.Option);
    if (!A)
      continue;
    if (!Config->TLS)
      return createStringError(
          "--%s needs a grpcs:// remote",
          A->getOption().getName().drop_back().str().c_str());
    Expected<std::string> Text = readWhole(A->getValue(), File.What);
    if (!Text)
      return Text.takeError();
    *File.Into = std::move(*Text);
  }
  if (Config->ClientCertificate.empty() != Config->ClientKey.empty())
    return createStringError("--remote-tls-cert and --remote-tls-key go "
                             "together");
  return Config;
}

// This program: `ulto`, or ld.ulto when this is libUltoDist.so.
std::string thisProgram() {
  return sys::fs::getMainExecutable("ulto",
                                    reinterpret_cast<void *>(&ulto::distMain));
}

// Remote execution, loaded from next to this `ulto` (RemotePlugin.h).
Expected<const RemotePlugin &> remotePlugin() {
  return loadRemotePlugin(thisProgram());
}

// --check-remote: what the server offers and how far away it is.
int checkRemote(const RemoteConfig &Config) {
  Expected<const RemotePlugin &> Plugin = remotePlugin();
  if (!Plugin)
    return reportErrors(ToolName, Plugin.takeError());
  Expected<RemoteCapabilities> Caps =
      Plugin->FetchCapabilities(Config, std::chrono::seconds(10));
  if (!Caps)
    return reportErrors(ToolName, Caps.takeError());
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

// A positive number option, or an error naming it.
Error parseCount(const opt::InputArgList &Args, OptSpecifier Option,
                 unsigned &Value, bool AllowZero = false) {
  const opt::Arg *A = Args.getLastArg(Option);
  if (!A)
    return Error::success();
  if (!StringRef(A->getValue()).getAsInteger(10, Value) &&
      (Value != 0 || AllowZero))
    return Error::success();
  return createStringError("invalid --%s value '%s': expected a %s",
                           A->getOption().getName().drop_back().str().c_str(),
                           A->getValue(),
                           AllowZero ? "number" : "positive number");
}

// The remote executor's options.
Error readRemoteOptions(const opt::InputArgList &Args,
                        RemoteExecutorOptions &Options) {
  Error Errors = Error::success();
  for (StringRef Property : Args.getAllArgValues(OPT_remote_platform)) {
    auto [Name, Value] = Property.split('=');
    if (Name.empty() || Name.size() == Property.size())
      addError(Errors, createStringError("invalid --remote-platform value "
                                         "'%s': expected NAME=VALUE",
                                         Property.str().c_str()));
    Options.Platform.push_back({Name.str(), Value.str()});
  }
  Options.Compiler = Args.getLastArgValue(OPT_remote_compiler).str();
  Options.ShipCompiler = Args.hasArg(OPT_remote_ship_compiler);
  if (Options.ShipCompiler && !Options.Compiler.empty())
    addError(Errors, createStringError("--remote-compiler and "
                                       "--remote-ship-compiler exclude each "
                                       "other"));
  unsigned Timeout = Options.Timeout.count();
  addError(Errors, parseCount(Args, OPT_remote_retries, Options.Retries,
                              /*AllowZero=*/true));
  addError(Errors, parseCount(Args, OPT_remote_timeout, Timeout));
  Options.Timeout = std::chrono::seconds(Timeout);
  Options.LocalFallback = !Args.hasArg(OPT_no_local_fallback);
  return Errors;
}

// The options from $ULTO_DIST_FLAGS, then \p Args, with @file arguments
// expanded (LLVM's response files): a farm's settings live in one place.
SmallVector<const char *, 0> expandArgs(ArrayRef<const char *> Args,
                                        StringSaver &Saver) {
  SmallVector<const char *, 0> Expanded;
  if (std::optional<std::string> Flags =
          sys::Process::GetEnv("ULTO_DIST_FLAGS"))
    cl::TokenizeGNUCommandLine(*Flags, Saver, Expanded);
  append_range(Expanded, Args);
  cl::ExpandResponseFiles(Saver, cl::TokenizeGNUCommandLine, Expanded);
  return Expanded;
}

// --progress: whether to keep the live progress line.
Expected<bool> readProgress(const opt::InputArgList &Args) {
  StringRef Progress = Args.getLastArgValue(OPT_progress, "auto");
  std::optional<bool> Show =
      StringSwitch<std::optional<bool>>(Progress)
          .Case("auto", sys::Process::StandardErrIsDisplayed())
          .Case("always", true)
          .Case("never", false)
          .Default(std::nullopt);
  if (!Show)
    return createStringError("invalid --progress value '%s': expected auto, "
                             "always or never",
                             Progress.str().c_str());
  return *Show;
}

enum class ExecutorKind { Local, Remote };

// The user's worker service (WorkerService.h): whether the local jobs run
// there, and the idle limit of one that this link starts.
struct ServiceConfig {
  enum UseKind {
    No,        ///< --no-service
    ByDefault, ///< started by an environment's second link; quiet
    Asked,     ///< --service: started at once; the link says why it goes
               ///< without
  } Use = ByDefault;
  unsigned IdleLimit = 300;
  /// Services of the user past which this link starts none; 0: no limit.
  unsigned Limit = 8;
};

Error readServiceConfig(const opt::InputArgList &Args, ServiceConfig &Service) {
  if (const opt::Arg *A = Args.getLastArg(OPT_service, OPT_no_service))
    Service.Use = A->getOption().matches(OPT_service) ? ServiceConfig::Asked
                                                      : ServiceConfig::No;
  return joinErrors(
      parseCount(Args, OPT_service_idle_limit, Service.IdleLimit),
      parseCount(Args, OPT_service_limit, Service.Limit, /*AllowZero=*/true));
}

// Everything `ulto dist` was asked to do.
struct DistConfig {
  std::string JobList;
  std::string NinjaFile;
  std::string CacheDir;
  std::string CachePolicy;
  /// Whose cache entries besides the user's a link takes.
  std::optional<gid_t> TrustedGroup;
  bool UseCache;
  bool Spawn;
  ForkServer::Options Workers;
  ServiceConfig Service;
  bool Progress;
  bool Quiet;
  std::string TraceFile;
  /// Local jobs at once, for all the links of the machine together.
  unsigned Parallelism = 0;
  unsigned WaitLimit = 600;
  ExecutorKind Executor;
  std::optional<RemoteConfig> Remote;
  bool CheckRemote;
  RemoteExecutorOptions RemoteOptions;
  unsigned RemoteJobs = 32;
};

// The command line as a DistConfig, or every problem with it, in order.
Expected<DistConfig> readDistConfig(const opt::InputArgList &Args) {
  Error Errors = unknownArguments(Args);
  DistConfig Config;
  if (Args.hasArg(OPT_remote)) {
    Expected<RemoteConfig> Remote = remoteConfig(Args);
    if (!Remote)
      return joinErrors(std::move(Errors), Remote.takeError());
    Config.Remote = std::move(*Remote);
  }
  if (Args.hasArg(OPT_serve_workers))
    addError(Errors, createStringError("--serve-workers= is the worker "
                                       "service's own option, and comes "
                                       "first"));
  Config.CheckRemote = Args.hasArg(OPT_check_remote);
  if (Config.CheckRemote && !Config.Remote)
    return createStringError("--check-remote needs --remote=grpc://host:port");
  if (Config.CheckRemote)
    return Errors ? Expected<DistConfig>(std::move(Errors)) : Config;

  if (Args.hasArg(OPT_jobs))
    addError(Errors, parseCount(Args, OPT_jobs, Config.Parallelism));
  else if (Expected<unsigned> Slots = defaultSlotCount())
    Config.Parallelism = *Slots;
  else
    addError(Errors, Slots.takeError());
  addError(Errors, parseCount(Args, OPT_wait_limit, Config.WaitLimit));
  addError(Errors, parseCount(Args, OPT_jobs_per_process,
                              Config.Workers.JobsPerWorker));
  addError(Errors, parseCount(Args, OPT_remote_jobs, Config.RemoteJobs));
  addError(Errors, readServiceConfig(Args, Config.Service));
  StringRef Executor =
      Args.getLastArgValue(OPT_executor, Config.Remote ? "remote" : "local");
  Config.Executor =
      Executor == "remote" ? ExecutorKind::Remote : ExecutorKind::Local;
  if (Executor != "local" && Executor != "remote")
    addError(Errors, createStringError("unknown executor '%s'; executors: "
                                       "local, remote",
                                       Executor.str().c_str()));
  else if (Executor == "remote" && !Config.Remote)
    addError(Errors, createStringError("--executor=remote needs "
                                       "--remote=grpc://host:port"));
  if (Config.Remote)
    addError(Errors, readRemoteOptions(Args, Config.RemoteOptions));
  if (Expected<bool> Progress = readProgress(Args))
    Config.Progress = *Progress;
  else
    addError(Errors, Progress.takeError());
  std::vector<std::string> Inputs = Args.getAllArgValues(OPT_INPUT);
  if (Inputs.size() != 1 && !Errors)
    addError(Errors, createStringError(
                         Inputs.empty() ? "no job list given"
                                        : "expected one job list, got " +
                                              std::to_string(Inputs.size())));
  if (Errors)
    return Errors;

  Config.JobList = Inputs[0];
  Config.NinjaFile = Args.getLastArgValue(OPT_emit_ninja).str();
  Config.CacheDir =
      Args.getLastArgValue(OPT_cache_dir, defaultCacheDirectory()).str();
  if (Config.CacheDir.empty())
    return createStringError("--cache-dir= needs a directory");
  Config.CachePolicy =
      Args.getLastArgValue(OPT_cache_policy, DefaultCachePolicy).str();
  if (Error E = checkCachePolicy(Config.CachePolicy))
    return E;
  if (const opt::Arg *A = Args.getLastArg(OPT_cache_trusted_group)) {
    struct group *Group = ::getgrnam(A->getValue());
    if (!Group)
      return createStringError("--cache-trusted-group=%s: no such group",
                               A->getValue());
    Config.TrustedGroup = Group->gr_gid;
  }
  Config.UseCache = !Args.hasArg(OPT_no_cache);
  Config.Spawn = Args.hasArg(OPT_spawn);
  Config.Quiet = Args.hasArg(OPT_quiet);
  Config.TraceFile = Args.getLastArgValue(OPT_time_trace).str();
  return Config;
}

// The cache and the jobs other links are running, or neither: a link must
// not fail for want of them.
struct SharedWork {
  std::unique_ptr<BackendCache> Cache;
  std::optional<RunningJobs> Running;
  bool ReadOnly = false;
};

Expected<SharedWork> openCache(const DistConfig &Config) {
  SharedWork Shared;
  if (!Config.UseCache)
    return Shared;
  Expected<std::unique_ptr<BackendCache>> Cache =
      BackendCache::open(Config.CacheDir, Config.TrustedGroup);
  if (!Cache) {
    writeMessage(errs(), ToolName, MessageKind::Warning,
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
    Expected<RunningJobs> Running = RunningJobs::open(Config.CacheDir);
    if (Running) {
      Shared.Running = std::move(*Running);
      return Shared;
    }
    Why = toString(Running.takeError());
  }
  writeMessage(errs(), ToolName, MessageKind::Warning,
               "cannot write the cache: " + Why + "; this link only reads it");
  Shared.ReadOnly = true;
  return Shared;
}

// A fork server started before the command line arrived (`--await-command`),
// and what it was started for.
struct ReadyServer {
  std::unique_ptr<ForkServer> Server;
  std::string Clang;
  ForkServer::Options Workers;
};

// Where the jobs run. The fork server is started before any thread: it is
// forked from this process.
struct Executors {
  std::unique_ptr<ForkServer> Server;
  std::unique_ptr<SlotPool> Slots;
  std::unique_ptr<LocalExecutor> Local;
  std::unique_ptr<Executor> Remote;

  Executor &chosen() {
    if (Remote)
      return *Remote;
    return *Local;
  }
};

// A fork server whose workers run \p Clang's jobs. Must be called while the
// process has one thread.
Expected<std::unique_ptr<ForkServer>>
startClangServer(StringRef Clang, ForkServer::Options Workers) {
  Expected<ClangWorkersFn> Load = loadClangWorkers();
  if (!Load)
    return Load.takeError();
  ForkServer::MainFn Main = (*Load)(Clang, Workers);
  return ForkServer::start(Main, Workers);
}

// The `ulto` next to this program (ld.ulto, or `ulto` itself), which serves
// as the worker service.
std::string ultoProgram() {
  SmallString<256> Path(sys::path::parent_path(thisProgram()));
  sys::path::append(Path, "ulto");
  return std::string(Path);
}

// This link's connection to the user's worker service for \p Clang's jobs;
// null when none serves them yet, after starting one, with \p IdleWorkers
// warm workers, for the links that follow. Must be called while the process
// has one thread. Unasked, a link starts the service only when it is the
// second of its environment (visitStartsWorkerService), and says nothing of
// why it goes without: the service is an optimisation, and the link's own
// workers are what users of ld.lld-22 know.
std::unique_ptr<ForkServer>
joinWorkerService(StringRef Clang, const ForkServer::Options &Workers,
                  const ServiceConfig &Service, unsigned IdleWorkers) {
  auto GoWithout = [&](const Twine &Why) -> std::unique_ptr<ForkServer> {
    if (Service.Use == ServiceConfig::Asked)
      writeMessage(errs(), ToolName, MessageKind::Warning, Why);
    return nullptr;
  };
  std::string Ulto = ultoProgram();
  std::string Name = workerServiceName(("clang-22 driver at " + Clang).str(),
                                       {Ulto, ULTO_CLANG_CPP_LIBRARY}, Workers);
  Expected<std::unique_ptr<ForkServer>> Joined = connectToWorkerService(Name);
  if (!Joined)
    return GoWithout(toString(Joined.takeError()) +
                     "; running this link's jobs itself");
  if (*Joined)
    return std::move(*Joined);
  // A build whose links' environments differ would start a service for
  // each link, which no other link uses.
  if (unsigned Running = Service.Limit ? countWorkerServices() : 0;
      Service.Limit && Running >= Service.Limit)
    return GoWithout(std::to_string(Running) +
                     " worker services of this user run already, none for "
                     "this link's environment; this link starts none "
                     "(--service-limit)");
  if (Service.Use == ServiceConfig::ByDefault &&
      !visitStartsWorkerService(defaultServiceVisitDirectory(), Name,
                                std::chrono::seconds(Service.IdleLimit)))
    return nullptr;
  std::string Options[] = {
      "--jobs=" + std::to_string(std::max(IdleWorkers, 1u)),
      "--jobs-per-process=" + std::to_string(Workers.JobsPerWorker),
      "--service-idle-limit=" + std::to_string(Service.IdleLimit)};
  if (Error E = startWorkerService(Ulto, Name, Options))
    return GoWithout(toString(std::move(E)) +
                     "; running this link's jobs itself");
  return nullptr;
}

// Where \p Clang's jobs run: the user's worker service when \p Service asks
// for it and one serves this link, else a fork server of the link's own.
// Must be called while the process has one thread.
Expected<std::unique_ptr<ForkServer>>
startClangWorkers(StringRef Clang, const ForkServer::Options &Workers,
                  const ServiceConfig &Service, unsigned IdleWorkers) {
  if (Service.Use != ServiceConfig::No)
    if (std::unique_ptr<ForkServer> Joined =
            joinWorkerService(Clang, Workers, Service, IdleWorkers))
      return std::move(Joined);
  return startClangServer(Clang, Workers);
}

Expected<Executors> startExecutors(DistConfig &Config, const JobList &List,
                                   DistOptions &Opts, ReadyServer Ready) {
  Executors E;
  std::optional<std::string> Clang22 = findClang22(List.compiler());
  if (!Config.Spawn && Clang22) {
    // The one started while lld read the inputs, if it fits this link.
    if (Ready.Server && Ready.Clang == *Clang22 &&
        Ready.Workers.JobsPerWorker == Config.Workers.JobsPerWorker &&
        Ready.Workers.WorkerMemory == Config.Workers.WorkerMemory) {
      E.Server = std::move(Ready.Server);
    } else {
      Ready.Server.reset();
      Expected<std::unique_ptr<ForkServer>> Started = startClangWorkers(
          *Clang22, Config.Workers, Config.Service, Config.Parallelism);
      if (Started)
        E.Server = std::move(*Started);
      else
        writeMessage(errs(), ToolName, MessageKind::Warning,
                     toString(Started.takeError()) +
                         "; starting a process per job");
    }
  }
  // One limit for the local jobs of every link on the machine, unless make
  // passed a jobserver down; opened after the fork, which must not inherit
  // the slots' descriptors.
  if (!hasMakeJobserver()) {
    Expected<std::unique_ptr<SlotPool>> Slots =
        SlotPool::open(defaultSlotDirectory(), Config.Parallelism);
    if (Slots)
      E.Slots = std::move(*Slots);
    else
      writeMessage(errs(), ToolName, MessageKind::Warning,
                   toString(Slots.takeError()) +
                       "; limiting the jobs of this link only");
  }
  E.Local = std::make_unique<LocalExecutor>(E.Server.get(), E.Slots.get());
  Opts.AskVersion = E.Local->versionProbe();
  if (Config.Executor != ExecutorKind::Remote)
    return E;

  RemoteExecutorOptions &Remote = Config.RemoteOptions;
  Remote.Server = *Config.Remote;
  Remote.LocalJobs = Opts.Parallelism;
  bool Fallback = Remote.LocalFallback;
  Expected<const RemotePlugin &> Plugin = remotePlugin();
  Expected<std::unique_ptr<Executor>> Connected =
      Plugin ? Plugin->Connect(std::move(Remote), *E.Local)
             : Expected<std::unique_ptr<Executor>>(Plugin.takeError());
  if (Connected) {
    E.Remote = std::move(*Connected);
    // Remote jobs wait on the network, not on this machine's cores.
    Opts.Parallelism = Config.RemoteJobs;
    Opts.Jobserver = false;
  } else if (Fallback) {
    writeMessage(errs(), ToolName, MessageKind::Warning,
                 toString(Connected.takeError()) +
                     "; running every job locally");
  } else {
    return Connected.takeError();
  }
  return E;
}

// Runs the backends (under LLVM's profiler when --time-trace asks).
DistSummary runTraced(const DistConfig &Config, const JobList &List,
                      Executor &Exec, DistOptions &Opts) {
  Opts.TimeTrace = !Config.TraceFile.empty();
  Opts.CompleteShards = true;
  TerminalStatus Status(errs(), ToolName, Config.Progress, List.Jobs.size());
  return runBackends(List, Exec, Opts, Status);
}

Error writeTrace(const DistConfig &Config) {
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

} // namespace

Expected<ClangWorkersFn> ulto::loadClangWorkers() {
#ifdef ULTO_DIST_PLUGIN
  std::string Path = installedLibrary(thisProgram(), "libUltoClangWorkers.so");
  std::string Error;
  sys::DynamicLibrary Loaded =
      sys::DynamicLibrary::getPermanentLibrary(Path.c_str(), &Error);
  auto *Entry = Loaded.isValid()
                    ? reinterpret_cast<ClangWorkersFn (*)()>(
                          Loaded.getAddressOfSymbol("ultoClangWorkers"))
                    : nullptr;
  if (!Entry) {
    // dlerror() names the file too.
    StringRef Why = Error;
    Why.consume_front(Path + ": ");
    return createStringError("cannot load %s: %s", Path.c_str(),
                             Why.empty() ? "it has no ultoClangWorkers"
                                         : Why.str().c_str());
  }
  return Entry();
#else
  return &clangWorkers;
#endif
}

static int runDist(ArrayRef<const char *> Args,
                   function_ref<void(int)> Finished, ReadyServer Ready);

int ulto::distAwaitCommand(int FD, int Checks, ArrayRef<const char *> Options) {
  // While lld reads the inputs: the fork server for clang-22's jobs, as most
  // links' are with the default worker options.
  ReadyServer Ready;
  // A worker for each job the link runs at once, by default.
  if (Expected<unsigned> Slots = defaultSlotCount())
    Ready.Workers.IdleWorkers = *Slots;
  else
    consumeError(Slots.takeError()); // The link's own options say why.
  // The link's options that choose its workers, from $ULTO_DIST_FLAGS and
  // \p Options (what ld.ulto knows of them): their errors are the link's to
  // report, once its command has come.
  ServiceConfig Service;
  {
    BumpPtrAllocator Alloc;
    StringSaver Saver(Alloc);
    unsigned MissingIndex, MissingCount;
    opt::InputArgList Args = commandOptTable().ParseArgs(
        expandArgs(Options, Saver), MissingIndex, MissingCount);
    consumeError(readServiceConfig(Args, Service));
    consumeError(
        parseCount(Args, OPT_jobs_per_process, Ready.Workers.JobsPerWorker));
  }
  if (std::optional<std::string> Clang =
          findClang22(ULTO_LLVM_TOOLS_DIR "/clang")) {
    Expected<std::unique_ptr<ForkServer>> Started = startClangWorkers(
        *Clang, Ready.Workers, Service, Ready.Workers.IdleWorkers);
    if (Started) {
      Ready.Server = std::move(*Started);
      Ready.Clang = *Clang;
    } else {
      consumeError(Started.takeError()); // The link's own start says why.
    }
  }
  Expected<std::optional<std::vector<std::string>>> Command =
      readAttachedCommand(FD);
  if (!Command)
    return reportErrors(ToolName, Command.takeError());
  // The link ended before its distributor ran.
  if (!*Command)
    return 0;
  std::vector<const char *> Args;
  for (const std::string &Arg : **Command)
    Args.push_back(Arg.c_str());
  // lld's distributor arguments begin with the multi-tool's command.
  if (Args.empty() || StringRef(Args[0]) != "dist")
    return reportErrors(
        ToolName, createStringError("the command sent is not ulto dist's"));
  std::optional<Error> Replied;
  auto Reply = [&](int Code) { Replied = replyExitStatus(FD, Code); };
  int Code = 1;
  // ld.ulto names what its checks refused.
  Expected<bool> Passed =
      Checks < 0 ? Expected<bool>(true) : readChecksVerdict(Checks);
  if (!Passed)
    reportErrors(ToolName, Passed.takeError());
  else if (*Passed)
    Code = runDist(ArrayRef(Args).drop_front(), Reply, std::move(Ready));
  if (!Replied)
    Reply(Code);
  if (*Replied)
    return reportErrors(ToolName, std::move(*Replied));
  return Code;
}

// The descriptor of \p Option (--await-command= or --await-checks=) in
// \p Arg, or -1 after reporting an error.
static int awaitedDescriptor(StringRef Arg, StringRef Option) {
  if (!Arg.starts_with(Option)) {
    reportErrors(ToolName, createStringError("expected %sFD, not '%s'",
                                             Option.data(), Arg.str().c_str()));
    return -1;
  }
  StringRef FDText = Arg.drop_front(Option.size());
  int FD;
  if (FDText.getAsInteger(10, FD) || FD < 0) {
    reportErrors(ToolName,
                 createStringError("invalid %s value '%s'", Option.data(),
                                   FDText.str().c_str()));
    return -1;
  }
  return FD;
}

// --serve-workers=NAME: the worker service, which a link's
// joinWorkerService() started in a session of its own; serves until idle.
static int serveWorkers(ArrayRef<const char *> Args) {
  unsigned MissingIndex, MissingCount;
  opt::InputArgList ArgList =
      commandOptTable().ParseArgs(Args, MissingIndex, MissingCount);
  ForkServer::Options Workers;
  ServiceConfig Service;
  unsigned IdleWorkers = 1;
  Error Errors = unknownArguments(ArgList);
  addError(Errors, parseCount(ArgList, OPT_jobs, IdleWorkers));
  addError(Errors,
           parseCount(ArgList, OPT_jobs_per_process, Workers.JobsPerWorker));
  addError(Errors, readServiceConfig(ArgList, Service));
  if (Errors)
    return reportErrors(ToolName, std::move(Errors));
  Workers.IdleWorkers = IdleWorkers;
  std::optional<std::string> Clang = findClang22(ULTO_LLVM_TOOLS_DIR "/clang");
  if (!Clang)
    return reportErrors(ToolName,
                        createStringError("no clang-22 at " ULTO_LLVM_TOOLS_DIR
                                          "/clang for the worker service"));
  Expected<int> Listening =
      listenAsWorkerService(ArgList.getLastArgValue(OPT_serve_workers));
  if (!Listening)
    return reportErrors(ToolName, Listening.takeError());
  if (*Listening < 0)
    return 0; // Another link's service came first.
  // What ps and top show.
  prctl(PR_SET_NAME, "ulto workers");
  Expected<ClangWorkersFn> Load = loadClangWorkers();
  if (!Load)
    return reportErrors(ToolName, Load.takeError());
  ForkServer::MainFn Main = (*Load)(*Clang, Workers);
  ForkServer::serve(*Listening, Main, Workers,
                    std::chrono::seconds(Service.IdleLimit));
}

int ulto::distMain(ArrayRef<const char *> Args) {
  // Before anything is opened: make's jobserver only if it is one.
  if (vetInheritedJobserver().Kind == JobserverCheck::Unusable)
    writeMessage(errs(), ToolName, MessageKind::Note, JobserverUnavailableNote);
  if (!Args.empty() && StringRef(Args[0]).starts_with("--serve-workers="))
    return serveWorkers(Args);
  if (Args.empty() || !StringRef(Args[0]).starts_with(AwaitCommandOption))
    return runDist(Args, nullptr, ReadyServer());
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
      commandOptTable().ParseArgs(Args, MissingIndex, MissingCount);
  for (const opt::Arg *A : Given) {
    std::string Option = A->getAsString(Given);
    if (isWorkerOption(Option))
      continue;
    ArrayRef<StringLiteral> Workers(WorkerOptions);
    std::string Allowed =
        join(Workers.drop_back(), ", ") + " and " + Workers.back().str();
    return reportErrors(
        ToolName,
        createStringError("%s takes no other options but %s, %s; "
                          "not '%s'",
                          AwaitCommandOption.data(), AwaitChecksOption.data(),
                          Allowed.c_str(), Option.c_str()));
  }
  return distAwaitCommand(FD, Checks, Args);
}

// Runs the jobs of the list that \p Args name. \p Finished, if given, gets
// the exit status as soon as the link may go on: before the fork server and
// its workers end, which takes milliseconds the link need not wait for.
static int runDist(ArrayRef<const char *> Args,
                   function_ref<void(int)> Finished, ReadyServer Ready) {
  // Ends with the link: when the linker dies, or on an interrupt, the jobs
  // stop and the files written for them go (Cancellation.h).
  Cancellation Cancel(ToolName);
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  std::optional<opt::InputArgList> ArgList = commandOptTable().parse(
      expandArgs(Args, Saver), "ulto dist [options] <jobs.json>",
      "Run the ThinLTO backend jobs of a distributed link");
  if (!ArgList)
    return 0;
  Expected<DistConfig> Config = readDistConfig(*ArgList);
  if (!Config)
    return reportErrors(ToolName, Config.takeError());
  if (Config->CheckRemote)
    return checkRemote(*Config->Remote);
  // The trace begins here, to show what comes before the first job too.
  if (!Config->TraceFile.empty())
    timeTraceProfilerInitialize(/*TimeTraceGranularity=*/0, ToolName);

  // The jobs lld wrote, and their ninja file when asked for.
  Expected<JobList> List = [&] {
    TimeTraceScope Scope("read the job list");
    return readJobList(Config->JobList);
  }();
  if (!List)
    return reportErrors(ToolName, List.takeError());
  std::optional<TimeTraceScope> Whole(std::in_place, "ulto dist",
                                      List->LinkerOutput);
  Cancel.watch(Config->JobList, *List, Config->Progress);
  warnAboutStockLinker(ToolName, *List);
  if (!Config->NinjaFile.empty())
    if (Error E = writeAtomically(Config->NinjaFile, [&](raw_ostream &OS) {
          writeNinjaFile(*List, OS);
        }))
      return reportErrors(ToolName, std::move(E));

  DistOptions Opts;
  Opts.Parallelism = Config->Parallelism;
  Opts.WaitLimit = std::chrono::seconds(Config->WaitLimit);
  Expected<SharedWork> Shared = [&] {
    TimeTraceScope Scope("open the cache");
    return openCache(*Config);
  }();
  if (!Shared)
    return reportErrors(ToolName, Shared.takeError());
  Opts.Cache = Shared->Cache.get();
  Opts.CacheReadOnly = Shared->ReadOnly;
  if (Shared->Running)
    Opts.Running = &*Shared->Running;

  Expected<Executors> Exec = [&] {
    TimeTraceScope Scope("start the executors");
    return startExecutors(*Config, *List, Opts, std::move(Ready));
  }();
  if (!Exec)
    return reportErrors(ToolName, Exec.takeError());

  // The backends, the trace, the summary; the link uses the objects only
  // after a zero exit.
  DistSummary Summary = runTraced(*Config, *List, Exec->chosen(), Opts);
  Whole.reset();
  bool Ok = Summary.Failed == 0;
  if (Error E = writeTrace(*Config)) {
    reportErrors(ToolName, std::move(E));
    Ok = false;
  }
  // One write: concurrent links may share a stderr (unbuffered).
  if (!Config->Quiet)
    errs() << (ToolName + ": " +
               Summary.format(Exec->chosen().name(), Exec->chosen().report()) +
               "\n")
                  .str();
  int Code = Ok ? 0 : 1;
  if (Finished)
    Finished(Code);
  return Code;
}
