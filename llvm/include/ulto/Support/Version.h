//===- Version.h - Which ulto this is ---------------------------*- C++ -*-===//

#ifndef ULTO_SUPPORT_VERSION_H
#define ULTO_SUPPORT_VERSION_H

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

namespace ulto {

/// "ulto version X (LLVM Y)", for --version of ulto and of each command.
inline void printVersion(llvm::raw_ostream &OS) {
  OS << "ulto version " ULTO_VERSION " (LLVM " LLVM_VERSION_STRING ")\n";
}

} // namespace ulto

#endif // ULTO_SUPPORT_VERSION_H
