//===- ObjectInShardFile.h - A backend job's object in its shard's file ---===//
//
// lld-22's DTLTO makes two files for each backend job next to its output,
// the job's index shard and its object, and removes both after the link. On
// ext4 without a journal (this project's machines) every new inode costs a
// search past each inode freed in the last minute (bench/README.md): a
// link's jobs pay it twice each, in-process ThinLTO not at all.
//
// Once the job has read its shard, lld needs only the object. This output
// backend writes the object into the shard's file: the shard is renamed to a
// temporary name next to the object, overwritten, cut to size and renamed to
// the object's path, so that the object takes no inode of its own and one
// fewer is freed. The object appears whole or not at all, as clang's own
// temporary-and-rename gives it. Only for a shard the link owns and removes
// (the distributor knows: not under --save-temps or
// --thinlto-emit-index-files), a regular file with no other link. Where the
// shard cannot be taken, the object is written as clang writes it.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_FRONTEND_OBJECTINSHARDFILE_H
#define ULTO_FRONTEND_OBJECTINSHARDFILE_H

#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/VirtualOutputBackend.h"

namespace ulto {

/// `-fulto-object-in-thinlto-index`, ulto's -cc1 only: the job's
/// -fthinlto-index= file is a temporary that its object may take over.
inline constexpr llvm::StringLiteral ObjectInShardFileOption =
    "-fulto-object-in-thinlto-index";

/// clang's on-disk outputs, except that \p Object, once kept, is written into
/// the file of \p Shard, which then no longer exists.
llvm::IntrusiveRefCntPtr<llvm::vfs::OutputBackend>
objectInShardFile(llvm::StringRef Object, llvm::StringRef Shard);

} // namespace ulto

#endif // ULTO_FRONTEND_OBJECTINSHARDFILE_H
