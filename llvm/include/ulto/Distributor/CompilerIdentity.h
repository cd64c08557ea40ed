//===- CompilerIdentity.h - Who compiles a backend job ----------*- C++ -*-===//
//
// One input of every backend job (BackendInputs.h), so of its key and its
// remote action: the compiler, named by its executable's bytes and what it
// says for --version. Executors say how to ask it (VersionProbe): a
// process of its own, or the worker that runs the jobs.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_COMPILERIDENTITY_H
#define ULTO_DISTRIBUTOR_COMPILERIDENTITY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <string>

namespace ulto {

/// Writes what the compiler at \p Compiler (a path) prints for --version to
/// \p OutputFile.
using VersionProbe = std::function<llvm::Error(const std::string &Compiler,
                                               llvm::StringRef OutputFile)>;

/// Who compiles: the compiler executable's bytes and its --version output,
/// less the line naming the install directory. \p Compiler is a path or a
/// name looked up in PATH; \p Probe asks it for --version.
llvm::Expected<std::string> computeCompilerIdentity(llvm::StringRef Compiler,
                                                    const VersionProbe &Probe);

} // namespace ulto

#endif
