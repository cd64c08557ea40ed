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

#include "Commands.h"

#include "ulto/Distributor/BackendCache.h"
#include "ulto/Distributor/Distributor.h"
#include "ulto/Distributor/Executor.h"
#include "ulto/Distributor/ForkServer.h"
#include "ulto/Distributor/JobList.h"
#include "ulto/Distributor/NinjaFile.h"
#include "ulto/Frontend/ClangDriver.h"
#include "ulto/Remote/Capabilities.h"
#include "ulto/Remote/RemoteConfig.h"
#include "ulto/Remote/RemoteExecutor.h"

#include "clang/Basic/Stack.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ulto;

namespace {

#define ULTO_OPTIONS_INC "DistOpts.inc"
#include "CommandOptTable.def"

constexpr StringLiteral ToolName = "ulto dist";

raw_ostream &error() { return WithColor::error(errs(), ToolName); }

// Writes \p Path whole or not at all.
bool writeFile(StringRef Path, function_ref<void(raw_ostream &)> Write) {
  Error E = writeToOutput(Path, [&](raw_ostream &OS) {
    Write(OS);
    return Error::success();
  });
  if (!E)
    return true;
  error() << toString(std::move(E)) << "\n"; // It names the path.
  return false;
}

// clang-22's executable, as its driver names itself.
std::string Clang22Path;

// Whether \p Compiler is the clang-22 whose libclang-cpp ulto runs on: then
// ulto can run its jobs itself, with the very same code.
bool isClang22(StringRef Compiler) {
  ErrorOr<std::string> Path = sys::findProgramByName(Compiler);
  SmallString<256> Real, Ours;
  if (!Path || sys::fs::real_path(*Path, Real) ||
      sys::fs::real_path(ULTO_LLVM_TOOLS_DIR "/clang", Ours) || Real != Ours)
    return false;
  Clang22Path = std::string(Ours);
  return true;
}

// A fork server's child: clang-22's driver on the job's command line.
int runClangJob(ArrayRef<const char *> Argv) {
  clang::noteBottomOfStack();
  return runClangDriver(Argv, Clang22Path);
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

// --check-remote: what the server offers and how far away it is.
int checkRemote(const RemoteConfig &Config) {
  Expected<RemoteCapabilities> Caps =
      fetchCapabilities(Config, std::chrono::seconds(10));
  if (!Caps) {
    error() << toString(Caps.takeError()) << "\n";
    return 1;
  }
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
bool parseCount(const opt::InputArgList &ArgList, OptSpecifier Option,
                unsigned &Value, bool AllowZero = false) {
  const opt::Arg *A = ArgList.getLastArg(Option);
  if (!A)
    return true;
  if (!StringRef(A->getValue()).getAsInteger(10, Value) &&
      (Value != 0 || AllowZero))
    return true;
  error() << "invalid --" << A->getOption().getName().drop_back() << " value '"
          << A->getValue() << "': expected a "
          << (AllowZero ? "number" : "positive number") << "\n";
  return false;
}

// The remote executor's options; false after reporting what is wrong.
bool remoteOptions(const opt::InputArgList &ArgList,
                   RemoteExecutorOptions &Options) {
  bool Ok = true;
  for (StringRef Property : ArgList.getAllArgValues(OPT_remote_platform)) {
    auto [Name, Value] = Property.split('=');
    if (Name.empty() || Name.size() == Property.size()) {
      error() << "invalid --remote-platform value '" << Property
              << "': expected NAME=VALUE\n";
      Ok = false;
    }
    Options.Platform.push_back({Name.str(), Value.str()});
  }
  Options.Compiler = ArgList.getLastArgValue(OPT_remote_compiler).str();
  Options.ShipCompiler = ArgList.hasArg(OPT_remote_ship_compiler);
  if (Options.ShipCompiler && !Options.Compiler.empty()) {
    error() << "--remote-compiler and --remote-ship-compiler exclude each "
               "other\n";
    Ok = false;
  }
  unsigned Timeout = Options.Timeout.count();
  Ok &= parseCount(ArgList, OPT_remote_retries, Options.Retries,
                   /*AllowZero=*/true);
  Ok &= parseCount(ArgList, OPT_remote_timeout, Timeout);
  Options.Timeout = std::chrono::seconds(Timeout);
  Options.LocalFallback = !ArgList.hasArg(OPT_no_local_fallback);
  return Ok;
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

} // namespace

int ulto::distMain(ArrayRef<const char *> Args) {
  CommandOptTable Table;
  opt::InputArgList ArgList;
  bool BadArgs;
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  if (!Table.parse(expandArgs(Args, Saver), ToolName,
                   "ulto dist [options] <jobs.json>",
                   "Run the ThinLTO backend jobs of a distributed link",
                   ArgList, BadArgs))
    return 0;
  std::optional<RemoteConfig> Remote;
  if (ArgList.hasArg(OPT_remote)) {
    Expected<RemoteConfig> Config = remoteConfig(ArgList);
    if (!Config) {
      error() << toString(Config.takeError()) << "\n";
      return 1;
    }
    Remote = std::move(*Config);
  }
  if (ArgList.hasArg(OPT_check_remote)) {
    if (!Remote) {
      error() << "--check-remote needs --remote=grpc://host:port\n";
      return 1;
    }
    return BadArgs ? 1 : checkRemote(*Remote);
  }
  DistOptions Opts;
  unsigned RemoteJobs = 32;
  BadArgs |= !parseCount(ArgList, OPT_jobs, Opts.Parallelism);
  BadArgs |= !parseCount(ArgList, OPT_remote_jobs, RemoteJobs);
  StringRef ExecutorName =
      ArgList.getLastArgValue(OPT_executor, Remote ? "remote" : "local");
  if (ExecutorName != "local" && ExecutorName != "remote") {
    error() << "unknown executor '" << ExecutorName
            << "'; executors: local, remote\n";
    BadArgs = true;
  } else if (ExecutorName == "remote" && !Remote) {
    error() << "--executor=remote needs --remote=grpc://host:port\n";
    BadArgs = true;
  }
  RemoteExecutorOptions RemoteOpts;
  if (Remote)
    BadArgs |= !remoteOptions(ArgList, RemoteOpts);
  StringRef Progress = ArgList.getLastArgValue(OPT_progress, "auto");
  std::optional<bool> ShowProgress =
      StringSwitch<std::optional<bool>>(Progress)
          .Case("auto", sys::Process::StandardErrIsDisplayed())
          .Case("always", true)
          .Case("never", false)
          .Default(std::nullopt);
  if (!ShowProgress) {
    error() << "invalid --progress value '" << Progress
            << "': expected auto, always or never\n";
    BadArgs = true;
  }
  std::vector<std::string> Inputs = ArgList.getAllArgValues(OPT_INPUT);
  if (Inputs.size() != 1 && !BadArgs) {
    error() << (Inputs.empty() ? "no job list given"
                               : "expected one job list, got " +
                                     std::to_string(Inputs.size()))
            << "\n";
    BadArgs = true;
  }
  if (BadArgs)
    return 1;

  Expected<JobList> List = readJobList(Inputs[0]);
  if (!List) {
    error() << toString(List.takeError()) << "\n";
    return 1;
  }

  if (const opt::Arg *A = ArgList.getLastArg(OPT_emit_ninja))
    if (!writeFile(A->getValue(),
                   [&](raw_ostream &OS) { writeNinjaFile(*List, OS); }))
      return 1;

  std::string CacheDir =
      ArgList.getLastArgValue(OPT_cache_dir, defaultCacheDirectory()).str();
  if (CacheDir.empty()) {
    error() << "--cache-dir= needs a directory\n";
    return 1;
  }
  std::string Policy =
      ArgList.getLastArgValue(OPT_cache_policy, DefaultCachePolicy).str();
  if (Error E = checkCachePolicy(Policy)) {
    error() << toString(std::move(E)) << "\n";
    return 1;
  }
  std::unique_ptr<BackendCache> Cache;
  if (!ArgList.hasArg(OPT_no_cache)) {
    Expected<std::unique_ptr<BackendCache>> Opened =
        BackendCache::open(CacheDir);
    if (!Opened) {
      // A link must not fail for want of a cache.
      WithColor::warning(errs(), ToolName)
          << toString(Opened.takeError()) << "; running without a cache\n";
    } else {
      Cache = std::move(*Opened);
      Opts.Cache = Cache.get();
    }
  }
  // Pruning before the link never removes what this link stores.
  if (Cache)
    if (Error E = prunePeriodically(CacheDir, Policy)) {
      error() << toString(std::move(E)) << "\n";
      return 1;
    }

  // Before any thread starts: the server is forked from this process.
  std::unique_ptr<ForkServer> Server;
  if (!ArgList.hasArg(OPT_spawn) && isClang22(List->compiler())) {
    InitializeAllTargets();
    Expected<std::unique_ptr<ForkServer>> Started =
        ForkServer::start(runClangJob);
    if (Started)
      Server = std::move(*Started);
    else
      WithColor::warning(errs(), ToolName)
          << toString(Started.takeError()) << "; starting a process per job\n";
  }

  StringRef TraceFile = ArgList.getLastArgValue(OPT_time_trace);
  Opts.TimeTrace = !TraceFile.empty();
  if (Opts.TimeTrace)
    timeTraceProfilerInitialize(/*TimeTraceGranularity=*/0, ToolName);

  LocalExecutor Local(Server.get());
  Executor *Exec = &Local;
  std::unique_ptr<RemoteExecutor> RemoteExec;
  if (ExecutorName == "remote") {
    RemoteOpts.Server = *Remote;
    RemoteOpts.LocalJobs = Opts.Parallelism;
    bool Fallback = RemoteOpts.LocalFallback;
    Expected<std::unique_ptr<RemoteExecutor>> Connected =
        RemoteExecutor::connect(std::move(RemoteOpts), Local);
    if (Connected) {
      RemoteExec = std::move(*Connected);
      Exec = RemoteExec.get();
      // Remote jobs wait on the network, not on this machine's cores.
      Opts.Parallelism = RemoteJobs;
      Opts.Jobserver = false;
    } else if (Fallback) {
      WithColor::warning(errs(), ToolName)
          << toString(Connected.takeError()) << "; running every job locally\n";
    } else {
      error() << toString(Connected.takeError()) << "\n";
      return 1;
    }
  }

  DistSummary Summary;
  {
    TimeTraceScope Scope("ulto dist", List->LinkerOutput);
    TerminalStatus Status(errs(), ToolName, *ShowProgress, List->Jobs.size());
    Summary = runBackends(*List, *Exec, Opts, Status);
  }

  bool Ok = Summary.Failed == 0;
  if (Opts.TimeTrace) {
    Ok &= writeFile(TraceFile, [&](raw_ostream &OS) {
      SmallString<0> Trace;
      raw_svector_ostream TraceOS(Trace);
      timeTraceProfilerWrite(TraceOS);
      OS << Trace;
    });
    timeTraceProfilerCleanup();
  }
  if (!ArgList.hasArg(OPT_quiet))
    errs() << ToolName << ": " << Summary.format(Exec->name(), Exec->report())
           << "\n";
  return Ok ? 0 : 1;
}
