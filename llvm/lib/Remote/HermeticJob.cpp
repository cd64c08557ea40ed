//===- HermeticJob.cpp - A backend job that names only its own files ------===//

#include "HermeticJob.h"

#include "ulto/Distributor/CacheKey.h"
#include "ulto/Distributor/FileDigest.h"
#include "ulto/Distributor/IndexShard.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace ulto {

// A short name for the file at \p Local, made from its digest and its
// extension (clang picks the input type by it).
static Expected<std::string>
contentName(StringRef Local, ContentHexFunction ContentHex, StringRef Prefix) {
  Expected<std::string> Hex = ContentHex(Local);
  if (!Hex)
    return Hex.takeError();
  std::string Name = Prefix.str() + Hex->substr(0, 16);
  StringRef Extension = sys::path::extension(Local);
  if (Extension.size() > 1 && all_of(Extension.drop_front(), isAlnum))
    Name += Extension;
  return Name;
}

Expected<HermeticJob> makeHermetic(const JobList &List, const BackendJob &Job,
                                   ContentHexFunction ContentHex) {
  HermeticJob Result;
  StringMap<std::string> NewPath;

  // Modules: "m/<rank>-<digest>", the rank from the local paths' order.
  std::vector<StringRef> Modules = {Job.module()};
  append_range(Modules, Job.imports());
  llvm::sort(Modules);
  size_t Width = std::max<size_t>(4, std::to_string(Modules.size()).size());
  for (auto [Rank, Local] : enumerate(Modules)) {
    std::string Rank10 = std::to_string(Rank);
    Expected<std::string> Name = contentName(
        Local, ContentHex,
        "m/" + std::string(Width - Rank10.size(), '0') + Rank10 + "-");
    if (!Name)
      return Name.takeError();
    NewPath[Local] = *Name;
    Result.Files.push_back({*Name, Local.str()});
  }
  for (auto [I, Local] : enumerate(List.CommonInputs)) {
    Expected<std::string> Name =
        contentName(Local, ContentHex, "c/" + std::to_string(I) + "-");
    if (!Name)
      return Name.takeError();
    NewPath[Local] = *Name;
    Result.Files.push_back({*Name, Local});
  }
  Result.ShardPath = "index.thinlto.bc";
  Result.OutputPath = "backend.o";
  NewPath[Job.indexShard()] = Result.ShardPath;
  NewPath[Job.output()] = Result.OutputPath;

  Expected<std::unique_ptr<MemoryBuffer>> Shard =
      readWholeFile(Job.indexShard());
  if (!Shard)
    return Shard.takeError();
  Expected<std::string> Renamed = renameShardModules(
      **Shard, [&](StringRef Module) -> Expected<std::string> {
        auto It = NewPath.find(Module);
        if (It == NewPath.end())
          return createStringError("%s: names module '%s', which is not "
                                   "among the job's inputs",
                                   Job.indexShard().str().c_str(),
                                   Module.str().c_str());
        return It->second;
      });
  if (!Renamed)
    return Renamed.takeError();
  Result.Shard = std::move(*Renamed);
  Result.Args =
      replaceJobPaths(List, Job, [&](StringRef Path, PathRole, size_t) {
        return NewPath.lookup(Path);
      });
  return Result;
}

} // namespace ulto
