//===- CacheKey.cpp - What determines a ThinLTO backend's object ----------===//

#include "ulto/Distributor/CacheKey.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"

using namespace llvm;

namespace ulto {

// Each field is length-prefixed so that no two field lists hash alike.
static void addField(BLAKE3 &Hasher, StringRef Field) {
  uint64_t Size = Field.size();
  Hasher.update(ArrayRef(reinterpret_cast<const uint8_t *>(&Size), 8));
  Hasher.update(Field);
}

std::string backendKey(const BackendInputs &Inputs) {
  BLAKE3 Hasher;
  addField(Hasher, "ulto-backend-2");
  addField(Hasher, Inputs.Compiler);
  for (const std::string &Arg : Inputs.Args)
    addField(Hasher, Arg);
  // The files by content: each name (which holds the module's rank) and the
  // whole digest, the modules in their names' order, then the shared
  // inputs; the job's own module by name too.
  addField(Hasher, Inputs.ModuleName);
  for (const NamedFile &File : Inputs.Files.Files) {
    addField(Hasher, File.Name);
    addField(Hasher, File.ContentHex);
  }
  addField(Hasher, Inputs.Shard);
  return toHex(Hasher.final<32>(), /*LowerCase=*/true);
}

KeyComponents keyComponents(const BackendInputs &Inputs, StringRef Key) {
  KeyComponents C;
  C.Key = Key.str();
  C.Compiler = Inputs.Compiler;
  C.Args = Inputs.Args;
  for (const NamedFile &File : Inputs.Files.Files) {
    switch (File.Role) {
    case PathRole::Module:
      C.ModuleDigest = File.ContentHex;
      break;
    case PathRole::Import:
      C.Imports.emplace_back(moduleIdentity(File.LocalPath), File.ContentHex);
      break;
    case PathRole::Common:
      C.CommonDigests.push_back(File.ContentHex);
      break;
    case PathRole::Shard:
    case PathRole::Output:
      llvm_unreachable("the shard and the output are not named by content");
    }
  }
  C.ShardDigest = toHex(BLAKE3::hash<16>(arrayRefFromStringRef(Inputs.Shard)),
                        /*LowerCase=*/true);
  return C;
}

Expected<std::string>
computeBackendKey(const JobList &List, const BackendJob &Job,
                  StringRef CompilerIdentity, FileDigests &Digests,
                  std::optional<StringRef> Shard, KeyComponents *Components) {
  Expected<BackendInputs> Inputs = collectBackendInputs(
      List, Job, CompilerIdentity,
      [&](StringRef Path) { return Digests.hex(Path); }, Shard);
  if (!Inputs)
    return Inputs.takeError();
  std::string Key = backendKey(*Inputs);
  if (Components)
    *Components = keyComponents(*Inputs, Key);
  return Key;
}

} // namespace ulto
