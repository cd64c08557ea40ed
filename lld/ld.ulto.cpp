//===- ld.ulto.cpp - lld-22, with the LTO mode chosen at link time --------===//
//
// ld.ulto is ld.lld-22 (liblldELF, in-process): every ld.lld option works as
// in ld.lld. Before lld runs, ld.ulto finds the bitcode the link will load
// and refuses what unified LTO cannot link, naming the input and the fix:
// non-unified bitcode under --lto=thin|full (LLVM's own message names no
// file), and split modules with colliding module IDs (LLVM would merge their
// internal type IDs silently). --verbose and --save-temps say what LTO does.
//
//===----------------------------------------------------------------------===//

#include "lld/Common/Driver.h"
#include "ulto/Link/LTOPlan.h"
#include "ulto/Link/LinkInputs.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

LLD_HAS_DRIVER(elf)

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

// What ld.ulto needs from an ld.lld command line.
struct Options {
  ulto::LinkRequest Request;
  std::optional<ulto::LTOMode> Mode = ulto::LTOMode::Default;
  bool Verbose = false;
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
    if (A->getOption().getKind() == opt::Option::InputClass)
      Opts.Request.Inputs.push_back({WithSysroot(Value), WholeArchive, Lazy});
    else if (Name == "l") {
      std::string Path = ulto::findLibrary(Value, SearchDirs, Static);
      if (!Path.empty())
        Opts.Request.Inputs.push_back({Path, WholeArchive, Lazy});
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
    else if (Name == "lto=")
      Opts.Mode = ulto::parseLTOMode(Value);
    else if (Name == "verbose" || Name == "save-temps")
      Opts.Verbose = true;
  }
  Opts.Request.Roots.push_back(Entry);
  return Opts;
}

void reportError(const Twine &Message) {
  WithColor::error(errs(), "ld.ulto") << Message << "\n";
}

// Checks the bitcode the link loads; false after reporting errors.
bool checkBitcodeInputs(const Options &Opts) {
  Expected<ulto::LoadedFiles> Files = ulto::loadLinkInputs(Opts.Request);
  if (!Files) {
    reportError(toString(Files.takeError()));
    return false;
  }
  Expected<std::vector<ulto::BitcodeInput>> Inputs =
      ulto::readBitcodeInputs(Files->Files);
  if (!Inputs) {
    reportError(toString(Inputs.takeError()));
    return false;
  }
  std::vector<std::string> Errors = ulto::checkUnified(*Inputs, *Opts.Mode);
  llvm::append_range(Errors, ulto::checkModuleIDs(*Inputs));
  for (const std::string &E : Errors)
    reportError(E);
  if (Opts.Verbose && Errors.empty())
    errs() << ulto::describePlan(*Inputs, *Opts.Mode) << "\n";
  return Errors.empty();
}

} // namespace

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);
  InitializeAllTargetInfos();
  InitializeAllTargetMCs();
  InitializeAllAsmParsers();

  // @file arguments, expanded as lld expands them.
  BumpPtrAllocator Alloc;
  SmallVector<const char *, 256> Args(Argv + 1, Argv + Argc);
  cl::ExpansionContext ECtx(Alloc, cl::TokenizeGNUCommandLine);
  if (Error E = ECtx.expandResponseFiles(Args)) {
    reportError(toString(std::move(E)));
    return 1;
  }

  // What the link loads and how it wants LTO done.
  Options Opts = readOptions(Args);
  if (Opts.Mode == ulto::LTOMode::Distributed) {
    reportError("--lto=distributed needs ulto's distributor, which this "
                "ld.ulto does not have yet; link with --lto=thin or "
                "--lto=full");
    return 1;
  }

  // Refuse, before LTO runs and before any output is written, what unified
  // LTO would reject without naming a file or would merge silently. An
  // unknown --lto= value is lld's to report.
  if (Opts.Mode && !checkBitcodeInputs(Opts))
    return 1;

  // The link itself: lld's ELF driver, in this process.
  SmallVector<const char *, 256> LLDArgs = {Argv[0], "-flavor", "gnu"};
  LLDArgs.append(Args.begin(), Args.end());
  lld::Result R =
      lld::lldMain(LLDArgs, outs(), errs(), {{lld::Gnu, &lld::elf::link}});
  return R.retCode;
}
