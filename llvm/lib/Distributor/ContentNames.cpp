//===- ContentNames.cpp - A backend job's files named by content ----------===//

#include "ulto/Distributor/ContentNames.h"

#include "ulto/Distributor/FileDigest.h"
#include "ulto/Distributor/IndexShard.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace ulto {

// The file at \p Local under \p Prefix, its digest's first 16 digits and its
// extension.
static Expected<NamedFile> nameFile(StringRef Local, PathRole Role,
                                    ContentHexFunction ContentHex,
                                    StringRef Prefix) {
  Expected<std::string> Hex = ContentHex(Local);
  if (!Hex)
    return Hex.takeError();
  std::string Name = Prefix.str() + Hex->substr(0, 16);
  StringRef Extension = sys::path::extension(Local);
  if (Extension.size() > 1 && all_of(Extension.drop_front(), isAlnum))
    Name += Extension;
  return NamedFile{std::move(Name), Local.str(), std::move(*Hex), Role};
}

Expected<ContentNames> nameByContent(const JobList &List, const BackendJob &Job,
                                     ContentHexFunction ContentHex) {
  ContentNames Names;
  auto Add = [&](StringRef Local, PathRole Role, StringRef Prefix) -> Error {
    Expected<NamedFile> File = nameFile(Local, Role, ContentHex, Prefix);
    if (!File)
      return File.takeError();
    Names.NameOf[Local] = File->Name;
    Names.Files.push_back(std::move(*File));
    return Error::success();
  };

  // Modules: "m/<rank>-<digest>", the rank from the local paths' order.
  std::vector<StringRef> Modules = {Job.module()};
  append_range(Modules, Job.imports());
  llvm::sort(Modules);
  size_t Width = std::max<size_t>(4, std::to_string(Modules.size()).size());
  for (auto [Rank, Local] : enumerate(Modules)) {
    std::string Rank10 = std::to_string(Rank);
    PathRole Role = Local == Job.module() ? PathRole::Module : PathRole::Import;
    if (Error E =
            Add(Local, Role,
                "m/" + std::string(Width - Rank10.size(), '0') + Rank10 + "-"))
      return E;
  }
  for (auto [I, Local] : enumerate(List.CommonInputs))
    if (Error E = Add(Local, PathRole::Common, "c/" + std::to_string(I) + "-"))
      return E;
  return Names;
}

Expected<std::string> renameShardByContent(const BackendJob &Job,
                                           const ContentNames &Names,
                                           std::optional<StringRef> Shard) {
  std::unique_ptr<MemoryBuffer> File;
  if (!Shard) {
    Expected<std::unique_ptr<MemoryBuffer>> Read =
        readWholeFile(Job.indexShard());
    if (!Read)
      return Read.takeError();
    File = std::move(*Read);
  }
  MemoryBufferRef Bytes = File ? File->getMemBufferRef()
                               : MemoryBufferRef(*Shard, Job.indexShard());
  return renameShardModules(
      Bytes, [&](StringRef Module) -> Expected<std::string> {
        auto It = Names.NameOf.find(Module);
        if (It == Names.NameOf.end())
          return createStringError("%s: names module '%s', which is not "
                                   "among the job's inputs",
                                   Job.indexShard().str().c_str(),
                                   Module.str().c_str());
        return It->second;
      });
}

} // namespace ulto
