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

#include "ulto/Dist/BackendCache.h"
#include "ulto/Dist/Distributor.h"
#include "ulto/Dist/Executor.h"
#include "ulto/Dist/ForkServer.h"
#include "ulto/Dist/JobList.h"
#include "ulto/Dist/NinjaFile.h"
#include "ulto/Frontend/ClangDriver.h"
#include "ulto/Remote/Capabilities.h"
#include "ulto/Remote/RemoteConfig.h"

#include "clang/Basic/Stack.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
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

// --check-remote: what the server offers and how far away it is.
int checkRemote(const opt::InputArgList &ArgList) {
  StringRef URL = ArgList.getLastArgValue(OPT_remote);
  if (!ArgList.hasArg(OPT_check_remote)) {
    error() << "backend jobs do not run remotely yet; --remote works with "
               "--check-remote only\n";
    return 1;
  }
  if (URL.empty()) {
    error() << "--check-remote needs --remote=grpc://host:port\n";
    return 1;
  }
  Expected<RemoteConfig> Config = parseRemoteURL(URL);
  if (!Config) {
    error() << toString(Config.takeError()) << "\n";
    return 1;
  }
  Config->Instance = ArgList.getLastArgValue(OPT_remote_instance).str();
  Expected<RemoteCapabilities> Caps = fetchCapabilities(
      *Config, ULTO_VERSION, std::chrono::milliseconds(10000));
  if (!Caps) {
    error() << toString(Caps.takeError()) << "\n";
    return 1;
  }
  outs() << "remote " << URL;
  if (!Config->Instance.empty())
    outs() << " (instance '" << Config->Instance << "')";
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

} // namespace

int ulto::distMain(ArrayRef<const char *> Args) {
  CommandOptTable Table;
  opt::InputArgList ArgList;
  bool BadArgs;
  if (!Table.parse(Args, ToolName, "ulto dist [options] <jobs.json>",
                   "Run the ThinLTO backend jobs of a distributed link",
                   ArgList, BadArgs))
    return 0;
  if (ArgList.hasArg(OPT_check_remote) || ArgList.hasArg(OPT_remote))
    return BadArgs ? 1 : checkRemote(ArgList);
  DistOptions Opts;
  if (const opt::Arg *A = ArgList.getLastArg(OPT_jobs)) {
    if (StringRef(A->getValue()).getAsInteger(10, Opts.Parallelism) ||
        Opts.Parallelism == 0) {
      error() << "invalid --jobs value '" << A->getValue()
              << "': expected a positive number\n";
      BadArgs = true;
    }
  }
  StringRef ExecutorName = ArgList.getLastArgValue(OPT_executor, "local");
  if (ExecutorName != "local") {
    error() << "unknown executor '" << ExecutorName << "'; executors: local\n";
    BadArgs = true;
  }
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
  Opts.Progress = *ShowProgress;

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
  DistSummary Summary;
  {
    TimeTraceScope Scope("ulto dist", List->LinkerOutput);
    Summary = runBackends(*List, Local, Opts, errs());
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
    errs() << Summary.format(Local.name()) << "\n";
  return Ok ? 0 : 1;
}
