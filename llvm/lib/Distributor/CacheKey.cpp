//===- CacheKey.cpp - What determines a ThinLTO backend's object ----------===//

#include "ulto/Distributor/CacheKey.h"
#include "ulto/Distributor/ContentNames.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"

#include <cstring>

using namespace llvm;

namespace ulto {

std::vector<std::string> replaceJobPaths(
    const JobList &List, const BackendJob &Job,
    function_ref<std::string(StringRef Path, PathRole Role, size_t Index)>
        Replacement) {
  std::vector<std::pair<StringRef, std::string>> Paths;
  Paths.push_back(
      {Job.module(), Replacement(Job.module(), PathRole::Module, 0)});
  Paths.push_back(
      {Job.indexShard(), Replacement(Job.indexShard(), PathRole::Shard, 0)});
  for (auto [I, Import] : enumerate(Job.imports()))
    Paths.push_back({Import, Replacement(Import, PathRole::Import, I)});
  Paths.push_back(
      {Job.output(), Replacement(Job.output(), PathRole::Output, 0)});
  for (auto [I, Input] : enumerate(List.CommonInputs))
    Paths.push_back({Input, Replacement(Input, PathRole::Common, I)});

  std::vector<std::string> Args;
  auto Replace = [&](StringRef Arg) {
    for (auto &[Path, New] : Paths) {
      if (Arg == Path)
        return New;
      if (Arg.ends_with(Path) && Arg.drop_back(Path.size()).ends_with("="))
        return Arg.drop_back(Path.size()).str() + New;
    }
    return Arg.str();
  };
  for (StringRef Arg : ArrayRef(List.CommonArgs).drop_front())
    Args.push_back(Replace(Arg));
  for (StringRef Arg : Job.Args)
    Args.push_back(Replace(Arg));
  return Args;
}

std::vector<std::string> normaliseArgs(const JobList &List,
                                       const BackendJob &Job) {
  return replaceJobPaths(
      List, Job, [](StringRef, PathRole Role, size_t Index) -> std::string {
        switch (Role) {
        case PathRole::Module:
          return "%module";
        case PathRole::Shard:
          return "%shard";
        case PathRole::Import:
          return "%import";
        case PathRole::Output:
          return "%output";
        case PathRole::Common:
          return "%common" + std::to_string(Index);
        }
        llvm_unreachable("unknown path role");
      });
}

// Each field is length-prefixed so that no two field lists hash alike.
static void addField(BLAKE3 &Hasher, StringRef Field) {
  uint64_t Size = Field.size();
  Hasher.update(ArrayRef(reinterpret_cast<const uint8_t *>(&Size), 8));
  Hasher.update(Field);
}

// What the key of \p Job was made of: its modules by identity, as a user
// names them.
static void describeKey(const JobList &List, const BackendJob &Job,
                        const ContentNames &Names, StringRef Shard,
                        KeyComponents &C) {
  StringMap<StringRef> ContentOf;
  for (const NamedFile &File : Names.Files)
    ContentOf[File.LocalPath] = File.ContentHex;
  C.ModuleDigest = ContentOf.lookup(Job.module()).str();
  C.Imports.clear();
  for (StringRef Import : Job.imports())
    C.Imports.emplace_back(moduleIdentity(Import),
                           ContentOf.lookup(Import).str());
  C.CommonDigests.clear();
  for (StringRef Input : List.CommonInputs)
    C.CommonDigests.push_back(ContentOf.lookup(Input).str());
  C.ShardDigest = toHex(BLAKE3::hash<16>(arrayRefFromStringRef(Shard)),
                        /*LowerCase=*/true);
}

Expected<std::string>
computeBackendKey(const JobList &List, const BackendJob &Job,
                  StringRef CompilerIdentity, FileDigests &Digests,
                  std::optional<StringRef> Shard, KeyComponents *Components) {
  BLAKE3 Hasher;
  addField(Hasher, "ulto-backend-2");
  addField(Hasher, CompilerIdentity);
  std::vector<std::string> Args = normaliseArgs(List, Job);
  for (const std::string &Arg : Args)
    addField(Hasher, Arg);

  // The files by content: each name (which holds the module's rank) and the
  // whole digest, the modules in their names' order, then the shared
  // inputs; the job's own module by name too.
  Expected<ContentNames> Names =
      nameByContent(List, Job, [&](StringRef Path) -> Expected<std::string> {
        Expected<Digest> D = Digests.get(Path);
        if (!D)
          return D.takeError();
        return toHex(*D, /*LowerCase=*/true);
      });
  if (!Names)
    return Names.takeError();
  addField(Hasher, Names->NameOf.lookup(Job.module()));
  for (const NamedFile &File : Names->Files) {
    addField(Hasher, File.Name);
    addField(Hasher, File.ContentHex);
  }

  // The shard naming its modules so.
  Expected<std::string> Renamed = renameShardByContent(Job, *Names, Shard);
  if (!Renamed)
    return Renamed.takeError();
  addField(Hasher, *Renamed);
  std::string Key = toHex(Hasher.final<32>(), /*LowerCase=*/true);
  if (Components) {
    Components->Key = Key;
    Components->Compiler = CompilerIdentity.str();
    Components->Args = std::move(Args);
    describeKey(List, Job, *Names, *Renamed, *Components);
  }
  return Key;
}

} // namespace ulto
