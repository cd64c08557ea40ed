//===- ShardCompletion.cpp - What lld's index shards leave out ------------===//
//
// Before the jobs, in parallel: every shard (the ThinLTO halves' flags, as
// the thin link left them) and every bitcode file's regular LTO halves; then
// what each global's summaries say, merged: dso_local only if all say so.
// Per job, in its own thread: the references of its module and imports, the
// summaries the shard lacks, the shard rewritten if it gained any.
//
//===----------------------------------------------------------------------===//

#include "ulto/Distributor/ShardCompletion.h"

#include "ulto/Distributor/IndexShard.h"
#include "ulto/Support/AtomicFile.h"
#include "ulto/Support/ReaderCrashRecovery.h"

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
  std::unique_ptr<MemoryBuffer> Buffer; // Null if it cannot be read.
  /// The ThinLTO half's references (refs, calls, an alias's aliasee) by the
  /// global whose summary makes them; read by the first job that needs it.
  DenseMap<GUID, SmallVector<GUID, 4>> RefsOf;
  std::once_flag RefsRead;
};

/// One job's shard as read; null Index if it is not one, and why.
struct Shard {
  std::unique_ptr<MemoryBuffer> Buffer;
  std::unique_ptr<ModuleSummaryIndex> Index;
  std::string Unreadable;
};

} // namespace

struct ShardCompletion::Link {
  const JobList &List;
  std::vector<ModuleFile> Files;
  StringMap<ModuleFile *> FileOf;
  std::vector<Shard> Shards;
  DenseMap<GUID, Definition> Definitions;

  explicit Link(const JobList &List) : List(List) {}
};

static bool isFunction(const GlobalValueSummary &Summary) {
  if (const auto *Alias = dyn_cast<AliasSummary>(&Summary))
    return !Alias->hasAliasee() || isFunction(Alias->getAliasee());
  return isa<FunctionSummary>(Summary);
}

static Definition definitionOf(const GlobalValueSummary &Summary) {
  return {Summary.isDSOLocal(), isFunction(Summary)};
}

// Another copy of \p G: dso_local only if every copy is.
static void merge(DenseMap<GUID, Definition> &Definitions, GUID G,
                  Definition Copy) {
  auto [It, New] = Definitions.try_emplace(G, Copy);
  if (!New)
    It->second.DSOLocal &= Copy.DSOLocal;
}

static void addRefs(const GlobalValueSummary &Summary,
                    SmallVectorImpl<GUID> &Refs) {
  if (const auto *Alias = dyn_cast<AliasSummary>(&Summary)) {
    if (!Alias->hasAliasee())
      return;
    Refs.push_back(Alias->getAliaseeGUID());
    // A job that imports the alias imports a copy of its aliasee's body
    // (lld's shard holds the alias only): what that body refers to.
    addRefs(Alias->getAliasee(), Refs);
    return;
  }
  for (const ValueInfo &Ref : Summary.refs())
    Refs.push_back(Ref.getGUID());
  if (const auto *Function = dyn_cast<FunctionSummary>(&Summary))
    for (const FunctionSummary::EdgeTy &Call : Function->calls())
      Refs.push_back(Call.first.getGUID());
}

// The summaries of the file's ThinLTO halves (\p Thin) or of its regular
// ones, each passed to \p Each. What cannot be read adds nothing: the job
// that reads it fails on it anyway.
static void
forEachSummary(MemoryBufferRef Buffer, bool Thin,
               function_ref<void(GUID, const GlobalValueSummary &)> Each) {
  Expected<std::vector<BitcodeModule>> Modules = getBitcodeModuleList(Buffer);
  if (!Modules) {
    consumeError(Modules.takeError());
    return;
  }
  for (BitcodeModule &Module : *Modules) {
    Expected<BitcodeLTOInfo> Info = Module.getLTOInfo();
    if (!Info || !Info->HasSummary || Info->IsThinLTO != Thin) {
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
           Summaries.getSummaryList())
        Each(G, *Summary);
  }
}

static std::unique_ptr<MemoryBuffer> readFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  return Buffer ? std::move(*Buffer) : nullptr;
}

// LLVM's reader faults on some corrupt shards, as clang-22 does
// (ReaderCrashRecovery.h): that, too, is a shard that cannot be read.
static Shard readShard(StringRef Path, StringRef Module) {
  Shard S;
  std::unique_ptr<MemoryBuffer> Buffer = readFile(Path);
  if (!Buffer)
    return S; // Its job reports that it is missing.
  std::optional<Expected<std::unique_ptr<ModuleSummaryIndex>>> Index;
  if (Error E = readSafely([&] { Index.emplace(readIndexShard(*Buffer)); }))
    Index.emplace(createFileError(Path, std::move(E)));
  if (!*Index) {
    S.Unreadable = toString(Index->takeError());
    return S;
  }
  // A shard of another job's, or corrupt names: no index for this job.
  if (!(**Index)->modulePaths().count(Module)) {
    S.Unreadable =
        (Path + ": it does not name the job's module '" + Module + "'").str();
    return S;
  }
  S.Buffer = std::move(Buffer);
  S.Index = std::move(**Index);
  return S;
}

ShardCompletion::ShardCompletion(const JobList &List)
    : L(std::make_unique<Link>(List)) {
  std::vector<StringRef> Paths;
  for (const BackendJob &Job : List.Jobs) {
    if (L->FileOf.try_emplace(Job.module()).second)
      Paths.push_back(Job.module());
    for (StringRef Import : Job.imports())
      if (L->FileOf.try_emplace(Import).second)
        Paths.push_back(Import);
  }
  L->Files = std::vector<ModuleFile>(Paths.size());
  L->Shards.resize(List.Jobs.size());
  std::vector<std::vector<std::pair<GUID, Definition>>> RegularDefinitions(
      Paths.size());
  parallelFor(0, Paths.size() + List.Jobs.size(), [&](size_t I) {
    if (I >= Paths.size()) {
      const BackendJob &Job = List.Jobs[I - Paths.size()];
      L->Shards[I - Paths.size()] = readShard(Job.indexShard(), Job.module());
      return;
    }
    ModuleFile &File = L->Files[I];
    File.Buffer = readFile(Paths[I]);
    if (File.Buffer)
      forEachSummary(
          *File.Buffer, /*Thin=*/false,
          [&](GUID G, const GlobalValueSummary &Summary) {
            RegularDefinitions[I].push_back({G, definitionOf(Summary)});
          });
  });
  for (auto [Path, File] : zip_equal(Paths, L->Files))
    L->FileOf[Path] = &File;

  // The ThinLTO halves' flags are in their own jobs' shards.
  for (auto [Job, S] : zip_equal(List.Jobs, L->Shards)) {
    if (!S.Index)
      continue;
    for (const auto &[G, Summaries] : *S.Index)
      for (const std::unique_ptr<GlobalValueSummary> &Summary :
           Summaries.getSummaryList())
        if (Summary->modulePath() == Job.module())
          merge(L->Definitions, G, definitionOf(*Summary));
  }
  for (const auto &Definitions : RegularDefinitions)
    for (auto [G, Copy] : Definitions)
      merge(L->Definitions, G, Copy);
}

ShardCompletion::~ShardCompletion() = default;

Error ShardCompletion::unreadable(size_t I) const {
  const Shard &S = L->Shards[I];
  if (S.Unreadable.empty())
    return Error::success();
  return createStringError("its index shard cannot be read: %s",
                           S.Unreadable.c_str());
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

Expected<std::optional<std::string>> ShardCompletion::complete(size_t I) {
  const BackendJob &Job = L->List.Jobs[I];
  Shard S = std::move(L->Shards[I]);
  if (!S.Index)
    return std::nullopt;
  ModuleSummaryIndex &Index = *S.Index;
  // Named: readShard checked it (getModule() asserts it).
  ModuleSummaryIndex::ModuleInfo *Own = Index.getModule(Job.module());

  // What the module and its imports refer to that the shard lacks and the
  // link defines dso_local.
  DenseSet<GUID> Seen;
  std::vector<std::pair<GUID, bool>> Missing;
  for (const auto &[G, Summaries] : Index)
    for (const std::unique_ptr<GlobalValueSummary> &Summary :
         Summaries.getSummaryList()) {
      ModuleFile *File = L->FileOf.lookup(Summary->modulePath());
      if (!File || !File->Buffer)
        continue;
      std::call_once(File->RefsRead, [File] {
        forEachSummary(*File->Buffer, /*Thin=*/true,
                       [File](GUID G, const GlobalValueSummary &Summary) {
                         addRefs(Summary, File->RefsOf[G]);
                       });
      });
      auto Refs = File->RefsOf.find(G);
      if (Refs == File->RefsOf.end())
        continue;
      for (GUID Ref : Refs->second) {
        if (!Seen.insert(Ref).second)
          continue;
        ValueInfo VI = Index.getValueInfo(Ref);
        if (VI && !VI.getSummaryList().empty())
          continue;
        auto Def = L->Definitions.find(Ref);
        if (Def != L->Definitions.end() && Def->second.DSOLocal)
          Missing.push_back({Ref, Def->second.IsFunction});
      }
    }
  if (Missing.empty())
    return std::nullopt;
  llvm::sort(Missing);
  for (auto [G, IsFunction] : Missing) {
    std::unique_ptr<GlobalValueSummary> Summary = dsoLocalSummary(IsFunction);
    Summary->setModulePath(Own->first());
    Index.addGlobalValueSummary(Index.getOrInsertValueInfo(G),
                                std::move(Summary));
  }
  Expected<std::string> Bytes = writeIndexShard(Index, Job.indexShard());
  if (!Bytes)
    return Bytes.takeError();
  return std::move(*Bytes);
}

Error ShardCompletion::write(size_t I, StringRef Shard) {
  StringRef Path = L->List.Jobs[I].indexShard();
  if (Error E = writeAtomically(Path, Shard, OnSignal::CallerWaits,
                                Existing::Replace))
    return createStringError(
        "cannot write the completed index shard '%s': %s; its backend "
        "reaches the globals the link defines but it does not import as if "
        "they might not be defined in the output",
        Path.str().c_str(), toString(std::move(E)).c_str());
  return Error::success();
}

} // namespace ulto
