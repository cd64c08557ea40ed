//===- CacheKey.h - What determines a ThinLTO backend's object --*- C++ -*-===//
//
// A backend job's object is determined by the compiler, its options, the
// module's bytes, the index shard's content and the bytes of the modules it
// imports from. The key hashes exactly those, with every path the linker
// chose (temporary names, archive-member files, build directories) replaced
// by what it stands for, so that the same work hits across links, binaries
// and build directories.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_CACHEKEY_H
#define ULTO_DISTRIBUTOR_CACHEKEY_H

#include "ulto/Distributor/FileDigest.h"
#include "ulto/Distributor/JobList.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <optional>
#include <string>

namespace ulto {

/// What a path in a backend job's command stands for.
enum class PathRole { Module, Shard, Import, Output, Common };

/// The job's arguments after the compiler, each path the job names (its
/// inputs and output) replaced by \p Replacement(Path, Role, Index), where
/// Index counts imports and shared inputs. A path given as an option value
/// ("-fthinlto-index=PATH") is replaced after the '='.
std::vector<std::string>
replaceJobPaths(const JobList &List, const BackendJob &Job,
                llvm::function_ref<std::string(llvm::StringRef Path,
                                               PathRole Role, size_t Index)>
                    Replacement);

/// The job's arguments after the compiler, each path replaced by its role:
/// %module, %shard, %import, %output, %common<N>.
std::vector<std::string> normaliseArgs(const JobList &List,
                                       const BackendJob &Job);

/// The index shard as LLVM prints a summary index, with each module path
/// replaced by \p NameOf(path) (when it has a value) and the module entries
/// put in name order, so that the text depends on what the modules are, not
/// on where they were.
llvm::Expected<std::string> normaliseIndexShard(
    llvm::MemoryBufferRef Shard,
    llvm::function_ref<std::optional<std::string>(llvm::StringRef)> NameOf);

/// Who compiles: the compiler executable's bytes and its --version output,
/// less the line naming the install directory. \p Compiler is a path or a
/// name looked up in PATH.
llvm::Expected<std::string> computeCompilerIdentity(llvm::StringRef Compiler);

/// The job's cache key, 64 hex digits.
llvm::Expected<std::string> computeBackendKey(const JobList &List,
                                              const BackendJob &Job,
                                              llvm::StringRef CompilerIdentity,
                                              FileDigests &Digests);

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_CACHEKEY_H
