//===- BackendOptions.cpp - A link's code generation, for DTLTO jobs ------===//

#include "ulto/Link/BackendOptions.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <optional>

using namespace llvm;

namespace ulto {

// The options of llvm/CodeGen/CommandFlags.cpp that lld-22 registers and
// clang-22 does not: `ld.lld-22 -mllvm --help-list-hidden` less
// `clang-22 -mllvm --help-list-hidden` (test/ld.ulto/dist-backend-options.
// test recomputes it). Sorted.
static constexpr StringLiteral LinkerOnlyLLVMOptions[] = {
    "addrsig",
    "align-loops",
    "basic-block-address-map",
    "basic-block-sections",
    "call-graph-section",
    "code-model",
    "data-sections",
    "debug-entry-values",
    "debugger-tune",
    "denormal-fp-math",
    "denormal-fp-math-f32",
    "disable-tail-calls",
    "emit-call-site-info",
    "emulated-tls",
    "enable-jmc-instrument",
    "enable-no-infs-fp-math",
    "enable-no-nans-fp-math",
    "enable-no-signed-zeros-fp-math",
    "enable-no-trapping-fp-math",
    "enable-sign-dependent-rounding-fp-math",
    "enable-tlsdesc",
    "exception-model",
    "filetype",
    "float-abi",
    "force-dwarf-frame-section",
    "fp-contract",
    "frame-pointer",
    "function-sections",
    "ignore-xcoff-visibility",
    "large-data-threshold",
    "load",
    "march",
    "mattr",
    "mcpu",
    "meabi",
    "mxcoff-roptr",
    "no-integrated-as",
    "nozero-initialized-in-bss",
    "partition-static-data-sections",
    "relocation-model",
    "separate-named-sections",
    "split-machine-functions",
    "stack-size-section",
    "stack-symbol-ordering",
    "stackrealign",
    "strict-dwarf",
    "swift-async-fp",
    "tailcallopt",
    "thread-model",
    "tls-size",
    "trap-func",
    "unique-basic-block-section-names",
    "unique-section-names",
    "use-ctors",
    "vec-extabi",
    "vector-library",
    "xcoff-traceback-table",
    "xray-function-index",
};

bool isLinkerOnlyLLVMOption(StringRef Name) {
  return std::binary_search(std::begin(LinkerOnlyLLVMOptions),
                            std::end(LinkerOnlyLLVMOptions), Name);
}

namespace {

// lld's --lto-CGO default for --lto-O<N>, which clang's -O<N> also gives the
// code generator (0, 1, 2, 3 alike).
constexpr StringLiteral DefaultOptLevel = "2";

// Collects the arguments and errors, one option at a time.
class Translator {
public:
  BackendOptions Result;

  void add(std::initializer_list<StringRef> Args) {
    for (StringRef A : Args)
      Result.CompilerArgs.push_back(A.str());
  }

  void refuse(const LinkOption &O, const Twine &Why) {
    Result.Errors.push_back(
        ("--lto=distributed cannot honour " + O.AsTyped + ": " + Why).str());
    Result.Refused.push_back(O.AsTyped);
  }

  // An LLVM option as lld parses it: "-name" or "-name=value".
  void llvmOption(const LinkOption &O, StringRef Arg) {
    StringRef Name = Arg.ltrim('-').split('=').first;
    if (!isLinkerOnlyLLVMOption(Name)) {
      add({"-mllvm", Arg});
      return;
    }
    // The target machine's CPU and features (clang's driver passes its
    // target CPU to every LTO link): clang-22 gives every function it
    // compiles its own target-cpu and target-features, which decide its code
    // in-process too, so they are left to those.
    if (Name == "mcpu" || Name == "mattr")
      return;
    // clang's driver passes these to every LTO link whose command line has
    // -ffunction-sections or -fdata-sections (CMake gives links the compile
    // flags): they are clang's -f options, which lld gives every job anyway.
    if (Name == "function-sections" || Name == "data-sections") {
      StringRef Value = Arg.contains('=') ? Arg.split('=').second : "1";
      if (Value == "1" || Value == "true")
        return add({("-f" + Name).str()});
      if (Value == "0" || Value == "false")
        return add({("-fno-" + Name).str()});
    }
    refuse(O,
           "clang-22 has no LLVM option -" + Name + "; link with --lto=thin");
  }

  // Translates an option whose arguments depend on no other option.
  void translate(const LinkOption &O) {
    StringRef Name = O.Name;
    if (Name == "mllvm")
      llvmOption(O, O.Value);
    else if (Name == "plugin-opt=-")
      llvmOption(O, "-" + O.Value);
    else if (Name == "plugin-opt=mcpu=")
      llvmOption(O, "-mcpu=" + O.Value);
    else if (Name == "lto-basic-block-sections=") {
      if (O.Value == "all" || O.Value == "none")
        add({"-fbasic-block-sections=" + O.Value});
      else
        refuse(O, "the jobs take 'all' or 'none'");
    } else if (Name == "load-pass-plugin")
      add({"-fpass-plugin=" + O.Value});
    else if (Name == "lto-cs-profile-generate" ||
             Name == "lto-cs-profile-file=")
      refuse(O, "context-sensitive PGO needs the in-process backends; link "
                "with --lto=thin");
    else if (Name == "lto-emit-asm" || Name == "lto-emit-llvm")
      refuse(O, "the backend jobs write objects; link with --lto=thin");
    else if (Name == "lto-newpm-passes=" || Name == "lto-aa-pipeline=")
      refuse(O, "clang-22 runs its own pipeline; link with --lto=thin");
    else if (Name == "plugin-opt=dwo_dir=")
      refuse(O, "the backend jobs write no split DWARF; link with "
                "--lto=thin");
  }

  // Records an option whose arguments depend on others, or on the last of
  // its kind; false if \p O is not one.
  bool record(const LinkOption &O) {
    StringRef Name = O.Name;
    if (Name == "pie" || Name == "no-pie")
      Pie = Name == "pie";
    else if (Name == "shared")
      Shared = true;
    else if (Name == "relocatable")
      Relocatable = &O;
    else if (Name == "lto-O")
      OptLevel = O.Value;
    else if (Name == "lto-CGO")
      CodegenLevel = &O;
    else if (Name == "lto-basic-block-address-map" ||
             Name == "no-lto-basic-block-address-map")
      AddressMap = Name == "lto-basic-block-address-map";
    else if (Name == "lto-unique-basic-block-section-names" ||
             Name == "no-lto-unique-basic-block-section-names")
      UniqueNames = Name == "lto-unique-basic-block-section-names";
    else
      return false;
    return true;
  }

  // lld gives the jobs -fpic for PIC outputs and nothing otherwise, so they
  // would get clang-22's default (-fPIE on Debian) where in-process code
  // generation is static. A relocatable output keeps each module's own
  // model in-process: static for -fno-pic modules, PIC otherwise, PIE or
  // not as the module's own flags say, which is what clang-22's default
  // (position-independent on Linux) does with them.
  void relocationModel(ModulesPIC Modules) {
    if (!Pie && !Shared && !Relocatable)
      add({"-fno-pic"});
    if (Relocatable && Modules == ModulesPIC::None)
      add({"-fno-pic"});
    if (Relocatable && Modules == ModulesPIC::Mixed)
      refuse(*Relocatable, "its modules were compiled with and without "
                           "-fno-pic, and each job gets the link's one "
                           "relocation model; link with --lto=thin");
  }

  // The arguments of the last --lto-O, --lto-CGO and basic block options.
  void codeGeneration() {
    // In-process ThinLTO unrolls and interleaves loops at every level; clang
    // from -O2 on.
    if (OptLevel == "1")
      add({"-funroll-loops"});
    if (CodegenLevel && CodegenLevel->Value != OptLevel)
      refuse(*CodegenLevel, "the jobs' code generation level follows --lto-O" +
                                OptLevel + "; link with --lto=thin");
    if (AddressMap.value_or(false))
      add({"-fbasic-block-address-map"});
    if (UniqueNames.value_or(false))
      add({"-funique-basic-block-section-names"});
  }

private:
  bool Pie = false, Shared = false;
  const LinkOption *Relocatable = nullptr;
  std::string OptLevel = DefaultOptLevel.str();
  const LinkOption *CodegenLevel = nullptr;
  std::optional<bool> AddressMap, UniqueNames;
};

} // namespace

BackendOptions distributedBackendOptions(ArrayRef<LinkOption> Options,
                                         ModulesPIC Modules) {
  Translator T;
  // Options whose arguments depend on others wait for the whole command line.
  for (const LinkOption &O : Options)
    if (!T.record(O))
      T.translate(O);
  T.relocationModel(Modules);
  T.codeGeneration();
  return std::move(T.Result);
}

} // namespace ulto
