//===- HermeticJob.h - A job that names only its own files ------*- C++ -*-===//
//
// A remote worker sees nothing but the job's input root, while the job's
// command and index shard name modules by the paths the linker was given:
// absolute, outside the build directory, or lld's archive-member files whose
// names hold the linker's PID. The hermetic form puts every file at a short
// relative path named by its content, rewrites the index shard's module paths
// and the command to match, and so makes the same backend work the same
// action in every link and build directory.
//
// The files, their names and the shard are the job's inputs
// (BackendInputs.h), the ones the local cache key hashes: the names keep the
// old names' order, which the backend imports in, so the object equals the
// local one.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LIB_REMOTE_HERMETICJOB_H
#define ULTO_LIB_REMOTE_HERMETICJOB_H

#include "ulto/Distributor/BackendInputs.h"
#include "ulto/Distributor/JobList.h"

#include <string>
#include <vector>

namespace ulto {

struct HermeticJob {
  /// A file of the input root read from this machine.
  struct File {
    std::string Path;      ///< In the input root.
    std::string LocalPath; ///< As the job list names it.
  };
  std::vector<File> Files; ///< The module, its imports, the shared inputs.
  std::string ShardPath;   ///< In the input root.
  std::string Shard;       ///< The rewritten index shard.
  std::string OutputPath;  ///< In the input root.
  /// The command after the compiler, naming the input root's paths.
  std::vector<std::string> Args;
};

/// Rewrites \p Job of \p List, whose inputs are \p Inputs: the files and
/// the shard as \p Inputs name them.
HermeticJob makeHermetic(const JobList &List, const BackendJob &Job,
                         const BackendInputs &Inputs);

} // namespace ulto

#endif // ULTO_LIB_REMOTE_HERMETICJOB_H
