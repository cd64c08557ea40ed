//===- NinjaFile.h - Backend jobs as a ninja build file ---------*- C++ -*-===//
//
// The jobs of a distributed link as a ninja file: one edge per job, from the
// module, its index shard and its imports to its object, with the exact
// command. Paths are relative to the linker's working directory, like the
// job list's; the files exist while the link runs (keep them with lld's
// --save-temps to rerun the graph later).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_NINJAFILE_H
#define ULTO_DISTRIBUTOR_NINJAFILE_H

#include "ulto/Distributor/JobList.h"

#include "llvm/Support/raw_ostream.h"

namespace ulto {

void writeNinjaFile(const JobList &List, llvm::raw_ostream &OS);

/// \p Path escaped for a ninja build line: '$', ' ', ':' and newlines.
std::string escapeNinjaPath(llvm::StringRef Path);

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_NINJAFILE_H
