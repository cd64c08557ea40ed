//===- CacheKey.h - What determines a ThinLTO backend's object --*- C++ -*-===//
//
// A backend job's object is determined by the compiler, its options, the
// module's bytes, the bytes of the modules it imports from, the index shard
// and the shared inputs. The key hashes exactly those, with every path the
// linker chose (temporary names, archive-member files, build directories)
// replaced by what it stands for, so that the same work hits across links,
// binaries and build directories.
//
// The files are named by content as the remote executor names them
// (ContentNames.h): the rank of a module's path among the job's module paths
// is part of its name, because the backend imports in the paths' order and
// the object shows it. The shard is renamed structurally to those names and
// hashed as LLVM's writer writes it (IndexShard.h). Rejected: printing the
// shard as text and patching module slots into it (the printer leaves out
// the CFI lists, and the text is an interface nobody promised to keep), and
// hashing the imports as a set (both orders would get one key).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_CACHEKEY_H
#define ULTO_DISTRIBUTOR_CACHEKEY_H

#include "ulto/Distributor/CompilerIdentity.h"
#include "ulto/Distributor/ExplainRun.h"
#include "ulto/Distributor/FileDigest.h"
#include "ulto/Distributor/JobList.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

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

/// The job's cache key, 64 hex digits: a version tag, \p CompilerIdentity,
/// the role-normalised arguments, each file's content name and digest, and
/// the index shard naming its modules so (\p Shard if given, else the
/// file). With \p Components, also what the key was made of, for
/// explaining why the job ran (ExplainRun.h).
llvm::Expected<std::string>
computeBackendKey(const JobList &List, const BackendJob &Job,
                  llvm::StringRef CompilerIdentity, FileDigests &Digests,
                  std::optional<llvm::StringRef> Shard = std::nullopt,
                  KeyComponents *Components = nullptr);

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_CACHEKEY_H
