//===- HermeticJob.cpp - A backend job that names only its own files ------===//

#include "HermeticJob.h"

#include "ulto/Distributor/CacheKey.h"

#include "llvm/ADT/StringMap.h"

using namespace llvm;

namespace ulto {

Expected<HermeticJob> makeHermetic(const JobList &List, const BackendJob &Job,
                                   ContentHexFunction ContentHex) {
  Expected<ContentNames> Names = nameByContent(List, Job, ContentHex);
  if (!Names)
    return Names.takeError();
  HermeticJob Result;
  for (const NamedFile &F : Names->Files)
    Result.Files.push_back({F.Name, F.LocalPath});
  Result.ShardPath = "index.thinlto.bc";
  Result.OutputPath = "backend.o";

  Expected<std::string> Renamed = renameShardByContent(Job, *Names);
  if (!Renamed)
    return Renamed.takeError();
  Result.Shard = std::move(*Renamed);

  StringMap<std::string> NewPath = Names->NameOf;
  NewPath[Job.indexShard()] = Result.ShardPath;
  NewPath[Job.output()] = Result.OutputPath;
  Result.Args =
      replaceJobPaths(List, Job, [&](StringRef Path, PathRole, size_t) {
        return NewPath.lookup(Path);
      });
  return Result;
}

} // namespace ulto
