//===- Commands.h - The subcommands of the ulto multi-tool ------*- C++ -*-===//
//
// Each subcommand is a main function over the arguments after its name.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_TOOLS_ULTO_COMMANDS_H
#define ULTO_TOOLS_ULTO_COMMANDS_H

#include "ulto/Support/Message.h"
#include "ulto/Support/Version.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace ulto {

/// `ulto inspect FILE...`: the LTO modules in bitcode files and archives.
int inspectMain(llvm::ArrayRef<const char *> Args);

/// `ulto dist JOBS.json`: a ThinLTO distributor (LLVM's DTLTO protocol).
int distMain(llvm::ArrayRef<const char *> Args);

/// `ulto cache stats|prune`: the backend cache of `ulto dist`.
int cacheMain(llvm::ArrayRef<const char *> Args);

/// `ulto sdk check FILE...`: is this a universal bitcode SDK?
int sdkMain(llvm::ArrayRef<const char *> Args);

} // namespace ulto

#endif // ULTO_TOOLS_ULTO_COMMANDS_H
