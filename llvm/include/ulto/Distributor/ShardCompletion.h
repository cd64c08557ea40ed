//===- ShardCompletion.h - What lld's index shards leave out ----*- C++ -*-===//
//
// In-process ThinLTO gives every backend the whole link's index; lld-22's
// DTLTO gives a job a shard with the summaries of its own module and of what
// it imports. A backend asks the index whether each global its module only
// declares is defined in the output (ValueInfo::isDSOLocal, in
// FunctionImportGlobalProcessing). For a global the module refers to but
// imports nothing of, the shard has no answer, and the job reaches it through
// the GOT where in-process ThinLTO does not: a vtable that the split put in
// another module's regular LTO half, a -fcommon variable defined twice. The
// program is then a few bytes per access larger than --lto=thin's.
//
// ShardCompletion gives each job those answers: for every global that
// the summaries of its module and of what it imports refer to, that its
// shard has no summary for, and that every summary of the link marks
// dso_local, it adds a summary of that global to the shard, live and
// dso_local, attributed to the job's own module (so that clang imports
// nothing more, and leaves it alone as it leaves declarations alone).
//
// The references come from the modules' own summaries in the bitcode: a
// shard keeps only the references whose targets it holds. An imported
// alias refers to what its aliasee's body does: the job imports a copy of
// that body, and lld's shard holds the alias alone. The flags come
// from the other jobs' shards, which carry the thin link's (lld marks the
// definitions it resolved in the output dso_local), and, for the regular LTO
// halves, which no shard holds, from their summaries in the bitcode, which
// the thin link reads as they are. Where copies disagree, the global is not
// dso_local, as the thin link's attribute propagation decides.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_SHARDCOMPLETION_H
#define ULTO_DISTRIBUTOR_SHARDCOMPLETION_H

#include "ulto/Distributor/JobList.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>

namespace ulto {

/// What completing a link's shards needs from the whole link: the thin
/// link's flags (from every shard) and the regular LTO halves' definitions,
/// read in parallel when it is made. Each job's shard is then completed by
/// the thread that runs the job, which reads the references of its module
/// and imports (each file once, for whichever job needs it first).
class ShardCompletion {
public:
  explicit ShardCompletion(const JobList &List);
  ~ShardCompletion();

  /// Why job \p I's shard, which exists, is not an index shard LLVM can
  /// read (empty, cut, corrupt); the job cannot run without it.
  llvm::Error unreadable(size_t I) const;

  /// Job \p I's shard with the summaries it lacks, written as LLVM writes
  /// an index; std::nullopt when it lacks none, or when an input cannot be
  /// read (its job reports that when it runs). Call once per job; jobs may
  /// be completed concurrently.
  llvm::Expected<std::optional<std::string>> complete(size_t I);

  /// Writes \p Shard, job \p I's completed shard, in place of lld's, whole
  /// or not at all; the error says that the job's backend then reaches the
  /// globals as lld's shard has it. The caller holds off interrupts while
  /// it writes (a WriteGuard).
  llvm::Error write(size_t I, llvm::StringRef Shard);

private:
  struct Link;
  std::unique_ptr<Link> L;
};

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_SHARDCOMPLETION_H
