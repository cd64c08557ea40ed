//===- Commands.h - The subcommands of the ulto multi-tool ------*- C++ -*-===//
//
// Each subcommand is a main function over the arguments after its name.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_TOOLS_ULTO_COMMANDS_H
#define ULTO_TOOLS_ULTO_COMMANDS_H

#include "llvm/ADT/ArrayRef.h"

namespace ulto {

/// `ulto inspect FILE...`: the LTO modules in bitcode files and archives.
int inspectMain(llvm::ArrayRef<const char *> Args);

} // namespace ulto

#endif // ULTO_TOOLS_ULTO_COMMANDS_H
