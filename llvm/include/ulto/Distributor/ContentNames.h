//===- ContentNames.h - A backend job's files named by content --*- C++ -*-===//
//
// A backend job names its files by the paths the linker chose: temporary
// names, lld's archive-member files with the linker's PID in them, build
// directories. The cache key and the remote action both need names that
// depend on the work only, so each file is named after its content:
// "m/<rank>-<16 hex digits of its digest><extension>" for the module and the
// modules it imports from, "c/<index>-<digits><extension>" for the shared
// inputs. The extension stays because clang picks an input's type by it.
//
// Why the rank: clang-22 imports from the source modules in the sorted order
// of their paths (FunctionImporter's getSourceModules), and the object shows
// that order (test/tools/ulto-dist/cache-import-order.test has a program
// whose object lists address-significant symbols in it). A module's rank is
// its path's position among the job's module paths in sorted order, and the
// rank leads the name, so the new names sort as the old ones did: the
// backend sees the same order, and the same modules named in another order
// are other names, another shard and another key. Naming by digest alone,
// or hashing the imports as a set, would give both orders one key.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_CONTENTNAMES_H
#define ULTO_DISTRIBUTOR_CONTENTNAMES_H

#include "ulto/Distributor/JobList.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace ulto {

/// A file's content digest in lowercase hex (at least 16 digits).
using ContentHexFunction =
    llvm::function_ref<llvm::Expected<std::string>(llvm::StringRef Path)>;

/// What a path in a backend job's command stands for.
enum class PathRole { Module, Shard, Import, Output, Common };

/// One of a job's input files and the name its content gives it.
struct NamedFile {
  std::string Name;       ///< "m/0001-0123456789abcdef.o", "c/0-….txt".
  std::string LocalPath;  ///< As the job list names it.
  std::string ContentHex; ///< The whole digest the name is made from.
  PathRole Role;          ///< Module, Import or Common.
};

/// A backend job's module, imports and shared inputs named by content.
struct ContentNames {
  /// The modules (the job's module and its imports) in the sorted order of
  /// their local paths, which is their names' order, then the shared inputs
  /// in the job list's order.
  std::vector<NamedFile> Files;
  /// Each file's name by its local path.
  llvm::StringMap<std::string> NameOf;
};

/// Names the files of \p Job of \p List by \p ContentHex.
llvm::Expected<ContentNames> nameByContent(const JobList &List,
                                           const BackendJob &Job,
                                           ContentHexFunction ContentHex);

/// \p Job's index shard with its modules renamed to \p Names; a module the
/// job does not name is an error naming the shard. The shard is \p Shard if
/// given (one completed in memory, ShardCompletion.h), else the file.
llvm::Expected<std::string>
renameShardByContent(const BackendJob &Job, const ContentNames &Names,
                     std::optional<llvm::StringRef> Shard = std::nullopt);

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_CONTENTNAMES_H
