//===- DistOptTable.h - The options of ulto dist ----------------*- C++ -*-===//
//
// `ulto dist`'s options (DistOpts.td), which ld.ulto also reads: it checks
// its --dist-* options before the link, and hands the ones that choose the
// workers to a `ulto dist` it starts early (AttachedCommand.h).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTPROTOCOL_DISTOPTTABLE_H
#define ULTO_DISTPROTOCOL_DISTOPTTABLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace ulto::dist {

#define ULTO_OPTIONS_INC "ulto/DistProtocol/DistOpts.inc"
#include "ulto/Support/OptionIDs.def"
#undef ULTO_OPTIONS_INC

/// The table, one for the process: parsed arguments point into it.
const llvm::opt::OptTable &optTable();

/// Parses \p Args; for --help or --version, prints that instead and returns
/// std::nullopt.
std::optional<llvm::opt::InputArgList> parse(llvm::ArrayRef<const char *> Args);

/// One error per argument the table does not know.
llvm::Error unknownArguments(const llvm::opt::InputArgList &List);

/// Whether \p A chooses the workers (the group grp_workers).
bool isWorkerOption(const llvm::opt::Arg &A);

/// The worker options, as a user reads them: "--jobs-per-process=, --service,
/// ... and --service-limit=".
std::string workerOptionNames();

} // namespace ulto::dist

#endif // ULTO_DISTPROTOCOL_DISTOPTTABLE_H
