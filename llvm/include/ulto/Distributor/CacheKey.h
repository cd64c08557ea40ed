//===- CacheKey.h - What determines a ThinLTO backend's object --*- C++ -*-===//
//
// A backend job's object is determined by its inputs (BackendInputs.h): the
// compiler, its options, the module's bytes, the bytes of the modules it
// imports from, the index shard and the shared inputs. The key hashes
// exactly those, with every path the linker chose (temporary names,
// archive-member files, build directories) replaced by what it stands for,
// so that the same work hits across links, binaries and build directories.
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

#include "ulto/Distributor/BackendInputs.h"
#include "ulto/Distributor/ExplainRun.h"
#include "ulto/Distributor/FileDigest.h"
#include "ulto/Distributor/JobList.h"

#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace ulto {

/// The local cache key of a job with \p Inputs, 64 hex digits: a version
/// tag, then each input in BackendInput's order, files by content name and
/// digest (the job's own module by name too), and the renamed shard.
std::string backendKey(const BackendInputs &Inputs);

/// What \p Inputs are, as explain compares them (ExplainRun.h): each module
/// by its identity to the user, with its digest; \p Key is their key.
KeyComponents keyComponents(const BackendInputs &Inputs, llvm::StringRef Key);

/// The key of \p Job of \p List, whose compiler is \p CompilerIdentity,
/// the files named by their BLAKE3 digests (\p Digests); the shard is
/// \p Shard if given, else the file. With \p Components, also what the key
/// was made of.
llvm::Expected<std::string>
computeBackendKey(const JobList &List, const BackendJob &Job,
                  llvm::StringRef CompilerIdentity, FileDigests &Digests,
                  std::optional<llvm::StringRef> Shard = std::nullopt,
                  KeyComponents *Components = nullptr);

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_CACHEKEY_H
