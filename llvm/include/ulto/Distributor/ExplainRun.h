//===- ExplainRun.h - Why a backend job ran ---------------------*- C++ -*-===//
//
// A relink that runs 300 backend jobs should say why, as ninja's -d explain
// and Bazel's --explain do. A job runs when the cache has no entry under its
// key, and the key is made of the compiler, the code generation options, the
// module's bytes, the imported modules' bytes and the index shard
// (BackendInputs.h): the reason is the component that changed since the
// last link of the same output ran the job here. Each job that runs, or
// whose object a remote cache gives, leaves its components in the cache
// directory (explain-<uid>/, private to the user,
// one small file per link output and module, pruned with the cache) for the
// next link to compare.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_EXPLAINRUN_H
#define ULTO_DISTRIBUTOR_EXPLAINRUN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ulto {

/// What a backend job's cache key was made of, each module by what it is to
/// the user (moduleIdentity) with its content digest.
struct KeyComponents {
  std::string Key;
  std::string Compiler;
  /// The arguments with their paths replaced by roles (normaliseArgs).
  std::vector<std::string> Args;
  std::string ModuleDigest;
  /// The imported modules in their paths' order: identity, digest.
  std::vector<std::pair<std::string, std::string>> Imports;
  /// The shared inputs' digests, and the digest of the shard the key hashed.
  std::vector<std::string> CommonDigests;
  std::string ShardDigest;
};

bool operator==(const KeyComponents &A, const KeyComponents &B);

/// The module a path of a job list stands for: "libsdk.a(shapes.o)" for lld's
/// file of an archive member ("out/libsdk.a(shapes.o at 1824).2.6966.o"),
/// any other path as it is.
std::string moduleIdentity(llvm::StringRef Path);

/// Why a job whose key is made of \p Now ran, against \p Before, the
/// components of the last link of the same output that ran it (none: no
/// such link). One line, e.g. "an imported module changed: libsdk.a(a.o)".
std::string explainRun(const std::optional<KeyComponents> &Before,
                       const KeyComponents &Now);

/// The components of the jobs that ran, kept in a cache directory.
class ExplainRecords {
public:
  explicit ExplainRecords(std::string CacheDirectory);

  /// The record of module \p Module in the last link of \p LinkerOutput
  /// that ran it; none when there is none that the user wrote.
  std::optional<KeyComponents> load(llvm::StringRef LinkerOutput,
                                    llvm::StringRef Module) const;
  /// Replaces that record, atomically.
  llvm::Error save(llvm::StringRef LinkerOutput, llvm::StringRef Module,
                   const KeyComponents &Components) const;
  /// Whether the records' directory is another's (or not a directory), so
  /// that no record can be kept: not a full disk, which the cache says.
  bool directoryTaken() const;
  /// Removes the records not written for \p Expiration (0: none), then the
  /// oldest until at most \p MaxFiles remain (0: no limit).
  void prune(std::chrono::seconds Expiration, size_t MaxFiles) const;

private:
  std::string path(llvm::StringRef LinkerOutput, llvm::StringRef Module) const;
  std::string Directory;
};

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_EXPLAINRUN_H
