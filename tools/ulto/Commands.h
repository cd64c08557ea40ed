//===- Commands.h - The subcommands of the ulto multi-tool ------*- C++ -*-===//
//
// Each subcommand is a main function over the arguments after its name.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_TOOLS_ULTO_COMMANDS_H
#define ULTO_TOOLS_ULTO_COMMANDS_H

#include "ulto/Distributor/JobList.h"
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

/// `ulto dist --await-command=FD [--await-checks=CHECKS] [OPTIONS]`: the
/// command line comes later, on \p FD, and runs after a pass read on
/// \p Checks, if not -1 (AttachedCommand.h); \p Options, those of its
/// options that choose the workers, come now.
int distAwaitCommand(int FD, int Checks, llvm::ArrayRef<const char *> Options);

/// `ulto cache stats|prune`: the backend cache of `ulto dist`.
int cacheMain(llvm::ArrayRef<const char *> Args);

/// `ulto sdk check FILE...`: is this a universal bitcode SDK?
int sdkMain(llvm::ArrayRef<const char *> Args);

/// Under stock ld.lld-22 (ulto dist's parent), warns once, as \p Tool, when
/// the link's options change in-process code generation in ways lld does not
/// pass to \p List's backend jobs (StockLinker.cpp).
void warnAboutStockLinker(llvm::StringRef Tool, const JobList &List);

/// Adds \p E to \p Errors.
inline void addError(llvm::Error &Errors, llvm::Error E) {
  Errors = llvm::joinErrors(std::move(Errors), std::move(E));
}

} // namespace ulto

#endif // ULTO_TOOLS_ULTO_COMMANDS_H
