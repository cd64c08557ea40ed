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
// completeIndexShards gives each job those answers: for every global that
// the summaries of its module and of what it imports refer to, that its
// shard has no summary for, and that every summary of the link marks
// dso_local, it adds a summary of that global to the shard, live and
// dso_local, attributed to the job's own module (so that clang imports
// nothing more, and leaves it alone as it leaves declarations alone).
//
// The references come from the modules' own summaries in the bitcode: a
// shard keeps only the references whose targets it holds. The flags come
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

#include <string>
#include <vector>

namespace ulto {

/// Rewrites the index shards of \p List's jobs, in place and each whole or
/// not at all, with the summaries described above. An input that cannot be
/// read completes nothing (its job reports it when it runs); a shard that
/// cannot be written is left as lld wrote it. Returns one warning per shard
/// left incomplete that way.
std::vector<std::string> completeIndexShards(const JobList &List);

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_SHARDCOMPLETION_H
