//===- ObjectCheck.h - Is a backend's output fit to link? -------*- C++ -*-===//
//
// A backend job that exits 0 has not necessarily produced an object: clang-22
// writes an empty file when an imported module or the index is missing
// (llvm-project #75441), and lld then drops the empty object silently. Every
// output, run or cached, is checked before the link may use it.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_OBJECTCHECK_H
#define ULTO_DISTRIBUTOR_OBJECTCHECK_H

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/TargetParser/Triple.h"

namespace ulto {

/// Checks that \p Object is a relocatable object file for \p Target's
/// architecture. The error says what it is instead ("is empty", ...).
llvm::Error checkBackendObject(llvm::MemoryBufferRef Object,
                               const llvm::Triple &Target);

/// The target triple of the bitcode module in \p Path.
llvm::Expected<llvm::Triple> readModuleTriple(llvm::StringRef Path);

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_OBJECTCHECK_H
