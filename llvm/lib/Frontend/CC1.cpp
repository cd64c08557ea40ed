//===- CC1.cpp - ulto's -cc1 ----------------------------------------------===//
//
// clang's cc1_main lives in clang's driver binary, not in libclang-cpp, so
// ulto carries the same sequence: buffered argument diagnostics, the
// CompilerInstance, timers and time traces, -disable-free teardown. The
// difference: where a unified LTO pre-link compile goes (UnifiedPreLink).
//
//===----------------------------------------------------------------------===//

#include "ulto/Frontend/CC1.h"
#include "ulto/Frontend/UnifiedPreLink.h"
#include "clang/Basic/DiagnosticDriver.h"
#include "clang/Basic/DiagnosticFrontend.h"
#include "clang/Basic/Stack.h"
#include "clang/CodeGen/ObjectFilePCHContainerWriter.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticBuffer.h"
#include "clang/FrontendTool/Utils.h"
#include "clang/Options/OptionUtils.h"
#include "clang/Serialization/ObjectFilePCHContainerReader.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/BuryPointer.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/Timer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include <sys/resource.h>

using namespace clang;
using namespace llvm;

namespace ulto {
namespace {

// LLVM fatal errors become clang diagnostics, then exit like clang: 70 asks
// the driver for crash diagnostics.
void reportFatalAsDiagnostic(void *UserData, const char *Message,
                             bool GenCrashDiag) {
  auto &Diags = *static_cast<DiagnosticsEngine *>(UserData);
  Diags.Report(diag::err_fe_error_backend) << Message;
  sys::RunInterruptHandlers();
  sys::Process::Exit(GenCrashDiag ? 70 : 1);
}

// Deeply nested code needs the 8 MiB of stack clang asks for.
void ensureSufficientStack() {
  struct rlimit Limit;
  if (getrlimit(RLIMIT_STACK, &Limit) != 0 || Limit.rlim_cur == RLIM_INFINITY ||
      Limit.rlim_cur >= rlim_t(DesiredStackSize))
    return;
  if (Limit.rlim_max == RLIM_INFINITY ||
      Limit.rlim_max >= rlim_t(DesiredStackSize))
    Limit.rlim_cur = DesiredStackSize;
  else
    Limit.rlim_cur = Limit.rlim_max;
  setrlimit(RLIMIT_STACK, &Limit);
}

int printSupportedCPUs(const std::string &TripleStr) {
  Triple T(TripleStr);
  std::string Error;
  const Target *TheTarget = TargetRegistry::lookupTarget(T, Error);
  if (!TheTarget) {
    errs() << Error;
    return 1;
  }
  // The target machine prints the CPU list when asked for "+cpuhelp".
  std::unique_ptr<TargetMachine> TM(TheTarget->createTargetMachine(
      T, "", "+cpuhelp", llvm::TargetOptions(), std::nullopt));
  return 0;
}

// Takes ulto's own options out of the cc1 arguments; clang's parser would
// reject them.
bool takeUltoCC1Options(ArrayRef<const char *> Argv,
                        SmallVectorImpl<const char *> &ClangArgs,
                        UnifiedPreLinkOptions &Options,
                        DiagnosticsEngine &Diags) {
  for (const char *Arg : Argv) {
    StringRef A(Arg);
    if (A.consume_front(IdentityOutputOption)) {
      Options.IdentityOutput = A.str();
    } else if (A.consume_front(UnifiedPipelineOption)) {
      std::optional<UnifiedPipeline> P = parseUnifiedPipeline(A);
      if (!P) {
        Diags.Report(diag::err_drv_invalid_value) << Arg << A;
        return false;
      }
      Options.Pipeline = *P;
    } else if (A == IndirectCallTypesOption || A == NoIndirectCallTypesOption) {
      Options.IndirectCallTypes = A == IndirectCallTypesOption;
    } else {
      ClangArgs.push_back(Arg);
    }
  }
  return true;
}

void writeTimeTrace(const CompilerInstance &Clang) {
  std::error_code EC;
  raw_fd_ostream OS(Clang.getFrontendOpts().TimeTracePath, EC,
                    sys::fs::OF_TextWithCRLF);
  if (!EC)
    timeTraceProfilerWrite(OS);
  timeTraceProfilerCleanup();
}

// As in clang's cc1_main: -gmodules wraps precompiled headers and modules in
// object files.
std::shared_ptr<PCHContainerOperations> createPCHContainerOperations() {
  auto PCHOps = std::make_shared<PCHContainerOperations>();
  PCHOps->registerWriter(std::make_unique<ObjectFilePCHContainerWriter>());
  PCHOps->registerReader(std::make_unique<ObjectFilePCHContainerReader>());
  return PCHOps;
}

// Fills \p Invocation and \p UnifiedOptions from the cc1 arguments; false
// after an error, which \p Diags holds.
bool parseCC1Args(ArrayRef<const char *> Argv, const char *Argv0,
                  bool ProcessRunsOn, CompilerInvocation &Invocation,
                  UnifiedPreLinkOptions &UnifiedOptions,
                  DiagnosticsEngine &Diags) {
  SmallVector<const char *, 256> ClangArgs;
  bool Success = takeUltoCC1Options(Argv, ClangArgs, UnifiedOptions, Diags);
  Success &=
      CompilerInvocation::CreateFromArgs(Invocation, ClangArgs, Diags, Argv0);
  // As clang's tooling does for the many compiles of one process; neither
  // changes what the job writes.
  if (ProcessRunsOn)
    Invocation.getFrontendOpts().DisableFree =
        Invocation.getCodeGenOpts().DisableFree = false;
  return Success;
}

// Runs the job: ulto's unified pre-link, or clang's action.
bool executeCompiler(CompilerInstance &Clang,
                     const UnifiedPreLinkOptions &UnifiedOptions) {
  TimeTraceScope TimeScope("ExecuteCompiler");
  bool TimePasses = Clang.getCodeGenOpts().TimePasses;
  if (TimePasses)
    Clang.createFrontendTimer();
  TimeRegion Timer(TimePasses ? &Clang.getFrontendTimer() : nullptr);
  return isUnifiedPreLink(Clang.getInvocation())
             ? runUnifiedPreLink(Clang, UnifiedOptions)
             : ExecuteCompilerInvocation(&Clang);
}

// Timers still alive under -disable-free print now, as in clang.
void printTimers(const CodeGenOptions &CG) {
  if (CG.TimePassesJson) {
    errs() << "{\n";
    TimerGroup::printAllJSONValues(errs(), "");
    errs() << "\n}\n";
  } else if (!CG.TimePassesStatsFile) {
    TimerGroup::printAll(errs());
  }
  TimerGroup::clearAll();
}

} // namespace

// Registering every target again cost each job of a backend worker 74 us of
// its 2 ms; registered once, they are registered all the same.
void initializeCC1Targets() {
  static const bool Initialized = [] {
    InitializeAllTargets();
    InitializeAllTargetMCs();
    InitializeAllAsmPrinters();
    InitializeAllAsmParsers();
    return true;
  }();
  (void)Initialized;
}

int runCC1(ArrayRef<const char *> Argv, const char *Argv0, void *MainAddr,
           bool ProcessRunsOn) {
  ensureSufficientStack();
  initializeCC1Targets();

  // Argument diagnostics are buffered until the real engine exists.
  DiagnosticOptions DiagOpts;
  auto *DiagsBuffer = new TextDiagnosticBuffer;
  DiagnosticsEngine Diags(DiagnosticIDs::create(), DiagOpts, DiagsBuffer);

  auto Invocation = std::make_shared<CompilerInvocation>();
  UnifiedPreLinkOptions UnifiedOptions;
  bool Success = parseCC1Args(Argv, Argv0, ProcessRunsOn, *Invocation,
                              UnifiedOptions, Diags);
  auto Clang = std::make_unique<CompilerInstance>(
      std::move(Invocation), createPCHContainerOperations());
  FrontendOptions &FE = Clang->getFrontendOpts();
  if (!FE.TimeTracePath.empty())
    timeTraceProfilerInitialize(FE.TimeTraceGranularity, Argv0,
                                FE.TimeTraceVerbose);
  if (FE.PrintSupportedCPUs)
    return printSupportedCPUs(Clang->getTargetOpts().Triple);

  if (Clang->getHeaderSearchOpts().UseBuiltinIncludes &&
      Clang->getHeaderSearchOpts().ResourceDir.empty())
    Clang->getHeaderSearchOpts().ResourceDir =
        GetResourcesPath(Argv0, MainAddr);

  Clang->createVirtualFileSystem(vfs::getRealFileSystem(), DiagsBuffer);
  Clang->createDiagnostics();
  install_fatal_error_handler(reportFatalAsDiagnostic,
                              &Clang->getDiagnostics());
  // The handler points at this job's diagnostics; the next in-process job
  // installs its own.
  scope_exit RemoveHandler(remove_fatal_error_handler);
  DiagsBuffer->FlushDiagnostics(Clang->getDiagnostics());
  if (!Success)
    return 1;

  Success = executeCompiler(*Clang, UnifiedOptions);
  printTimers(Clang->getCodeGenOpts());
  if (timeTraceProfilerEnabled())
    writeTimeTrace(*Clang);

  if (FE.DisableFree) {
    // The diagnostic consumer must flush; everything else is left to exit.
    Clang->getDiagnosticClient().~DiagnosticConsumer();
    BuryPointer(std::move(Clang));
  }
  return !Success;
}

} // namespace ulto
