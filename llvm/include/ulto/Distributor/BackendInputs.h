//===- BackendInputs.h - What determines a backend job's object -*- C++ -*-===//
//
// The one list of what a ThinLTO backend job's object depends on: the
// compiler, its arguments, the module, the modules it imports from, the
// shared inputs (a sample profile) and the index shard. The local cache key
// (CacheKey.h), the remote action (RemoteAction.h) and explain's components
// (ExplainRun.h) are each made from a BackendInputs and from nothing else
// the job holds, so they cannot drift apart: an input added here reaches all
// three, and BackendInputsTest changes each kind of input in turn and checks
// that the key, the action and the explanation all see it.
//
// Everything is named by what it is, never by where it lies: the paths the
// job's arguments name become their roles, the files are named by content
// (ContentNames.h), and the shard names its modules so. Where the checkout,
// the build directory or the cache lives is no input.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_BACKENDINPUTS_H
#define ULTO_DISTRIBUTOR_BACKENDINPUTS_H

#include "ulto/Distributor/ContentNames.h"
#include "ulto/Distributor/JobList.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace ulto {

/// The kinds of input, in the order the key hashes them.
enum class BackendInput : unsigned {
  Compiler,
  Arguments,
  Module,
  Imports,
  SharedInputs,
  Shard,
};
inline constexpr unsigned NumBackendInputs = unsigned(BackendInput::Shard) + 1;

/// What a user calls the input: "compiler", "index shard", ...
llvm::StringRef backendInputName(BackendInput Input);

struct BackendInputs {
  /// Who compiles (CompilerIdentity.h); empty where it is not known.
  std::string Compiler;
  /// The arguments after the compiler, the paths replaced by their roles
  /// (normaliseArgs).
  std::vector<std::string> Args;
  /// The module, the modules it imports from and the shared inputs.
  ContentNames Files;
  /// The module's own name among Files.
  std::string ModuleName;
  /// The index shard, its modules named as Files names them.
  std::string Shard;
};

/// The inputs of \p Job of \p List, whose compiler is \p CompilerIdentity,
/// the files named by \p ContentHex; the shard is \p Shard if given (one
/// completed in memory, ShardCompletion.h), else the file.
llvm::Expected<BackendInputs>
collectBackendInputs(const JobList &List, const BackendJob &Job,
                     llvm::StringRef CompilerIdentity,
                     ContentHexFunction ContentHex,
                     std::optional<llvm::StringRef> Shard = std::nullopt);

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

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_BACKENDINPUTS_H
