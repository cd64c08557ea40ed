//===- IndexShard.cpp - A backend job's slice of the index ----------------===//

#include "ulto/Distributor/IndexShard.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/ModuleSummaryIndex.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ulto {

Expected<std::unique_ptr<ModuleSummaryIndex>>
readIndexShard(MemoryBufferRef Shard) {
  Expected<std::unique_ptr<ModuleSummaryIndex>> Index =
      getModuleSummaryIndex(Shard);
  if (!Index)
    return createStringError("%s: not a ThinLTO index: %s",
                             Shard.getBufferIdentifier().str().c_str(),
                             toString(Index.takeError()).c_str());
  return Index;
}

Expected<std::string>
renameShardModules(MemoryBufferRef Shard,
                   function_ref<Expected<std::string>(StringRef)> NewPath) {
  Expected<std::unique_ptr<ModuleSummaryIndex>> Index = readIndexShard(Shard);
  if (!Index)
    return Index.takeError();
  StringMap<ModuleHash> &Modules = (*Index)->modulePaths();
  std::vector<std::pair<std::string, std::string>> Renames;
  StringSet<> Old;
  for (const auto &Entry : Modules) {
    Expected<std::string> New = NewPath(Entry.getKey());
    if (!New)
      return New.takeError();
    Renames.push_back({Entry.getKey().str(), std::move(*New)});
    Old.insert(Entry.getKey());
  }
  // Summaries point at their module's entry: add the new entries, move the
  // summaries over, then drop the old entries.
  StringMap<StringRef> Moved;
  for (auto &[From, To] : Renames) {
    if (From != To && Old.contains(To))
      return createStringError("%s: cannot rename module '%s' to '%s', which "
                               "the index already names",
                               Shard.getBufferIdentifier().str().c_str(),
                               From.c_str(), To.c_str());
    ModuleHash Hash = Modules.find(From)->second;
    Moved[From] = (*Index)->addModule(To, Hash)->first();
  }
  for (auto &[GUID, Info] : **Index)
    for (const std::unique_ptr<GlobalValueSummary> &Summary :
         Info.getSummaryList())
      Summary->setModulePath(Moved.find(Summary->modulePath())->second);
  for (auto &[From, To] : Renames)
    if (From != To)
      Modules.erase(From);

  // Each summary's flags, which mark what to import as a declaration only,
  // are written as read (HermeticJobTest checks).
  std::string Bytes;
  raw_string_ostream OS(Bytes);
  writeIndexToFile(**Index, OS);
  return Bytes;
}

} // namespace ulto
