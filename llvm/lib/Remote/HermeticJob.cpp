//===- HermeticJob.cpp - A backend job that names only its own files ------===//

#include "HermeticJob.h"

#include "llvm/ADT/StringMap.h"

using namespace llvm;

namespace ulto {

HermeticJob makeHermetic(const JobList &List, const BackendJob &Job,
                         const BackendInputs &Inputs) {
  HermeticJob Result;
  for (const NamedFile &F : Inputs.Files.Files)
    Result.Files.push_back({F.Name, F.LocalPath});
  Result.ShardPath = "index.thinlto.bc";
  Result.OutputPath = "backend.o";
  Result.Shard = Inputs.Shard;

  StringMap<std::string> NewPath = Inputs.Files.NameOf;
  NewPath[Job.indexShard()] = Result.ShardPath;
  NewPath[Job.output()] = Result.OutputPath;
  Result.Args =
      replaceJobPaths(List, Job, [&](StringRef Path, PathRole, size_t) {
        return NewPath.lookup(Path);
      });
  return Result;
}

} // namespace ulto
