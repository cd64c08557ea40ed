//===- ShardCompletion.cpp - What lld's index shards leave out ------------===//
//
// Three passes over the link (ShardCompletion.h says why):
//   1. read, in parallel, every bitcode file the jobs name (its ThinLTO half's
//      references by defining global, its regular halves' definitions) and
//      every shard;
//   2. merge what every definition's summaries say: dso_local only if all
//      say so;
//   3. per job, in parallel, add the summaries its module's and its imports'
//      references miss, and rewrite its shard when it gained any.
//
//===----------------------------------------------------------------------===//

#include "ulto/Distributor/ShardCompletion.h"

#include "ulto/Distributor/IndexShard.h"
#include "ulto/Support/AtomicFile.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/ModuleSummaryIndex.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Parallel.h"

#include <mutex>

using namespace llvm;

namespace ulto {

namespace {

using GUID = GlobalValue::GUID;

/// What the link's summaries of one global say.
struct Definition {
  bool DSOLocal = true;
  bool IsFunction = true; // The kind of summary to add for it.
};

/// One bitcode file the jobs name.
struct ModuleFile {
  /// The ThinLTO half's references (refs, calls, an alias's aliasee) by the
  /// global whose summary makes them.
  DenseMap<GUID, SmallVector<GUID, 4>> RefsOf;
  /// The summaries of the regular LTO halves, which are in no shard.
  std::vector<std::pair<GUID, const GlobalValueSummary *>> RegularDefinitions;
  std::vector<std::unique_ptr<ModuleSummaryIndex>> RegularIndexes;
};

/// One job's shard as read; null Index if it is not one.
struct Shard {
  std::unique_ptr<MemoryBuffer> Buffer;
  std::unique_ptr<ModuleSummaryIndex> Index;
};

} // namespace

static bool isFunction(const GlobalValueSummary &Summary) {
  if (const auto *Alias = dyn_cast<AliasSummary>(&Summary))
    return !Alias->hasAliasee() || isFunction(Alias->getAliasee());
  return isa<FunctionSummary>(Summary);
}

static void addRefs(const GlobalValueSummary &Summary,
                    SmallVectorImpl<GUID> &Refs) {
  if (const auto *Alias = dyn_cast<AliasSummary>(&Summary)) {
    if (Alias->hasAliasee())
      Refs.push_back(Alias->getAliaseeGUID());
    return;
  }
  for (const ValueInfo &Ref : Summary.refs())
    Refs.push_back(Ref.getGUID());
  if (const auto *Function = dyn_cast<FunctionSummary>(&Summary))
    for (const FunctionSummary::EdgeTy &Call : Function->calls())
      Refs.push_back(Call.first.getGUID());
}

// An unreadable file or module adds nothing: its job fails on it anyway.
static ModuleFile readModuleFile(StringRef Path) {
  ModuleFile File;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return File;
  Expected<std::vector<BitcodeModule>> Modules = getBitcodeModuleList(**Buffer);
  if (!Modules) {
    consumeError(Modules.takeError());
    return File;
  }
  for (BitcodeModule &Module : *Modules) {
    Expected<BitcodeLTOInfo> Info = Module.getLTOInfo();
    if (!Info || !Info->HasSummary) {
      consumeError(Info.takeError());
      continue;
    }
    Expected<std::unique_ptr<ModuleSummaryIndex>> Index = Module.getSummary();
    if (!Index) {
      consumeError(Index.takeError());
      continue;
    }
    for (const auto &[G, Summaries] : **Index)
      for (const std::unique_ptr<GlobalValueSummary> &Summary :
           Summaries.getSummaryList()) {
        if (Info->IsThinLTO)
          addRefs(*Summary, File.RefsOf[G]);
        else
          File.RegularDefinitions.push_back({G, Summary.get()});
      }
    if (!Info->IsThinLTO)
      File.RegularIndexes.push_back(std::move(*Index));
  }
  return File;
}

static Shard readShard(StringRef Path) {
  Shard S;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return S;
  Expected<std::unique_ptr<ModuleSummaryIndex>> Index =
      readIndexShard(**Buffer);
  if (!Index) {
    consumeError(Index.takeError());
    return S;
  }
  S.Buffer = std::move(*Buffer);
  S.Index = std::move(*Index);
  return S;
}

static void merge(DenseMap<GUID, Definition> &Definitions, GUID G,
                  const GlobalValueSummary &Summary) {
  auto [It, New] = Definitions.try_emplace(G);
  if (New)
    It->second.IsFunction = isFunction(Summary);
  It->second.DSOLocal &= Summary.isDSOLocal();
}

// A summary that says only that the global is defined in the output: a
// declaration's, for the backend, which imports nothing for it and changes
// nothing of it but dso_local.
static std::unique_ptr<GlobalValueSummary> dsoLocalSummary(bool IsFunction) {
  std::unique_ptr<GlobalValueSummary> Summary;
  if (IsFunction) {
    SmallVector<FunctionSummary::EdgeTy, 0> NoCalls;
    Summary = std::make_unique<FunctionSummary>(
        FunctionSummary::makeDummyFunctionSummary(std::move(NoCalls)));
  } else {
    GlobalValueSummary::GVFlags Flags(
        GlobalValue::ExternalLinkage, GlobalValue::DefaultVisibility,
        /*NotEligibleToImport=*/true, /*Live=*/true, /*IsLocal=*/true,
        /*CanAutoHide=*/false, GlobalValueSummary::Definition);
    Summary = std::make_unique<GlobalVarSummary>(
        Flags,
        GlobalVarSummary::GVarFlags(/*ReadOnly=*/false, /*WriteOnly=*/false,
                                    /*Constant=*/false,
                                    GlobalObject::VCallVisibilityPublic),
        SmallVector<ValueInfo, 0>());
  }
  Summary->setLinkage(GlobalValue::ExternalLinkage);
  Summary->setLive(true);
  Summary->setDSOLocal(true);
  return Summary;
}

// The globals that \p Job's module and imports refer to, that its shard has
// no summary for, and that the link defines dso_local.
static std::vector<std::pair<GUID, bool>>
missingDefinitions(const ModuleSummaryIndex &Index,
                   const StringMap<const ModuleFile *> &Files,
                   const DenseMap<GUID, Definition> &Definitions) {
  DenseSet<GUID> Seen;
  std::vector<std::pair<GUID, bool>> Missing;
  for (const auto &[G, Summaries] : Index)
    for (const std::unique_ptr<GlobalValueSummary> &Summary :
         Summaries.getSummaryList()) {
      const ModuleFile *File = Files.lookup(Summary->modulePath());
      if (!File)
        continue;
      auto Refs = File->RefsOf.find(G);
      if (Refs == File->RefsOf.end())
        continue;
      for (GUID Ref : Refs->second) {
        if (!Seen.insert(Ref).second)
          continue;
        ValueInfo VI = Index.getValueInfo(Ref);
        if (VI && !VI.getSummaryList().empty())
          continue;
        auto Def = Definitions.find(Ref);
        if (Def != Definitions.end() && Def->second.DSOLocal)
          Missing.push_back({Ref, Def->second.IsFunction});
      }
    }
  llvm::sort(Missing);
  return Missing;
}

std::vector<std::string> completeIndexShards(const JobList &List) {
  // 1. Every file, once.
  StringMap<size_t> FileIndex;
  std::vector<StringRef> Paths;
  for (const BackendJob &Job : List.Jobs) {
    if (FileIndex.try_emplace(Job.module(), Paths.size()).second)
      Paths.push_back(Job.module());
    for (StringRef Import : Job.imports())
      if (FileIndex.try_emplace(Import, Paths.size()).second)
        Paths.push_back(Import);
  }
  std::vector<ModuleFile> Files(Paths.size());
  std::vector<Shard> Shards(List.Jobs.size());
  parallelFor(0, Paths.size() + Shards.size(), [&](size_t I) {
    if (I < Paths.size())
      Files[I] = readModuleFile(Paths[I]);
    else
      Shards[I - Paths.size()] =
          readShard(List.Jobs[I - Paths.size()].indexShard());
  });

  // 2. Each definition's flags: the thin link's for the ThinLTO halves (each
  // in its own job's shard), the bitcode's for the regular halves.
  DenseMap<GUID, Definition> Definitions;
  for (auto [Job, S] : zip_equal(List.Jobs, Shards)) {
    if (!S.Index)
      continue;
    for (const auto &[G, Summaries] : *S.Index)
      for (const std::unique_ptr<GlobalValueSummary> &Summary :
           Summaries.getSummaryList())
        if (Summary->modulePath() == Job.module())
          merge(Definitions, G, *Summary);
  }
  for (const ModuleFile &File : Files)
    for (auto [G, Summary] : File.RegularDefinitions)
      merge(Definitions, G, *Summary);

  // 3. Each job's shard, completed.
  StringMap<const ModuleFile *> FileOf;
  for (size_t I = 0; I != Paths.size(); ++I)
    FileOf[Paths[I]] = &Files[I];
  std::mutex Mutex;
  std::vector<std::string> Warnings;
  parallelFor(0, Shards.size(), [&](size_t I) {
    const BackendJob &Job = List.Jobs[I];
    ModuleSummaryIndex *Index = Shards[I].Index.get();
    if (!Index)
      return;
    ModuleSummaryIndex::ModuleInfo *Own = Index->getModule(Job.module());
    if (!Own)
      return;
    std::vector<std::pair<GUID, bool>> Missing =
        missingDefinitions(*Index, FileOf, Definitions);
    if (Missing.empty())
      return;
    for (auto [G, IsFunction] : Missing) {
      std::unique_ptr<GlobalValueSummary> Summary = dsoLocalSummary(IsFunction);
      Summary->setModulePath(Own->first());
      Index->addGlobalValueSummary(Index->getOrInsertValueInfo(G),
                                   std::move(Summary));
    }
    Expected<std::string> Bytes = writeIndexShard(*Index, Job.indexShard());
    Error E =
        Bytes ? writeAtomically(Job.indexShard(), *Bytes) : Bytes.takeError();
    if (!E)
      return;
    std::lock_guard<std::mutex> Lock(Mutex);
    Warnings.push_back(
        ("cannot complete the index shard '" + Job.indexShard() +
         "': " + toString(std::move(E)) + "; its backend reaches " +
         Twine(Missing.size()) +
         " globals defined in the output as if they might not be")
            .str());
  });
  llvm::sort(Warnings);
  return Warnings;
}

} // namespace ulto
