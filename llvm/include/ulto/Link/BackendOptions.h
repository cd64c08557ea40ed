//===- BackendOptions.h - A link's code generation, for DTLTO jobs -*- C++
//-*-===//
//
// In-process ThinLTO generates code with options of the link: LLVM options
// (-mllvm, --plugin-opt=-..., which lld parses into its own process), the
// output's relocation model, basic block sections, pass plugins. lld-22's
// DTLTO gives its backend jobs only some of them (-O, -fpic for a PIC
// output, -ffunction-sections, -fdata-sections, -faddrsig, a sample profile),
// so a distributed link could silently build another program. ld.ulto passes
// the others to every job as clang-22 arguments (--thinlto-remote-compiler-
// arg=) and refuses, naming it, what clang-22 cannot be told.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LINK_BACKENDOPTIONS_H
#define ULTO_LINK_BACKENDOPTIONS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace ulto {

/// One option of an ld.lld command line as lld's option table parses it:
/// its name after aliases ("mllvm", "lto-O", "pie"), its value if any, and
/// the option as typed ("-mllvm -foo", "--lto-O1"), for messages.
struct LinkOption {
  std::string Name;
  std::string Value;
  std::string AsTyped;
};

/// What the backend jobs of a distributed link need to generate the code
/// in-process ThinLTO would.
struct BackendOptions {
  /// clang-22 arguments for every job, after lld's own.
  std::vector<std::string> CompilerArgs;
  /// One message per option that cannot reach the jobs.
  std::vector<std::string> Errors;
  /// Those options, as typed.
  std::vector<std::string> Refused;
};

/// How the ThinLTO modules of a link were compiled: a relocatable link (-r)
/// generates each module's code in-process with the relocation model the
/// module was compiled with.
enum class ModulesPIC {
  Unknown, ///< Not read (stock lld's jobs: nothing to add).
  All,     ///< Every module position-independent (-fpic, -fPIE).
  None,    ///< No module position-independent (-fno-pic).
  Mixed,   ///< Some of each: the jobs, which get one model, cannot follow.
};

/// The backend options of a link with \p Options, in command-line order;
/// \p Modules says how its modules were compiled, which matters for -r.
BackendOptions
distributedBackendOptions(llvm::ArrayRef<LinkOption> Options,
                          ModulesPIC Modules = ModulesPIC::Unknown);

/// Whether \p Name (no dashes, no value) is one of the LLVM code generation
/// options lld-22 registers and clang-22 does not (llvm/CodeGen/
/// CommandFlags.h): -mllvm cannot pass those to clang.
bool isLinkerOnlyLLVMOption(llvm::StringRef Name);

} // namespace ulto

#endif
