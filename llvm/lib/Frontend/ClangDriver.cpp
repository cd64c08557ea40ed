//===- ClangDriver.cpp - clang-22's driver, with unified LTO --------------===//
//
// ulto-clang's driver is clang-22's: the same Driver from libclang-cpp, set up
// the way clang's own driver.cpp sets it up, finding the same headers and
// tools, and running its compile jobs in-process through ulto's -cc1. It is a
// library so that ulto dist can run clang-22's backend jobs in-process too.
// What it adds:
//   -funified-lto   ulto's own unified pre-link (see UnifiedPreLink.h),
//   -funified-lto-pipeline=full|thin   which pre-link pipeline runs,
//   -fno-unified-lto-icall-types   no cfi-icall types on every function
//                                  (IndirectCallTypes.h).
// Every compile without those behaves, and writes bytes, as clang-22's. For
// LTO links it picks ld.ulto and the LTO mode, on the targets ulto serves
// (ServedTargets.h) where clang links with a GNU-style ELF linker; on every
// other target the command is clang-22's, jobs and arguments alike.
//
//===----------------------------------------------------------------------===//

#include "ulto/Frontend/ClangDriver.h"
#include "ulto/Frontend/CC1.h"
#include "ulto/Frontend/CC1CommandCache.h"
#include "ulto/Frontend/ServedTargets.h"
#include "ulto/Frontend/UnifiedLTOOptions.h"
#include "clang/Basic/DiagnosticDriver.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/Stack.h"
#include "clang/Config/config.h"
#include "clang/Driver/Action.h"
#include "clang/Driver/Compilation.h"
#include "clang/Driver/Driver.h"
#include "clang/Driver/Job.h"
#include "clang/Driver/Phases.h"
#include "clang/Driver/Tool.h"
#include "clang/Driver/ToolChain.h"
#include "clang/Frontend/ChainedDiagnosticConsumer.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/SerializedDiagnosticPrinter.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "clang/Frontend/Utils.h"
#include "clang/Options/Options.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/Option.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/Timer.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace clang;
using namespace clang::driver;
using namespace llvm;
using namespace llvm::opt;

static std::string getExecutablePath(const char *Argv0,
                                     bool CanonicalPrefixes) {
  if (!CanonicalPrefixes) {
    SmallString<128> Path(Argv0);
    if (!sys::fs::exists(Path))
      if (ErrorOr<std::string> P = sys::findProgramByName(Path))
        Path = *P;
    return std::string(Path);
  }
  // Any symbol in this binary locates it.
  void *P = (void *)(intptr_t)getExecutablePath;
  return sys::fs::getMainExecutable(Argv0, P);
}

// clang -cc1as is not in libclang-cpp; assembler jobs run clang-22's own
// integrated assembler with the very same arguments.
static int runStockIntegratedAssembler(ArrayRef<const char *> ArgV) {
  std::string Clang = ULTO_LLVM_TOOLS_DIR "/clang";
  SmallVector<StringRef, 64> Args = {Clang};
  Args.append(ArgV.begin() + 1, ArgV.end());
  std::string Error;
  int Status = sys::ExecuteAndWait(Clang, Args, std::nullopt, {}, 0, 0, &Error);
  if (Status < 0)
    errs() << "ulto-clang: error: cannot run '" << Clang << "': " << Error
           << '\n';
  return Status;
}

static int runIntegratedTool(SmallVectorImpl<const char *> &ArgV,
                             bool ProcessRunsOn) {
  // Options are global in LLVM; the driver may have used some already.
  cl::ResetAllOptionOccurrences();
  BumpPtrAllocator A;
  cl::ExpansionContext ECtx(A, cl::TokenizeGNUCommandLine);
  if (Error Err = ECtx.expandResponseFiles(ArgV)) {
    errs() << toString(std::move(Err)) << '\n';
    return 1;
  }
  StringRef Tool = ArgV[1];
  if (Tool == "-cc1")
    return ulto::runCC1(ArrayRef(ArgV).slice(2), ArgV[0],
                        (void *)(intptr_t)getExecutablePath, ProcessRunsOn);
  if (Tool == "-cc1as")
    return runStockIntegratedAssembler(ArgV);
  errs() << "error: unknown integrated tool '" << Tool
         << "'. Valid tools include '-cc1' and '-cc1as'.\n";
  return 1;
}

// "ulto-clang++" picks its driver mode as "clang++" does; left in, "ulto"
// would be taken for a target prefix.
static ParsedClangName parseProgramName(StringRef Argv0) {
  StringRef Name = sys::path::filename(Argv0);
  Name.consume_front("ulto-");
  return ToolChain::getTargetAndModeFromProgramName(Name);
}

// ulto's driver options, as taken off the command line.
struct UltoDriverOptions {
  /// -funified-lto-pipeline= and -f[no-]unified-lto-icall-types, as written.
  std::vector<std::string> PreLink;
  bool Distributed = false; ///< -flto=distributed was given.
};

// Takes ulto's driver options off the command line, where clang would reject
// them. -flto=distributed compiles as -flto=thin -funified-lto: distribution
// is a link-time choice, and ld.ulto --lto=distributed links unified bitcode.
static UltoDriverOptions
takeUltoDriverOptions(SmallVectorImpl<const char *> &Args) {
  UltoDriverOptions Opts;
  llvm::erase_if(Args, [&](const char *Arg) {
    StringRef A = Arg ? StringRef(Arg) : StringRef();
    if (!A.starts_with(ulto::UnifiedPipelineOption) &&
        A != ulto::IndirectCallTypesOption &&
        A != ulto::NoIndirectCallTypesOption)
      return false;
    Opts.PreLink.push_back(Arg);
    return true;
  });
  bool UnifiedGiven = false;
  for (const char *&Arg : Args) {
    StringRef A = Arg ? StringRef(Arg) : StringRef();
    UnifiedGiven |= A == "-funified-lto" || A == "-fno-unified-lto";
    if (A == "-flto=distributed") {
      Arg = "-flto=thin";
      Opts.Distributed = true;
    }
  }
  if (Opts.Distributed && !UnifiedGiven)
    Args.push_back("-funified-lto");
  return Opts;
}

// Sets up a driver as clang-22's driver.cpp sets up its own, for the program
// name \p NameParts came from. ulto-clang is installed elsewhere than
// clang-22 but must find the same resource headers, linkers and tools.
static void configureDriver(Driver &D, const ParsedClangName &NameParts) {
  D.setTargetAndMode(NameParts);
  D.ResourceDir = ULTO_CLANG_RESOURCE_DIR;
  D.Dir = ULTO_LLVM_TOOLS_DIR;
}

// Whether the command line links.
static bool isLink(const Driver &D, const InputArgList &List) {
  DerivedArgList DAL(List);
  for (Arg *A : List)
    DAL.append(A);
  return D.getFinalPhase(DAL) == phases::Link;
}

// Whether the command line links, with LTO.
static bool isLTOLink(const Driver &D, const InputArgList &List) {
  const Arg *LTO = List.getLastArg(options::OPT_flto, options::OPT_flto_EQ,
                                   options::OPT_fno_lto);
  return LTO && !LTO->getOption().matches(options::OPT_fno_lto) &&
         isLink(D, List);
}

// Whether a link names ld.ulto by -fuse-ld=ulto and no --ld-path=. clang-22
// would look for ld.ulto on PATH only (its directory is clang-22's), and fail
// on "invalid linker name" where PATH lacks ulto's directory: build systems
// pass -fuse-ld=ulto to every link, their compiler checks' too.
static bool namesLdUlto(const Driver &D, const InputArgList &List) {
  const Arg *UseLd = List.getLastArg(options::OPT_fuse_ld_EQ);
  return UseLd && StringRef(UseLd->getValue()) == "ulto" &&
         !List.hasArg(options::OPT_ld_path_EQ) && isLink(D, List);
}

// Links with the ld.ulto next to ulto-clang; -fuse-ld=lld tells clang the
// linker speaks lld's options.
static void useLdUlto(const Driver &D, SmallVectorImpl<const char *> &Args,
                      StringSaver &Saver) {
  SmallString<256> LdUlto(sys::path::parent_path(D.ClangExecutable));
  sys::path::append(LdUlto, "ld.ulto");
  Args.push_back("-fuse-ld=lld");
  Args.push_back(Saver.save("--ld-path=" + LdUlto).data());
}

// The target clang-22's driver picks for a command line, and how it links.
struct LinkTarget {
  std::string Triple;  ///< The default toolchain's, for messages.
  bool Served = false; ///< ulto serves the target (isServedTarget).
  bool LdUlto = false; ///< Served, and its LTO links can be ld.ulto's.
};

// The link tools of clang-22's toolchains that run the linker -fuse-ld= and
// --ld-path= name with GNU ld's command line: Linux, Hurd and OHOS ("GNU"),
// the BSDs, Fuchsia, Haiku and bare-metal ELF. -fuse-ld=lld --ld-path= gives
// their links to ld.ulto with lld's spelling of the LTO options. Others run a
// linker of their own whatever -fuse-ld= says (Solaris, Hexagon,
// PlayStation), or gcc (generic ELF). -ccc-print-bindings shows the names.
static bool isGNUStyleLinker(StringRef ToolName) {
  static constexpr llvm::StringLiteral Names[] = {
      "GNU::Linker",     "freebsd::Linker",   "netbsd::Linker",
      "openbsd::Linker", "dragonfly::Linker", "fuchsia::Linker",
      "haiku::Linker",   "baremetal::Linker"};
  return llvm::is_contained(Names, ToolName);
}

// The options clang's driver answers before it builds any job (its
// HandleImmediateArgs), printing.
static bool isImmediate(const Arg &A) {
  static const OptSpecifier Immediate[] = {
      options::OPT_dumpmachine,
      options::OPT_dumpversion,
      options::OPT__print_diagnostic_categories,
      options::OPT_help,
      options::OPT__help_hidden,
      options::OPT__version,
      options::OPT_v,
      options::OPT__HASH_HASH_HASH,
      options::OPT_print_supported_cpus,
      options::OPT_print_supported_extensions,
      options::OPT_print_enabled_extensions,
      options::OPT_print_resource_dir,
      options::OPT_print_search_dirs,
      options::OPT_print_std_module_manifest_path,
      options::OPT_print_runtime_dir,
      options::OPT_print_diagnostic_options,
      options::OPT_print_file_name_EQ,
      options::OPT_print_prog_name_EQ,
      options::OPT_autocomplete,
      options::OPT_print_libgcc_file_name,
      options::OPT_print_multi_lib,
      options::OPT_print_multi_flags,
      options::OPT_print_multi_directory,
      options::OPT_print_target_triple,
      options::OPT_print_effective_triple,
      options::OPT_print_targets};
  return llvm::any_of(Immediate,
                      [&](OptSpecifier O) { return A.getOption().matches(O); });
}

// Asks clang-22's driver which toolchain it picks for \p Args: config files,
// program-name prefixes, --target and -m32 count as clang counts them, so
// ulto does not guess. A second driver, which reports nothing, builds the
// command line without its inputs and without the options that print; it
// picks the toolchain and builds no job.
static LinkTarget findLinkTarget(StringRef Path,
                                 const ParsedClangName &NameParts,
                                 ArrayRef<const char *> Args) {
  unsigned MissingIndex, MissingCount;
  InputArgList List =
      getDriverOptTable().ParseArgs(Args.slice(1), MissingIndex, MissingCount);
  ArgStringList ProbeArgs = {Args[0]};
  for (const Arg *A : List) {
    const Option &O = A->getOption();
    if (O.getKind() != Option::InputClass && !O.hasFlag(options::LinkerInput) &&
        !isImmediate(*A))
      A->render(List, ProbeArgs);
  }

  DiagnosticOptions DiagOpts;
  DiagnosticsEngine Quiet(DiagnosticIDs::create(), DiagOpts,
                          new IgnoringDiagConsumer);
  // Its own file system: -working-directory must not move this process.
  Driver Probe(Path, sys::getDefaultTargetTriple(), Quiet,
               "clang LLVM compiler", vfs::createPhysicalFileSystem());
  configureDriver(Probe, NameParts);
  std::unique_ptr<Compilation> C(Probe.BuildCompilation(ProbeArgs));
  if (!C)
    return {};
  const ToolChain &TC = C->getDefaultToolChain();
  LinkTarget Target;
  Target.Triple = TC.getTripleString();
  Target.Served = ulto::isServedTarget(TC.getTriple());
  ActionList NoInputs;
  LinkJobAction Link(NoInputs, types::TY_Image);
  const Tool *Linker = Target.Served ? TC.SelectTool(Link) : nullptr;
  Target.LdUlto = Linker && isGNUStyleLinker(Linker->getName());
  return Target;
}

// Whether the command line gives the linker an LTO mode itself
// (-Wl,--lto=full, -Xlinker --lto=full). That is the user's choice, and must
// not be overridden by the mode of the last -flto=: CMake's
// INTERPROCEDURAL_OPTIMIZATION puts its -flto=thin after the project's flags.
static bool linkerModeGiven(const InputArgList &List) {
  for (const Arg *A :
       List.filtered(options::OPT_Wl_COMMA, options::OPT_Xlinker))
    for (StringRef V : A->getValues())
      if (V.starts_with("--lto=") || V.starts_with("-lto="))
        return true;
  return false;
}

// Which linker a link names: "ulto" or "lld" also by a path to ld.ulto or
// ld.lld (-fuse-ld=PATH or --ld-path=PATH; Meson passes the path CC_LD
// gives), else what -fuse-ld= says.
static StringRef linkerKind(const InputArgList &List) {
  StringRef Linker = List.getLastArgValue(options::OPT_fuse_ld_EQ);
  StringRef Name = sys::path::filename(
      List.getLastArgValue(options::OPT_ld_path_EQ, Linker));
  if (Name == "ld.ulto")
    return "ulto";
  if (Name == "ld.lld" || Name.starts_with("ld.lld-"))
    return "lld";
  return Linker;
}

// An LTO link for a target ld.ulto serves uses ld.ulto (next to ulto-clang)
// unless the user chose a linker, and tells ld.ulto or lld the LTO mode the
// -flto= flag names; clang passes none, so unified bitcode would always link
// as ThinLTO. A -funified-lto link gets --lto=; any other link with ld.ulto
// gets --lto-if-unified=, which ld.ulto applies if its bitcode is unified:
// other bitcode had its mode fixed when it was compiled.
static void chooseLinkTimeLTO(const Driver &D, const InputArgList &List,
                              const UltoDriverOptions &Opts,
                              SmallVectorImpl<const char *> &Args,
                              StringSaver &Saver) {
  StringRef UseLd = List.getLastArgValue(options::OPT_fuse_ld_EQ);
  StringRef Linker = linkerKind(List);
  if (!List.hasArg(options::OPT_ld_path_EQ) &&
      (UseLd.empty() || UseLd == "ulto")) {
    useLdUlto(D, Args, Saver);
    Linker = "ulto";
  }
  bool Unified = List.hasFlag(options::OPT_funified_lto,
                              options::OPT_fno_unified_lto, false);
  if ((Linker != "ulto" && Linker != "lld") || linkerModeGiven(List))
    return;
  const Arg *LTO = List.getLastArg(options::OPT_flto, options::OPT_flto_EQ);
  StringRef Mode = LTO->getOption().matches(options::OPT_flto)
                       ? "full"
                       : StringRef(LTO->getValue());
  if (Opts.Distributed)
    Mode = "distributed";
  if (Mode != "thin" && Mode != "full" && Mode != "distributed")
    return;
  if (Unified || Opts.Distributed)
    Args.push_back(Saver.save("-Wl,--lto=" + Mode).data());
  // Without -funified-lto here, the objects may be unified or not: ld.ulto
  // applies the mode to unified bitcode only, and other bitcode keeps the
  // mode it was compiled for, as with lld.
  else if (Linker == "ulto")
    Args.push_back(Saver.save("-Wl,--lto-if-unified=" + Mode).data());
}

// Whether a cc1 job compiles for a target ulto serves (its -triple); ulto's
// -cc1 decides alike (UnifiedPreLink.h).
static bool isForServedTarget(ArrayRef<const char *> CC1Args) {
  const auto *It = llvm::find_if(
      CC1Args, [](const char *A) { return StringRef(A) == "-triple"; });
  return It != CC1Args.end() && It + 1 != CC1Args.end() &&
         ulto::isServedTarget(llvm::Triple(*(It + 1)));
}

// Gives ulto's options to the cc1 jobs that compile unified bitcode for the
// targets ulto serves, as cc1 arguments, so that -### prints commands that
// reproduce the compile.
static void applyUltoOptions(Compilation &C, const Driver &D,
                             ArrayRef<std::string> Taken) {
  ulto::UnifiedPipeline Pipeline = ulto::UnifiedPipeline::Full;
  bool IndirectCallTypes = true;
  for (StringRef Arg : Taken) {
    if (Arg == ulto::IndirectCallTypesOption ||
        Arg == ulto::NoIndirectCallTypesOption) {
      IndirectCallTypes = Arg == ulto::IndirectCallTypesOption;
      continue;
    }
    StringRef Value = Arg.substr(ulto::UnifiedPipelineOption.size());
    std::optional<ulto::UnifiedPipeline> P = ulto::parseUnifiedPipeline(Value);
    if (!P) {
      D.Diag(diag::err_drv_invalid_value) << Arg << Value;
      return;
    }
    Pipeline = *P;
  }

  bool Used = false, Compiles = false;
  for (Command &Job : C.getJobs()) {
    ArgStringList JobArgs = Job.getArguments();
    auto IsUnified = [](const char *A) {
      return StringRef(A) == "-funified-lto";
    };
    bool CC1 = !JobArgs.empty() && StringRef(JobArgs[0]) == "-cc1";
    Compiles |= CC1;
    if (!CC1 || llvm::none_of(JobArgs, IsUnified) ||
        !isForServedTarget(JobArgs))
      continue;
    Used = true;
    if (Pipeline == ulto::UnifiedPipeline::Thin)
      JobArgs.push_back(C.getArgs().MakeArgString(
          Twine(ulto::UnifiedPipelineOption) + "thin"));
    if (!IndirectCallTypes)
      JobArgs.push_back(ulto::NoIndirectCallTypesOption.data());
    // A temporary object's random name must not reach the module ID.
    auto IsTemporary = [&](const std::string &Out) {
      return llvm::any_of(C.getTempFiles(),
                          [&](const char *T) { return Out == T; });
    };
    if (llvm::any_of(Job.getOutputFilenames(), IsTemporary))
      JobArgs.push_back(ulto::IdentityOutputOption.data());
    Job.replaceArguments(JobArgs);
  }
  // Unified bitcode is split so that CFI and devirtualising consumers can use
  // it; an unsplit module would quietly disable both for the whole link.
  if (Used && !C.getArgs().hasFlag(options::OPT_fsplit_lto_unit,
                                   options::OPT_fno_split_lto_unit, true))
    D.Diag(diag::err_drv_argument_not_allowed_with) << "-fno-split-lto-unit"
                                                    << "-funified-lto";
  // A link alone takes the compile options, as clang takes -funified-lto
  // there: CMake's IPO passes them to links too.
  if (!Taken.empty() && !Used && Compiles)
    D.Diag(diag::warn_drv_unused_argument) << Taken.back();
}

// After clang's --help and --version, which build systems parse: ulto's
// options and version.
static void describeUlto(const InputArgList &Args) {
  if (Args.hasArg(options::OPT_help))
    outs() << "\nULTO OPTIONS:\n"
              "  -flto=distributed       Compile as -flto=thin -funified-lto; "
              "link with ld.ulto --lto=distributed\n"
              "  -funified-lto-pipeline=full|thin\n"
              "                          The pre-link pipeline of "
              "-funified-lto (default: full; thin for builds that\n"
              "                          recompile everything and link only "
              "with ThinLTO)\n"
              "  -fno-unified-lto-icall-types\n"
              "                          No -fsanitize=cfi-icall types on the "
              "functions of -funified-lto bitcode\n";
  if (Args.hasArg(options::OPT__version))
    outs() << "ulto-clang: ulto " ULTO_VERSION "\n";
}

bool ulto::changesProcessState(ArrayRef<const char *> Argv) {
  static const OptSpecifier Stateful[] = {options::OPT_mllvm,
                                          options::OPT_Xclang,
                                          options::OPT_Xarch__,
                                          options::OPT_Wa_COMMA,
                                          options::OPT_Xassembler,
                                          options::OPT_ftime_report,
                                          options::OPT_ftime_report_EQ,
                                          options::OPT_ftime_report_json,
                                          options::OPT_ftime_trace,
                                          options::OPT_ftime_trace_EQ,
                                          options::OPT_fproc_stat_report,
                                          options::OPT_fproc_stat_report_EQ,
                                          options::OPT_save_stats,
                                          options::OPT_save_stats_EQ,
                                          options::OPT_fdebug_pass_structure,
                                          options::OPT_fdebug_pass_arguments,
                                          options::OPT_fpass_plugin_EQ,
                                          options::OPT_fplugin_EQ,
                                          options::OPT_fplugin_arg};
  if (llvm::any_of(Argv.drop_front(),
                   [](const char *A) { return A && A[0] == '@'; }))
    return true;
  unsigned MissingIndex, MissingCount;
  InputArgList List = getDriverOptTable().ParseArgs(Argv.drop_front(),
                                                    MissingIndex, MissingCount);
  return llvm::any_of(List, [](const Arg *A) {
    return llvm::any_of(
        Stateful, [&](OptSpecifier O) { return A->getOption().matches(O); });
  });
}

// Runs a -cc1 command as the driver runs its in-process job
// (CC1Command::Execute): a crash is caught and its stack dumped.
static int runCC1Command(ArrayRef<std::string> Command, bool ProcessRunsOn) {
  SmallVector<const char *, 256> ArgV;
  for (const std::string &Arg : Command)
    ArgV.push_back(Arg.c_str());
  CrashRecoveryContext::Enable();
  CrashRecoveryContext CRC;
  CRC.DumpStackAndCleanupOnFailure = true;
  const void *PrettyState = SavePrettyStackState();
  int Res = 0;
  if (!CRC.RunSafely([&] { Res = runIntegratedTool(ArgV, ProcessRunsOn); })) {
    RestorePrettyStackState(PrettyState);
    return CRC.RetCode;
  }
  return Res;
}

// Whether the driver built \p C as one in-process -cc1 job, saying nothing:
// then the job is the driver's whole work, and a cache may learn it.
static bool isLoneCC1Job(const Driver &D, const Compilation &C,
                         const DiagnosticsEngine &Diags) {
  if (C.containsError() || Diags.getNumWarnings() || C.getJobs().size() != 1)
    return false;
  const Command &Job = *C.getJobs().begin();
  return D.CC1Main && !Job.getArguments().empty() &&
         StringRef(Job.getArguments().front()) == "-cc1" &&
         StringRef(Job.getExecutable()) == D.getClangProgramPath();
}

// -ftime-report's timers print when the command ends, as in clang's driver.
static void printAndClearTimers() {
  TimerGroup::printAll(errs());
  TimerGroup::clearAll();
}

// The driver's path, as clang-22's driver finds its own, unless the caller
// names it in \p ExecutablePath.
static std::string driverPath(ArrayRef<const char *> Args,
                              StringRef ExecutablePath) {
  bool CanonicalPrefixes = true;
  for (const char *Arg : Args.slice(1))
    if (Arg && StringRef(Arg) == "-no-canonical-prefixes")
      CanonicalPrefixes = false;
    else if (Arg && StringRef(Arg) == "-canonical-prefixes")
      CanonicalPrefixes = true;
  return ExecutablePath.empty() ? getExecutablePath(Args[0], CanonicalPrefixes)
                                : ExecutablePath.str();
}

// Gives \p Diags the consumers and warning options clang-22's driver gives
// its own: text after the program's name, and a --serialize-diagnostics file.
static void setUpDiagnostics(DiagnosticsEngine &Diags,
                             DiagnosticOptions &DiagOpts, StringRef Argv0,
                             vfs::FileSystem &VFS) {
  auto *DiagClient = new TextDiagnosticPrinter(errs(), DiagOpts);
  DiagClient->setPrefix(std::string(sys::path::stem(Argv0)));
  Diags.setClient(DiagClient);
  if (!DiagOpts.DiagnosticSerializationFile.empty())
    Diags.setClient(new ChainedDiagnosticConsumer(
        Diags.takeClient(),
        serialized_diags::create(DiagOpts.DiagnosticSerializationFile, DiagOpts,
                                 /*MergeChildRecords=*/true)));
  ProcessWarningOptions(Diags, DiagOpts, VFS, /*ReportDiags=*/false);
}

// The link: which linker, and the LTO mode it is to use, for the targets
// ld.ulto serves; -flto=distributed needs ld.ulto, or ulto's compile. False
// after an error.
static bool chooseLinker(const Driver &D, const InputArgList &List,
                         const UltoDriverOptions &Opts, StringRef Path,
                         const ParsedClangName &NameParts,
                         SmallVectorImpl<const char *> &Args,
                         BumpPtrAllocator &A) {
  bool LTOLink = isLTOLink(D, List);
  bool NamesLdUlto = !LTOLink && namesLdUlto(D, List);
  if (!LTOLink && !Opts.Distributed && !NamesLdUlto)
    return true;
  LinkTarget Target = findLinkTarget(Path, NameParts, Args);
  if (Opts.Distributed && !(LTOLink ? Target.LdUlto : Target.Served)) {
    D.Diag(diag::err_drv_unsupported_opt_for_target)
        << "-flto=distributed" << Target.Triple;
    return false;
  }
  StringSaver Saver(A);
  if (LTOLink && Target.LdUlto)
    chooseLinkTimeLTO(D, List, Opts, Args, Saver);
  else if (NamesLdUlto && Target.LdUlto)
    useLdUlto(D, Args, Saver);
  return true;
}

// Tells \p Commands the -cc1 command of the lone job the driver built from
// \p DriverArgs.
static void observeCC1Job(ulto::CC1CommandCache &Commands,
                          ArrayRef<const char *> DriverArgs, const Driver &D,
                          const Compilation &C) {
  const Command &Job = *C.getJobs().begin();
  SmallVector<const char *, 256> CC1 = {D.getClangProgramPath()};
  CC1.append(Job.getArguments().begin(), Job.getArguments().end());
  Commands.observe(DriverArgs, CC1);
}

// Runs the jobs; reports and reproduces failures as clang does.
static int executeJobs(Driver &D, Compilation &C, int *CrashSignal) {
  int Res = 1;
  bool IsCrash = false;
  const Command *FailingCommand = nullptr;
  Driver::CommandStatus Status = Driver::CommandStatus::Ok;
  if (!C.containsError()) {
    SmallVector<std::pair<int, const Command *>, 4> FailingCommands;
    Res = D.ExecuteCompilation(C, FailingCommands);
    for (const auto &[Result, Cmd] : FailingCommands) {
      FailingCommand = Cmd;
      if (!Res)
        Res = Result;
      // Negative: signalled; 70: fatal error; >128: in-process crash.
      IsCrash = Result < 0 || Result == 70 || Result > 128;
      Status =
          IsCrash ? Driver::CommandStatus::Crash : Driver::CommandStatus::Error;
      // An in-process job's crash, caught: 128 plus the signal.
      if (CrashSignal && CrashRecoveryContext::isCrash(Result))
        *CrashSignal = Result - 128;
      if (IsCrash)
        break;
    }
  }
  if (FailingCommand &&
      D.maybeGenerateCompilationDiagnostics(Status, Driver::ReproLevel::OnCrash,
                                            C, *FailingCommand))
    Res = 1;
  return Res;
}

namespace {

// A command line for clang-22's driver: how runClangDriver was called, and
// what the -cc1 command cache made of it.
struct DriverRun {
  StringRef ExecutablePath;
  int *CrashSignal;
  bool ProcessRunsOn;
  ulto::CC1CommandCache *Commands;
  /// The command line as given, for Commands to learn from; empty if the
  /// cache knows its -cc1 command already.
  SmallVector<const char *, 256> DriverArgs = {};
  /// The failed result of the known -cc1 command, which the driver reports.
  std::optional<int> CC1Result = std::nullopt;
};

} // namespace

// Runs clang-22's driver on \p Args, with ulto's options and linker.
static int runDriver(SmallVectorImpl<const char *> &Args, BumpPtrAllocator &A,
                     IntrusiveRefCntPtr<vfs::FileSystem> VFS, DriverRun &Run) {
  // ulto's options leave the command line before clang parses it.
  UltoDriverOptions UltoOptions = takeUltoDriverOptions(Args);

  // Diagnostics and the Driver, set up as clang-22's driver sets them up.
  std::string Path = driverPath(Args, Run.ExecutablePath);
  unsigned MissingIndex, MissingCount;
  InputArgList ArgList = getDriverOptTable().ParseArgs(
      ArrayRef(Args).slice(1), MissingIndex, MissingCount);
  std::unique_ptr<DiagnosticOptions> DiagOpts = CreateAndPopulateDiagOpts(Args);
  DiagOpts->DiagnosticSuppressionMappingsFile.clear();
  DiagnosticsEngine Diags(DiagnosticIDs::create(), *DiagOpts);
  setUpDiagnostics(Diags, *DiagOpts, Args[0], *VFS);
  Driver TheDriver(Path, sys::getDefaultTargetTriple(), Diags,
                   "clang LLVM compiler", VFS);
  ParsedClangName NameParts = parseProgramName(Args[0]);
  configureDriver(TheDriver, NameParts);
  if (NameParts.DriverMode)
    Args.insert(Args.begin() + 1, NameParts.DriverMode);
  // CC1Main refers to this.
  auto RunIntegratedTool = [&](SmallVectorImpl<const char *> &ArgV) {
    if (Run.CC1Result)
      return *std::exchange(Run.CC1Result, std::nullopt);
    return runIntegratedTool(ArgV, Run.ProcessRunsOn);
  };
  if (!ArgList.hasFlag(options::OPT_fno_integrated_cc1,
                       options::OPT_fintegrated_cc1, false)) {
    TheDriver.CC1Main = RunIntegratedTool;
    CrashRecoveryContext::Enable();
  }

  if (!chooseLinker(TheDriver, ArgList, UltoOptions, Path, NameParts, Args, A))
    return 1;

  // The jobs, with ulto's options handed to the compile jobs.
  std::unique_ptr<Compilation> C(TheDriver.BuildCompilation(Args));
  applyUltoOptions(*C, TheDriver, UltoOptions.PreLink);
  if (!Run.DriverArgs.empty() && isLoneCC1Job(TheDriver, *C, Diags))
    observeCC1Job(*Run.Commands, Run.DriverArgs, TheDriver, *C);

  int Res = executeJobs(TheDriver, *C, Run.CrashSignal);
  Diags.getClient()->finish();

  // ulto-clang (not clang-22 run for ulto dist) says what it adds.
  if (Run.ExecutablePath.empty())
    describeUlto(ArgList);

  printAndClearTimers();
  return Res;
}

int ulto::runClangDriver(ArrayRef<const char *> Argv, StringRef ExecutablePath,
                         int *CrashSignal, bool ProcessRunsOn,
                         CC1CommandCache *Commands) {
  if (CrashSignal)
    *CrashSignal = 0;
  // A crash's stack dump asks for the reproducers in clang-22's words.
  setBugReportMsg("PLEASE submit a bug report to " BUG_REPORT_URL
                  " and include the crash backtrace, preprocessed source, and "
                  "associated run script.\n");
  SmallVector<const char *, 256> Args(Argv.begin(), Argv.end());
  BumpPtrAllocator A;
  auto VFS = vfs::getRealFileSystem();

  // @file arguments expand exactly as in clang.
  if (Error Err = clang::driver::expandResponseFiles(
          Args, /*ClangCLMode=*/false, A, VFS.get())) {
    errs() << toString(std::move(Err)) << '\n';
    return 1;
  }

  // `ulto-clang -cc1 ...`: a job the driver runs out of process.
  if (Args.size() >= 2 && StringRef(Args[1]).starts_with("-cc1"))
    return runIntegratedTool(Args, ProcessRunsOn);

  // A job whose -cc1 command is known runs without the driver. The driver
  // reports a failure: it is given the job's result instead of running it.
  DriverRun Run{ExecutablePath, CrashSignal, ProcessRunsOn, Commands};
  if (Commands) {
    if (std::optional<std::vector<std::string>> CC1 = Commands->lookup(Args)) {
      Run.CC1Result = runCC1Command(*CC1, ProcessRunsOn);
      if (*Run.CC1Result == 0) {
        printAndClearTimers();
        return 0;
      }
    } else {
      Run.DriverArgs = Args;
    }
  }
  return runDriver(Args, A, VFS, Run);
}
