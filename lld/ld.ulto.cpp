//===- ld.ulto.cpp - lld-22, with the LTO mode chosen at link time --------===//
//
// ld.ulto is ld.lld-22 (liblldELF, in-process): every ld.lld option works as
// in ld.lld. Before lld runs, ld.ulto finds the bitcode the link will load
// and refuses what unified LTO cannot link, naming the input and the fix:
// non-unified bitcode under --lto=thin|full (LLVM's own message names no
// file), and split modules with colliding module IDs (LLVM would merge their
// internal type IDs silently). --verbose and --save-temps say what LTO does.
//
// --lto=distributed is lld's DTLTO with ulto's distributor (`ulto dist`, next
// to ld.ulto) and clang-22 as the backend compiler: nothing to type. The
// --dist-* options are ulto dist's options (--dist-jobs=N is --jobs=N).
//
// Links ulto does not serve are lld-22's, unchanged: a PE emulation (-m
// i386pep...) goes to lld's MinGW driver and -flavor link|darwin|wasm to its
// COFF, Mach-O or wasm driver, chosen by lld's own dispatcher, as in ld.lld.
//
//===----------------------------------------------------------------------===//

#include "lld/Common/CommonLinkerContext.h"
#include "lld/Common/Driver.h"
#include "lld/Common/ErrorHandler.h"
#include "ulto/DistProtocol/DistOptTable.h"
#include "ulto/Link/BackendOptions.h"
#include "ulto/Link/DependencyFile.h"
#include "ulto/Link/EarlyDistributor.h"
#include "ulto/Link/LTOPlan.h"
#include "ulto/Link/LinkInputs.h"
#include "ulto/Link/NativeFallback.h"
#include "ulto/Link/PrivateOutput.h"
#include "ulto/Link/SafeInputNames.h"
#include "ulto/Support/FatalErrorOnce.h"
#include "ulto/Support/HeldStream.h"
#include "ulto/Support/InstalledLibrary.h"
#include "ulto/Support/MakeJobserver.h"
#include "ulto/Support/Message.h"
#include "ulto/Support/TrustedFile.h"
#include "ulto/Support/Version.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileOutputBuffer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"

#include <fcntl.h>
#include <set>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace llvm;

LLD_HAS_DRIVER(coff)
LLD_HAS_DRIVER(elf)
LLD_HAS_DRIVER(macho)
LLD_HAS_DRIVER(mingw)
LLD_HAS_DRIVER(wasm)

// lld's ELF option table is built into liblldELF but declared in a private
// header; ld.ulto parses with it so that it reads command lines exactly as
// lld does.
namespace lld::elf {
class ELFOptTable : public opt::GenericOptTable {
public:
  ELFOptTable();
};
} // namespace lld::elf

namespace {

// ld.ulto's own options (LdUltoOpts.td).
namespace own {
#define ULTO_OPTIONS_INC "LdUltoOpts.inc"
#include "ulto/Support/OptionIDs.def"

#include "ulto/Support/CommandOptTable.def"
} // namespace own

// What ld.ulto needs from an ld.lld command line.
struct Options {
  ulto::LinkRequest Request;
  std::optional<ulto::LTOMode> Mode = ulto::LTOMode::Default;
  /// Where the last --lto= stands in the arguments.
  std::optional<unsigned> LTOModeIndex;
  bool Verbose = false;
  /// --time-trace: ld.ulto's checks go into lld's trace.
  bool TimeTrace = false;
  unsigned TimeTraceGranularity = 500;
  bool HasDistributor = false;
  bool HasRemoteCompiler = false;
  /// Of the --dist-* options, those that choose the workers, as ulto dist's.
  std::vector<std::string> DistWorkerOptions;
  /// --threads=N; 0: not given, or not a number (lld reports it).
  unsigned Threads = 0;
  /// --lto-if-unified=: the mode the compiler driver was asked for
  /// (-flto=full), for bitcode that is unified; lld's own rules otherwise.
  std::optional<ulto::LTOMode> IfUnified;
  /// The last of --fat-lto-objects and --no-fat-lto-objects.
  std::optional<bool> FatLTOObjects;
  /// Every option, for the backend jobs of --lto=distributed.
  std::vector<ulto::LinkOption> LinkOptions;
  /// The input files' positions in the arguments, and their paths: file
  /// names, and -lNAME in one argument.
  std::vector<std::pair<unsigned, std::string>> InputArgs;
  /// A bitcode file the link loads has a name that is not ASCII
  /// (SafeInputNames.h).
  bool HasUnsafeNames = false;
  /// For a relocatable distributed link: how its modules were compiled.
  ulto::ModulesPIC Modules = ulto::ModulesPIC::Unknown;
  /// Where lld writes the output of a distributed link (PrivateOutput.h);
  /// empty: where -o says.
  std::string LLDOutput;
  /// Copies of the files that hold fat objects whose bitcode is too new,
  /// without it, and lld's arguments that read them (NativeFallback.h).
  std::optional<ulto::NativeFallback> NativeCopies;
  std::vector<std::string> RemapInputs;
};

// The one function that maps ld.lld's options onto ulto's view of the link.
Options readOptions(ArrayRef<const char *> Args) {
  lld::elf::ELFOptTable Table;
  unsigned MissingIndex, MissingCount;
  opt::InputArgList List = Table.ParseArgs(Args, MissingIndex, MissingCount);

  std::string Sysroot;
  for (const opt::Arg *A : List)
    if (A->getOption().getName() == "sysroot")
      Sysroot = A->getValue();
  auto WithSysroot = [&](StringRef Path) {
    return Path.consume_front("=") ? Sysroot + Path.str() : Path.str();
  };
  // Every -L applies to every -l, wherever it stands.
  std::vector<std::string> SearchDirs;
  for (const opt::Arg *A : List)
    if (A->getOption().getName() == "L")
      SearchDirs.push_back(WithSysroot(A->getValue()));

  Options Opts;
  std::string Entry = "_start";
  bool WholeArchive = false, Lazy = false, Static = false;
  for (const opt::Arg *A : List) {
    StringRef Name = A->getOption().getName();
    StringRef Value = A->getNumValues() ? A->getValue() : "";
    Opts.LinkOptions.push_back({Name.str(), Value.str(), A->getAsString(List)});
    if (A->getOption().getKind() == opt::Option::InputClass) {
      Opts.Request.Inputs.push_back({WithSysroot(Value), WholeArchive, Lazy});
      Opts.InputArgs.push_back({A->getIndex(), WithSysroot(Value)});
    } else if (Name == "l") {
      std::string Path = ulto::findLibrary(Value, SearchDirs, Static);
      if (!Path.empty())
        Opts.Request.Inputs.push_back({Path, WholeArchive, Lazy});
      if (!Path.empty() && A->getValue() == Args[A->getIndex()] + 2)
        Opts.InputArgs.push_back({A->getIndex(), Path});
    } else if (Name == "whole-archive" || Name == "no-whole-archive")
      WholeArchive = Name == "whole-archive";
    else if (Name == "start-lib" || Name == "end-lib")
      Lazy = Name == "start-lib";
    else if (Name == "Bstatic" || Name == "Bdynamic")
      Static = Name == "Bstatic";
    else if (Name == "undefined")
      Opts.Request.Roots.push_back(Value.str());
    else if (Name == "entry")
      Entry = Value.str();
    else if (Name == "lto=") {
      Opts.Mode = ulto::parseLTOMode(Value);
      Opts.LTOModeIndex = A->getIndex();
    } else if (Name == "thinlto-distributor=")
      Opts.HasDistributor = true;
    else if (Name == "thinlto-remote-compiler=")
      Opts.HasRemoteCompiler = true;
    else if (Name == "fat-lto-objects" || Name == "no-fat-lto-objects")
      Opts.FatLTOObjects = Name == "fat-lto-objects";
    else if (Name == "verbose" || Name == "save-temps")
      Opts.Verbose = true;
    else if (Name == "time-trace" || Name == "time-trace=")
      Opts.TimeTrace = true;
    // --time-trace-granularity=N is an alias of the separate form's option.
    else if (Name == "time-trace-granularity" ||
             Name == "time-trace-granularity=")
      Value.getAsInteger(10, Opts.TimeTraceGranularity);
    else if (Name == "threads=" && !to_integer(Value, Opts.Threads, 0))
      Opts.Threads = 0;
  }
  Opts.Request.Roots.push_back(Entry);
  return Opts;
}

void reportError(const Twine &Message) {
  writeMessage(errs(), "ld.ulto", ulto::MessageKind::Error, Message);
}

// Takes ld.ulto's own options out of \p Args (lld does not know them): the
// --dist-* options into \p DistArgs as the ulto dist options they stand
// for (--dist-jobs=8 is --jobs=8, --no-dist-cache --no-cache), and
// --lto-if-unified='s mode into \p IfUnified. False after reporting a bad
// value.
bool takeOwnOptions(SmallVectorImpl<const char *> &Args,
                    std::vector<std::string> &DistArgs,
                    std::optional<ulto::LTOMode> &IfUnified) {
  unsigned MissingIndex, MissingCount;
  opt::InputArgList List =
      own::commandOptTable().ParseArgs(Args, MissingIndex, MissingCount);
  std::vector<bool> Own(Args.size());
  bool Ok = true;
  for (const opt::Arg *A : List) {
    opt::Option Group = A->getOption().getGroup();
    if (!Group.isValid())
      continue; // lld's.
    Own[A->getIndex()] = true;
    StringRef Typed = Args[A->getIndex()];
    if (Group.getID() == own::OPT_grp_dist) {
      DistArgs.push_back(Typed.consume_front("--no-dist-")
                             ? ("--no-" + Typed).str()
                             : ("--" + Typed.drop_front(7)).str());
      continue;
    }
    IfUnified = ulto::parseLTOMode(A->getValue());
    if (IfUnified != ulto::LTOMode::Thin && IfUnified != ulto::LTOMode::Full) {
      reportError("unknown --lto-if-unified= value '" + Twine(A->getValue()) +
                  "': expected thin or full");
      Ok = false;
    }
  }
  size_t I = 0;
  llvm::erase_if(Args, [&](const char *) { return Own[I++]; });
  return Ok;
}

// The option as the user typed it.
std::string asTyped(StringRef DistOption) {
  if (DistOption.consume_front("--no-"))
    return ("--no-dist-" + DistOption).str();
  return ("--dist-" + DistOption.drop_front(2)).str();
}

// Checks \p DistArgs against ulto dist's option table now, before the
// thin link, and names what the user typed; false after reporting errors.
// Their values are ulto dist's to check. \p WorkerOptions gets those that
// choose the workers: ulto dist needs them as it starts, before its command
// (EarlyDistributor.h).
bool checkDistArgs(ArrayRef<std::string> DistArgs,
                   std::vector<std::string> &WorkerOptions) {
  std::vector<const char *> Argv;
  for (const std::string &Option : DistArgs)
    Argv.push_back(Option.c_str());
  unsigned MissingIndex = 0, MissingCount = 0;
  opt::InputArgList List =
      ulto::dist::optTable().ParseArgs(Argv, MissingIndex, MissingCount);
  bool Ok = true;
  for (const opt::Arg *A : List) {
    if (ulto::dist::isWorkerOption(*A))
      WorkerOptions.push_back(A->getAsString(List));
    if (!A->getOption().matches(ulto::dist::OPT_UNKNOWN) &&
        !A->getOption().matches(ulto::dist::OPT_INPUT))
      continue;
    reportError("unknown argument '" + asTyped(A->getAsString(List)) +
                "': ulto dist has no such option (see ulto dist --help)");
    Ok = false;
  }
  if (MissingCount) {
    reportError("'" + asTyped(Argv[MissingIndex]) + "' needs a value: write " +
                asTyped(Argv[MissingIndex]) + "=VALUE");
    Ok = false;
  }
  return Ok;
}

// ld.ulto's own path.
std::string linkerExecutable(const char *Argv0) {
  return sys::fs::getMainExecutable(Argv0,
                                    reinterpret_cast<void *>(&reportError));
}

// The program \p Name installed next to ld.ulto.
std::string nextToLinker(const char *Argv0, StringRef Name) {
  SmallString<256> Path(linkerExecutable(Argv0));
  sys::path::remove_filename(Path);
  sys::path::append(Path, Name);
  return std::string(Path);
}

// lld's arguments for a distributed link: --lto=thin, with ulto dist as the
// distributor and clang-22 as the backend compiler unless the command line
// names its own, and the link's code generation options for the jobs
// (BackendOptions.h). Empty after reporting errors.
std::vector<std::string>
distributedLinkArgs(const char *Argv0, const Options &Opts,
                    ArrayRef<std::string> DistArgs,
                    const ulto::EarlyDistributor *Early) {
  std::vector<std::string> Args;
  ulto::BackendOptions Backend =
      ulto::distributedBackendOptions(Opts.LinkOptions, Opts.Modules);
  for (const std::string &E : Backend.Errors)
    reportError(E);
  if (!Backend.Errors.empty())
    return Args;
  auto AddBackendArgs = [&] {
    for (const std::string &A : Backend.CompilerArgs)
      Args.push_back("--thinlto-remote-compiler-arg=" + A);
  };
  if (Opts.HasDistributor) {
    if (!DistArgs.empty()) {
      reportError("--dist-* options are ulto dist's, and this link names "
                  "its own --thinlto-distributor=");
      return Args;
    }
    Args.push_back("--lto=thin");
    AddBackendArgs();
    return Args;
  }
  std::string Ulto = nextToLinker(Argv0, "ulto");
  if (!sys::fs::can_execute(Ulto)) {
    reportError("--lto=distributed runs ulto's distributor " + Ulto +
                ", which does not exist; install ulto next to ld.ulto");
    return Args;
  }
  Args.push_back("--lto=thin");
  if (Early) {
    Args.push_back(("--thinlto-distributor=" + Early->distributor()).str());
    Args.push_back("--thinlto-distributor-arg=" + Early->attachArgument());
  } else {
    Args.push_back("--thinlto-distributor=" + Ulto);
  }
  Args.push_back("--thinlto-distributor-arg=dist");
  for (const std::string &Option : DistArgs)
    Args.push_back("--thinlto-distributor-arg=" + Option);
  if (!Opts.HasRemoteCompiler)
    Args.push_back("--thinlto-remote-compiler=" ULTO_LLVM_TOOLS_DIR "/clang");
  AddBackendArgs();
  return Args;
}

// Whether every bitcode input is unified, and there is one.
bool allUnified(const std::vector<ulto::BitcodeInput> &Inputs) {
  return !Inputs.empty() &&
         llvm::all_of(Inputs, [](const auto &In) { return In.Unified; });
}

// The module IDs of a distributed link's split inputs, checked while lld
// runs: they take 0.23 s of CPU on a 1000-module link, and lld's regular
// LTO, which comes first, leaves a core idle for longer. On one thread:
// with two, the check took as much from lld's parallel reading of the
// inputs as it saved. ulto dist runs no job before the verdict
// (EarlyDistributor::reportChecks).
class BackgroundIDCheck {
public:
  BackgroundIDCheck(ulto::LoadedFiles Files,
                    std::vector<ulto::BitcodeInput> Inputs,
                    ThreadPoolStrategy Threads, const Options &Opts,
                    ulto::EarlyDistributor &Early, raw_ostream &Stderr)
      : Files(std::move(Files)), Inputs(std::move(Inputs)), LLDStderr(Stderr),
        Thread([this, Threads, TimeTrace = Opts.TimeTrace,
                Granularity = Opts.TimeTraceGranularity, &Early] {
          if (TimeTrace)
            timeTraceProfilerInitialize(Granularity, "ld.ulto");
          std::vector<std::string> Errors = check(Threads);
          // A stream of its own: errs() is lld's meanwhile. A refused link
          // shows these errors only, as when they came before lld ran:
          // colliding IDs make lld report duplicate symbols, which they
          // explain.
          raw_fd_ostream Stderr(STDERR_FILENO, /*shouldClose=*/false,
                                /*unbuffered=*/true);
          for (const std::string &E : Errors)
            writeMessage(Stderr, "ld.ulto", ulto::MessageKind::Error, E);
          Passed = Errors.empty();
          if (Passed)
            LLDStderr.release();
          else
            LLDStderr.discard();
          // Before the verdict, which lets the link go on to write its trace.
          if (TimeTrace)
            timeTraceProfilerFinishThread();
          Early.reportChecks(Passed);
        }) {}
  ~BackgroundIDCheck() { passed(); }

  /// Where lld writes its messages meanwhile.
  raw_ostream &lldStderr() { return LLDStderr; }

  /// Waits for the check; false after it reported errors.
  bool passed() {
    if (Thread.joinable())
      Thread.join();
    return Passed;
  }

private:
  std::vector<std::string> check(ThreadPoolStrategy Threads) {
    TimeTraceScope Scope("ld.ulto module IDs");
    if (Error E = ulto::readModuleIDs(Inputs, Threads))
      return {toString(std::move(E))};
    return ulto::checkModuleIDs(Inputs);
  }

  ulto::LoadedFiles Files; ///< The bytes Inputs refer to.
  std::vector<ulto::BitcodeInput> Inputs;
  ulto::HeldStream LLDStderr;
  bool Passed = false;
  std::thread Thread;
};

// The buffer of \p Files that holds \p Object: the object's file, or its
// archive's; std::nullopt for a thin archive's member.
std::optional<MemoryBufferRef> containingFile(const ulto::LoadedFiles &Files,
                                              MemoryBufferRef Object) {
  for (const std::unique_ptr<MemoryBuffer> &B : Files.Owned)
    if (B->getBufferStart() <= Object.getBufferStart() &&
        Object.getBufferEnd() <= B->getBufferEnd())
      return B->getMemBufferRef();
  return std::nullopt;
}

// Bitcode from a newer LLVM than ld.ulto's (NativeFallback.h): a fat
// object's native code links in its place, which one warning says; other
// such bitcode is an error each. Takes those files out of \p Inputs; false
// after reporting errors.
bool fallBackToNativeCode(Options &Opts, ulto::LoadedFiles &Files,
                          std::vector<ulto::BitcodeInput> &Inputs) {
  std::vector<std::string> Errors, FellBack;
  std::string Producer;
  MapVector<StringRef, std::vector<MemoryBufferRef>> FatObjectsByPath;
  std::vector<bool> Drop(Inputs.size());
  size_t I = 0;
  for (ulto::LoadedFile &File : Files.Files) {
    if (!File.IsBitcode)
      continue;
    const ulto::BitcodeInput &In = Inputs[I++];
    if (!ulto::isFromNewerLLVM(In.Producer))
      continue;
    std::string From = "bitcode from " + ulto::describeProducer(In.Producer) +
                       ", newer than this ld.ulto's LLVM " LLVM_VERSION_STRING;
    if (!File.FatObject.getBufferSize()) {
      Errors.push_back(File.Name + ": " + From +
                       ", which cannot link it: ship fat objects "
                       "(-ffat-lto-objects), whose native code any linker "
                       "links, or link with a ulto on that LLVM");
      continue;
    }
    FellBack.push_back(File.Name);
    Producer = From;
    FatObjectsByPath[File.Path].push_back(File.FatObject);
    File.Buffer = File.FatObject;
    File.IsBitcode = false;
    File.FatObject = {};
    Drop[I - 1] = true;
  }
  if (!FellBack.empty()) {
    Expected<ulto::NativeFallback> Copies = ulto::NativeFallback::create();
    if (!Copies) {
      Errors.push_back(toString(Copies.takeError()));
    } else {
      for (auto &[Path, FatObjects] : FatObjectsByPath) {
        std::optional<MemoryBufferRef> Contents =
            containingFile(Files, FatObjects.front());
        Expected<std::string> Arg =
            Contents ? Copies->add(Path, *Contents, FatObjects)
                     : createStringError(Path + ": cannot link the native "
                                                "code of a thin archive's "
                                                "member");
        if (Arg)
          Opts.RemapInputs.push_back(std::move(*Arg));
        else
          Errors.push_back(toString(Arg.takeError()));
      }
      Opts.NativeCopies.emplace(std::move(*Copies));
    }
    writeMessage(errs(), "ld.ulto", ulto::MessageKind::Warning,
                 "linking the native code of " + join(FellBack, ", ") +
                     ": their " + Producer);
  }
  for (const std::string &E : Errors)
    reportError(E);
  I = 0;
  llvm::erase_if(Inputs, [&](const ulto::BitcodeInput &) { return Drop[I++]; });
  return Errors.empty();
}

// Checks the bitcode the link loads, and applies --lto-if-unified= when it
// is unified and no --lto= was given; false after reporting errors. With
// \p Early, a distributed link's module IDs are left to \p IDs, checked
// while lld runs.
bool checkBitcodeInputs(Options &Opts, ulto::EarlyDistributor *Early,
                        std::optional<BackgroundIDCheck> &IDs,
                        raw_ostream &Stderr) {
  TimeTraceScope Scope("ld.ulto checks");
  // The checks read the inputs in lld's threads, as lld will set them: the
  // threads start on their first use, which is ours.
  if (Opts.Threads)
    parallel::strategy = hardware_concurrency(Opts.Threads);
  else if (parallel::strategy.compute_thread_count() > 16)
    parallel::strategy = hardware_concurrency(16);
  Expected<ulto::LoadedFiles> Files = [&] {
    TimeTraceScope Scope("ld.ulto load inputs");
    return ulto::loadLinkInputs(Opts.Request);
  }();
  if (!Files) {
    reportError(toString(Files.takeError()));
    return false;
  }
  // A link with inputs that cannot be opened fails in lld, which names each
  // of them with its other errors (a missing -l library too); checking the
  // rest first would hide them.
  if (!Files->Unopenable.empty())
    return true;
  Expected<std::vector<ulto::BitcodeInput>> Inputs = [&] {
    TimeTraceScope Scope("ld.ulto bitcode flags");
    return ulto::readBitcodeInputs(Files->Files);
  }();
  if (!Inputs) {
    reportError(toString(Inputs.takeError()));
    return false;
  }
  if (!fallBackToNativeCode(Opts, *Files, *Inputs))
    return false;
  Opts.HasUnsafeNames = llvm::any_of(Files->Files, [](const auto &F) {
    return F.IsBitcode && !isASCII(F.Name);
  });
  if (Opts.Mode == ulto::LTOMode::Distributed &&
      llvm::any_of(Opts.LinkOptions,
                   [](const auto &O) { return O.Name == "relocatable"; }))
    Opts.Modules = ulto::readModulesPIC(Files->Files);
  if (Opts.IfUnified && Opts.Mode == ulto::LTOMode::Default &&
      allUnified(*Inputs))
    Opts.Mode = Opts.IfUnified;
  else
    Opts.IfUnified.reset();
  std::vector<std::string> Errors = ulto::checkUnified(*Inputs, *Opts.Mode);
  llvm::append_range(Errors, ulto::checkSplitLTOUnitFlags(*Inputs));
  if (Errors.empty() && Early && !Opts.Verbose) {
    IDs.emplace(std::move(*Files), std::move(*Inputs), hardware_concurrency(1),
                Opts, *Early, Stderr);
    return true;
  }
  if (Error E = ulto::readModuleIDs(*Inputs, parallel::strategy))
    Errors.push_back(toString(std::move(E)));
  else
    llvm::append_range(Errors, ulto::checkModuleIDs(*Inputs));
  for (const std::string &E : Errors)
    reportError(E);
  if (Opts.Verbose && Errors.empty())
    errs() << ulto::describePlan(*Inputs, *Opts.Mode) << "\n";
  return Errors.empty();
}

// The output's path, as -o names it.
StringRef linkOutput(const Options &Opts) {
  StringRef Output = "a.out";
  for (const ulto::LinkOption &O : Opts.LinkOptions)
    if (O.Name == "o")
      Output = O.Value;
  return Output;
}

// The value of the last --dependency-file, or "".
StringRef dependencyFile(const Options &Opts) {
  StringRef File;
  for (const ulto::LinkOption &O : Opts.LinkOptions)
    if (O.Name == "dependency-file")
      File = O.Value;
  return File;
}

// Where lld writes the output.
StringRef outputPath(const Options &Opts) {
  return Opts.LLDOutput.empty() ? linkOutput(Opts) : StringRef(Opts.LLDOutput);
}

// Removes the output lld wrote, unless it is not a regular file (-o
// /dev/null).
void removeOutput(const Options &Opts) {
  if (sys::fs::is_regular_file(outputPath(Opts)))
    sys::fs::remove(outputPath(Opts));
}

// Whether the file at \p Path is bitcode or an archive.
bool mayHoldBitcode(StringRef Path) {
  file_magic Magic;
  return !identify_magic(Path, Magic) &&
         (Magic == file_magic::bitcode || Magic == file_magic::archive);
}

// Names the bitcode files and archives of \p Args so that a distributed
// link's jobs import as --lto=thin's backends do and LLVM 22 writes their
// names whole (SafeInputNames.h), when they need it: symbolic links (or
// archive copies) next to the output, which \p Made lists; false after
// reporting an error.
bool useSafeNames(const Options &Opts, SmallVectorImpl<const char *> &Args,
                  StringSaver &Saver, std::vector<std::string> &Made,
                  std::vector<std::pair<std::string, std::string>> &Renamed) {
  std::vector<unsigned> Where;
  std::vector<std::string> Paths;
  for (const auto &[Index, Path] : Opts.InputArgs)
    if (mayHoldBitcode(Path)) {
      Where.push_back(Index);
      Paths.push_back(Path);
    }
  StringRef Output = outputPath(Opts);
  if (!Opts.HasUnsafeNames) {
    // An input that cannot be read is lld's to report.
    Expected<bool> Matches = ulto::distributedOrderMatches(Paths, Output);
    if (!Matches)
      consumeError(Matches.takeError());
    if (!Matches || *Matches)
      return true;
  }
  StringRef Dir = sys::path::parent_path(Output);
  if (!isASCII(Dir)) {
    reportError("the output's directory " + Dir +
                " is not ASCII, so it cannot hold the inputs' ASCII names; "
                "link with --lto=thin");
    return false;
  }
  std::string Prefix =
      (sys::path::filename(Output) + ".ulto" + Twine(getpid()) + ".").str();
  Expected<std::vector<std::string>> Safe =
      ulto::makeSafeInputNames(Paths, Dir, Prefix);
  if (!Safe) {
    reportError(toString(Safe.takeError()));
    return false;
  }
  for (auto [Index, Name, Path] : zip(Where, *Safe, Paths)) {
    Args[Index] = Saver.save(Name).data();
    Renamed.push_back({Name, Path});
  }
  std::set<std::string> Unique(Safe->begin(), Safe->end());
  Made.assign(Unique.begin(), Unique.end());
  for (const std::string &Name : Made)
    sys::RemoveFileOnSignal(Name);
  if (Opts.Verbose)
    errs() << "ld.ulto: " << Made.size() << " inputs named "
           << (Dir.empty() || !Opts.LLDOutput.empty() ? "" : Dir + "/")
           << Prefix << "* for this link"
           << (Opts.LLDOutput.empty() ? "" : ", in its private directory")
           << ": its jobs import as --lto=thin's backends do, and LLVM 22 "
              "writes the names whole\n";
  return true;
}

// Option \p ID's lines of --help, laid out as lld's: the text from the 27th
// column, on a line of its own after a longer option.
std::string helpLines(unsigned ID) {
  const own::CommandOptTable &Table = own::commandOptTable();
  std::string Option =
      (Table.getOption(ID).getPrefixedName() + Table.getOptionMetaVar(ID))
          .str();
  std::string Text = Table.getOptionHelpText(ID);
  if (Option.size() > 23)
    return "  " + Option + "\n" + std::string(26, ' ') + Text;
  Option.resize(23, ' ');
  return "  " + Option + " " + Text;
}

// \p Line of lld's --help, or, for an lld option whose meaning ld.ulto
// extends, LdUltoOpts.td's lines for it.
std::string ownHelpLine(StringRef Line) {
  StringRef Spelling = Line.trim().split(' ').first;
  const own::CommandOptTable &Table = own::commandOptTable();
  for (unsigned ID = 1; ID <= Table.getNumOptions(); ++ID) {
    opt::Option O = Table.getOption(ID);
    StringRef Name = O.getPrefixedName();
    if (!O.getGroup().isValid() && Table.getOptionHelpText(ID) &&
        Name.starts_with("--") &&
        (Spelling == Name ||
         (Name.ends_with("=") && Spelling.starts_with(Name))))
      return helpLines(ID);
  }
  return Line.str();
}

// ld.ulto's own options: a section for each group, titled by its text.
void printOwnOptions(raw_ostream &OS) {
  const own::CommandOptTable &Table = own::commandOptTable();
  for (unsigned Group = 1; Group <= Table.getNumOptions(); ++Group) {
    if (Table.getOption(Group).getKind() != opt::Option::GroupClass)
      continue;
    OS << Table.getOptionHelpText(Group) << ":\n";
    for (unsigned ID = 1; ID <= Table.getNumOptions(); ++ID) {
      opt::Option O = Table.getOption(ID);
      if (O.getGroup().isValid() && O.getGroup().getID() == Group &&
          !O.hasFlag(opt::HelpHidden))
        OS << helpLines(ID) << "\n";
    }
  }
}

// --help and --version: lld's text, which build systems parse, with what
// ld.ulto adds.
bool describesItself(ArrayRef<const char *> Args) {
  return llvm::any_of(Args, [](StringRef A) {
    return A == "--help" || A == "-help" || A == "--version" || A == "-version";
  });
}

bool runDescribingItself(ArrayRef<const char *> LLDArgs, raw_ostream &Stdout,
                         raw_ostream &Stderr, bool DisableOutput) {
  std::string Text;
  raw_string_ostream OS(Text);
  bool Ok =
      lld::elf::link(LLDArgs, OS, Stderr, /*exitEarly=*/false, DisableOutput);
  StringRef Rest = Text;
  if (Rest.consume_front("OVERVIEW: lld\n")) {
    Stdout << "OVERVIEW: ld.ulto (ulto " ULTO_VERSION "), lld 22 with the LTO "
              "mode chosen at link time\n";
    for (StringRef Line : llvm::split(Rest, "\n"))
      Stdout << ownHelpLine(Line) << "\n";
    printOwnOptions(Stdout);
    return Ok;
  }
  Stdout << Text;
  if (Ok && StringRef(Text).contains("LLD"))
    Stdout << "ld.ulto: ulto " ULTO_VERSION
              ", --lto=thin, full or distributed\n";
  return Ok;
}

// Whether the link takes the bitcode of fat objects, not their native code:
// as GCC's -flto does, a link that names an LTO mode does, unless
// --no-fat-lto-objects says otherwise; other links are lld's.
bool linksFatBitcode(const Options &Opts) {
  if (Opts.FatLTOObjects)
    return *Opts.FatLTOObjects;
  return Opts.IfUnified || (Opts.Mode && *Opts.Mode != ulto::LTOMode::Default);
}

// The link's arguments, @file arguments expanded as lld expands them, with
// ld.ulto's own options taken out: \p Args, \p DistArgs and the
// returned Options; std::nullopt after reporting errors.
std::optional<Options> readLink(ArrayRef<const char *> Argv,
                                BumpPtrAllocator &Alloc,
                                SmallVectorImpl<const char *> &Args,
                                std::vector<std::string> &DistArgs) {
  Args.assign(Argv.begin() + 1, Argv.end());
  cl::ExpansionContext ECtx(Alloc, cl::TokenizeGNUCommandLine);
  if (Error E = ECtx.expandResponseFiles(Args)) {
    reportError(toString(std::move(E)));
    return std::nullopt;
  }
  std::optional<ulto::LTOMode> IfUnified;
  if (!takeOwnOptions(Args, DistArgs, IfUnified))
    return std::nullopt;
  Options Opts = readOptions(Args);
  Opts.IfUnified = IfUnified;
  Opts.Request.FatLTOObjects = linksFatBitcode(Opts);
  if (!DistArgs.empty() && Opts.Mode != ulto::LTOMode::Distributed) {
    reportError("--dist-* options need --lto=distributed");
    return std::nullopt;
  }
  if (!checkDistArgs(DistArgs, Opts.DistWorkerOptions))
    return std::nullopt;
  return Opts;
}

// Refuses, before LTO runs and before any output is written, what unified
// LTO would reject without naming a file or would merge silently. An
// unknown --lto= value is lld's to report. Under --time-trace, the checks
// are a record of their own, which lld's profiler writes with its own
// (LLVM's per-thread profilers are written together).
bool checkLink(Options &Opts, ulto::EarlyDistributor *Early,
               std::optional<BackgroundIDCheck> &IDs, raw_ostream &Stderr) {
  if (!Opts.Mode)
    return true;
  if (Opts.TimeTrace)
    timeTraceProfilerInitialize(Opts.TimeTraceGranularity, "ld.ulto");
  bool Checked = checkBitcodeInputs(Opts, Early, IDs, Stderr);
  if (Opts.TimeTrace)
    timeTraceProfilerFinishThread();
  return Checked;
}

// The inputs' other names ld.ulto makes for a distributed link next to its
// output, where DTLTO's would import in another order than --lto=thin or
// LLVM 22 cannot write them. Removed after the link, while they are the
// user's.
struct SafeNameFiles {
  std::vector<std::string> Names;
  /// Each name's file, for --dependency-file.
  std::vector<std::pair<std::string, std::string>> Renamed;

  void remove() {
    for (const std::string &Name : Names) {
      ulto::removeOwnFile(Name);
      sys::DontRemoveFileOnSignal(Name);
    }
    Names.clear();
  }
  ~SafeNameFiles() { remove(); }
};

// lld's arguments: \p Args, then the mode --lto-if-unified= chose and, for a
// distributed link, \p DistArgs in place (empty after reporting errors).
bool lldArguments(const char *Argv0, ArrayRef<const char *> Args,
                  const Options &Opts, ArrayRef<std::string> DistArgs,
                  const ulto::EarlyDistributor *Early, StringSaver &Saver,
                  SmallVectorImpl<const char *> &LLDArgs) {
  LLDArgs.assign({Argv0});
  const size_t FirstLinkArg = LLDArgs.size();
  LLDArgs.append(Args.begin(), Args.end());
  if (Opts.IfUnified)
    LLDArgs.push_back(
        Saver.save("--lto=" + ulto::toString(*Opts.IfUnified)).data());
  if (Opts.Request.FatLTOObjects && !Opts.FatLTOObjects)
    LLDArgs.push_back("--fat-lto-objects");
  for (const std::string &Remap : Opts.RemapInputs)
    LLDArgs.push_back(Saver.save(Remap).data());
  // The last -o is lld's output.
  if (!Opts.LLDOutput.empty())
    LLDArgs.append({"-o", Saver.save(Opts.LLDOutput).data()});
  if (Opts.Mode != ulto::LTOMode::Distributed)
    return true;
  std::vector<std::string> DistributedArgs =
      distributedLinkArgs(Argv0, Opts, DistArgs, Early);
  if (DistributedArgs.empty())
    return false;
  // --lto=thin replaces --lto=distributed where it stood; the distributor
  // and its first arguments (--attach=FD for ulto-dist-attach, then "dist")
  // come before the user's --thinlto-distributor-arg= (an @file of ulto
  // dist options).
  LLDArgs[FirstLinkArg + *Opts.LTOModeIndex] =
      Saver.save(DistributedArgs[0]).data();
  for (const std::string &Arg :
       llvm::reverse(ArrayRef(DistributedArgs).drop_front()))
    LLDArgs.insert(LLDArgs.begin() + FirstLinkArg, Saver.save(Arg).data());
  return true;
}

// lld's ELF driver, in this process; the early distributor hears how the
// checks and the link went.
bool runLLD(ArrayRef<const char *> LLDArgs, const Options &Opts,
            ulto::EarlyDistributor *Early,
            std::optional<BackgroundIDCheck> &IDs, raw_ostream &Stdout,
            raw_ostream &Stderr, bool ExitEarly, bool DisableOutput) {
  // Checked already, unless in the background: the distributor may run.
  if (Early && !IDs)
    Early->reportChecks(true);
  bool Linked = lld::elf::link(LLDArgs, Stdout, IDs ? IDs->lldStderr() : Stderr,
                               ExitEarly, DisableOutput);
  if (Early && !Linked)
    Early->linkFailed();
  if (!IDs || IDs->passed())
    return Linked;
  // Refused without running its distributor: no split module had a job
  // (only archive members lld left out collided). A refused link leaves no
  // output, as when the check came first.
  if (Linked)
    removeOutput(Opts);
  return false;
}

// An ELF link, as lld's dispatcher hands it over (Argv[0], then the link's
// arguments): ulto's checks, then lld's ELF driver in this process.
bool linkELF(ArrayRef<const char *> Argv, raw_ostream &Stdout,
             raw_ostream &Stderr, bool ExitEarly, bool DisableOutput) {
  // Before ld.ulto opens anything: make's jobserver only if it is one. Its
  // only user is a distributed link's ulto dist.
  ulto::JobserverCheck Jobserver = ulto::vetInheritedJobserver();
  BumpPtrAllocator Alloc;
  SmallVector<const char *, 256> Args;
  std::vector<std::string> DistArgs;
  std::optional<Options> Opts = readLink(Argv, Alloc, Args, DistArgs);
  if (!Opts)
    return false;
  bool Distributed = Opts->Mode == ulto::LTOMode::Distributed;
  if (Distributed && Jobserver.Kind == ulto::JobserverCheck::Unusable)
    ulto::writeMessage(Stderr, "ld.ulto", ulto::MessageKind::Note,
                       ulto::JobserverUnavailableNote);
  // ulto dist loads while lld reads the inputs (AttachedCommand.h).
  std::unique_ptr<ulto::EarlyDistributor> Early;
  if (Distributed && !Opts->HasDistributor)
    Early = ulto::EarlyDistributor::start(
        nextToLinker(Argv[0], "ulto"),
        nextToLinker(Argv[0], "ulto-dist-attach"),
        ulto::installedLibrary(linkerExecutable(Argv[0]), "libUltoDist.so"),
        Opts->DistWorkerOptions);
  std::optional<BackgroundIDCheck> IDs;
  if (!checkLink(*Opts, Early.get(), IDs, Stderr))
    return false;

  // Every file of a distributed link in a directory only the user can
  // enter (PrivateOutput.h).
  std::optional<ulto::PrivateOutput> Private =
      Distributed && !describesItself(Args)
          ? ulto::PrivateOutput::create(linkOutput(*Opts))
          : std::nullopt;
  if (Private) {
    Opts->LLDOutput = Private->path().str();
    Private->removeOnInterrupt();
  }
  SafeNameFiles Files;
  StringSaver Saver(Alloc);
  if (Distributed &&
      !useSafeNames(*Opts, Args, Saver, Files.Names, Files.Renamed))
    return false;
  SmallVector<const char *, 256> LLDArgs;
  if (!lldArguments(Argv[0], Args, *Opts, DistArgs, Early.get(), Saver,
                    LLDArgs))
    return false;
  if (describesItself(Args))
    return runDescribingItself(LLDArgs, Stdout, Stderr, DisableOutput);
  bool Linked = runLLD(LLDArgs, *Opts, Early.get(), IDs, Stdout, Stderr,
                       ExitEarly, DisableOutput);
  Files.remove();
  if (Opts->NativeCopies)
    Opts->NativeCopies->remove();
  if (Private) {
    if (Error E = Private->finish(Linked)) {
      reportError(toString(std::move(E)));
      return false;
    }
    Files.Renamed.push_back({Private->path().str(), Private->output().str()});
  }
  // lld named the files it was given.
  if (Linked && !dependencyFile(*Opts).empty() && !Files.Renamed.empty())
    if (Error E = ulto::renameInDependencyFile(dependencyFile(*Opts),
                                               Files.Renamed)) {
      reportError(toString(std::move(E)));
      return false;
    }
  return Linked;
}

// Ends the process after a link as ld.lld-22 does (lld::exitLld): lld's
// unwritten output is discarded and LLVM's managed statics are destroyed
// (-time-passes reports are printed then), but lld's memory and other global
// state are not freed, which a process about to end need not do: 95 ms of a
// 1000-module link. Not exitLld itself: it flushes the streams lld was
// given, which may have ended with \p Link (the held stderr of a background
// check, the text of --version).
template <lld::Driver Link>
bool linkAndExit(ArrayRef<const char *> Argv, raw_ostream &Stdout,
                 raw_ostream &Stderr, bool ExitEarly, bool DisableOutput) {
  bool Linked = Link(Argv, Stdout, Stderr, ExitEarly, DisableOutput);
  if (lld::hasContext())
    if (std::unique_ptr<FileOutputBuffer> &Output =
            lld::errorHandler().outputBuffer)
      Output->discard();
  llvm_shutdown();
  Stdout.flush();
  Stderr.flush();
  _exit(Linked ? 0 : 1);
}

} // namespace

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  ulto::reportFatalErrorsOnce();
  InitializeAllTargetInfos();
  InitializeAllTargetMCs();
  InitializeAllAsmParsers();

  // lld-22 picks the driver as ld.lld-22 does: -flavor first, then -m with a
  // PE emulation (i386pep, arm64pe...) for MinGW. ulto serves ELF links
  // only; every other flavour is lld's own driver, untouched.
  SmallVector<const char *, 256> Args(Argv, Argv + Argc);
  if (Argc < 2 || StringRef(Argv[1]) != "-flavor")
    Args.insert(Args.begin() + 1, {"-flavor", "gnu"});
  lld::Result R = lld::lldMain(Args, outs(), errs(),
                               {{lld::Gnu, &linkAndExit<linkELF>},
                                {lld::MinGW, &linkAndExit<lld::mingw::link>},
                                {lld::WinLink, &linkAndExit<lld::coff::link>},
                                {lld::Darwin, &linkAndExit<lld::macho::link>},
                                {lld::Wasm, &linkAndExit<lld::wasm::link>}});
  return R.retCode;
}
