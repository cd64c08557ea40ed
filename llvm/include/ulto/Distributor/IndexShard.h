//===- IndexShard.h - A backend job's slice of the index --------*- C++ -*-===//
//
// The thin link writes one index shard per backend job: the summaries the
// job imports and the modules they come from, named by the paths the linker
// was given. Those paths say nothing about the work (temporary names, the
// linker's PID in archive-member files, build directories), so both the
// cache key and the remote action rename them, structurally, through LLVM's
// own summary reader and writer (IndexShard.cpp says what the writer would
// lose and how it is kept).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_INDEXSHARD_H
#define ULTO_DISTRIBUTOR_INDEXSHARD_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <memory>
#include <string>

namespace llvm {
class ModuleSummaryIndex;
} // namespace llvm

namespace ulto {

/// Reads an index shard; the error names the shard.
llvm::Expected<std::unique_ptr<llvm::ModuleSummaryIndex>>
readIndexShard(llvm::MemoryBufferRef Shard);

/// \p Index written as a shard, in the order of LLVM's writer, with its CFI
/// function lists and type ID resolutions whole; the error names the shard
/// \p Name.
llvm::Expected<std::string>
writeIndexShard(const llvm::ModuleSummaryIndex &Index, llvm::StringRef Name);

/// The index shard with each module path P renamed to \p NewPath(P), which
/// must give a name for every module the shard lists, written in an order of
/// LLVM's writer: the same content gives the same bytes.
llvm::Expected<std::string> renameShardModules(
    llvm::MemoryBufferRef Shard,
    llvm::function_ref<llvm::Expected<std::string>(llvm::StringRef)> NewPath);

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_INDEXSHARD_H
