//===- CacheKey.cpp - What determines a ThinLTO backend's object ----------===//

#include "ulto/Distributor/CacheKey.h"
#include "ulto/Distributor/IndexShard.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/ModuleSummaryIndex.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

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

// LLVM prints a summary index as "^N = module: (path: "P", hash: (...))" lines,
// one per module in slot order, then the global values, whose summaries name
// their module as "module: ^N", then type IDs. Module slots come first, so
// the other slot numbers depend only on how many modules there are.
Expected<std::string> normaliseIndexShard(
    MemoryBufferRef Shard,
    function_ref<std::optional<std::string>(StringRef)> NameOf) {
  Expected<std::unique_ptr<ModuleSummaryIndex>> Index = readIndexShard(Shard);
  if (!Index)
    return Index.takeError();
  std::map<std::string, std::string> NameOfPrinted;
  for (const auto &Entry : (*Index)->modulePaths()) {
    std::string Printed;
    raw_string_ostream OS(Printed);
    printEscapedString(Entry.getKey(), OS);
    std::optional<std::string> Name = NameOf(Entry.getKey());
    NameOfPrinted[Printed] = Name ? *Name : "unnamed";
  }

  std::string Text;
  raw_string_ostream OS(Text);
  (*Index)->print(OS);

  std::vector<std::string> ModuleLines;
  std::vector<std::string> SlotNames;
  std::string Rest;
  SmallVector<StringRef, 0> Lines;
  StringRef(Text).split(Lines, '\n');
  constexpr StringLiteral PathField = " = module: (path: \"";
  for (StringRef Line : Lines) {
    size_t At = Line.find(PathField);
    if (Line.starts_with("^") && At != StringRef::npos) {
      StringRef Tail = Line.substr(At + PathField.size());
      size_t End = Tail.find('"');
      std::string Name = NameOfPrinted[Tail.substr(0, End).str()];
      SlotNames.push_back(Name);
      ModuleLines.push_back("module: (name: " + Name +
                            Tail.substr(End + 1).str());
      continue;
    }
    // "module: ^N" inside a summary: the module by name, not by slot.
    std::string Out;
    while (true) {
      size_t Ref = Line.find("module: ^");
      if (Ref == StringRef::npos)
        break;
      Out += Line.take_front(Ref + strlen("module: ")).str();
      Line = Line.drop_front(Ref + strlen("module: ^"));
      size_t Digits = Line.find_first_not_of("0123456789");
      unsigned Slot = 0;
      if (!Line.take_front(Digits).getAsInteger(10, Slot) &&
          Slot < SlotNames.size())
        Out += SlotNames[Slot];
      else
        Out += "^" + Line.take_front(Digits).str();
      Line = Line.drop_front(std::min(Digits, Line.size()));
    }
    Rest += Out + Line.str() + "\n";
  }
  llvm::sort(ModuleLines);
  std::string Normalised;
  for (const std::string &M : ModuleLines)
    Normalised += M + "\n";
  Normalised += Rest;

  // The printer leaves out the CFI function lists, which change the object.
  for (auto [Kind, Functions] :
       {std::pair("cfi-def", &(*Index)->cfiFunctionDefs()),
        std::pair("cfi-decl", &(*Index)->cfiFunctionDecls())}) {
    std::vector<StringRef> Symbols = Functions->symbols();
    llvm::sort(Symbols);
    for (StringRef Symbol : Symbols)
      Normalised += (Twine(Kind) + ": " + Symbol + "\n").str();
  }
  return Normalised;
}

Expected<std::string> computeCompilerIdentity(StringRef Compiler) {
  ErrorOr<std::string> Path = sys::findProgramByName(Compiler);
  if (!Path)
    return createStringError(Path.getError(), "compiler '%s' not found",
                             Compiler.str().c_str());
  Expected<std::unique_ptr<MemoryBuffer>> Executable = readWholeFile(*Path);
  if (!Executable)
    return Executable.takeError();

  SmallString<128> VersionFile;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("ulto-version", "txt", VersionFile))
    return createStringError(EC, "cannot create a temporary file: %s",
                             EC.message().c_str());
  FileRemover Remover(VersionFile);
  std::optional<StringRef> Redirects[] = {StringRef(), StringRef(VersionFile),
                                          StringRef()};
  std::string ErrMsg;
  StringRef Args[] = {*Path, "--version"};
  if (sys::ExecuteAndWait(*Path, Args, std::nullopt, Redirects,
                          /*SecondsToWait=*/60, 0, &ErrMsg) != 0)
    return createStringError("cannot run '%s --version': %s", Path->c_str(),
                             ErrMsg.empty() ? "it failed" : ErrMsg.c_str());
  Expected<std::unique_ptr<MemoryBuffer>> Version = readWholeFile(VersionFile);
  if (!Version)
    return Version.takeError();

  BLAKE3 Hasher;
  Hasher.update((*Executable)->getBuffer());
  SmallVector<StringRef, 8> Lines;
  (*Version)->getBuffer().split(Lines, '\n');
  for (StringRef Line : Lines)
    if (!Line.starts_with("InstalledDir:"))
      Hasher.update(Line);
  return toHex(Hasher.final<16>(), /*LowerCase=*/true);
}

// Each field is length-prefixed so that no two field lists hash alike.
static void addField(BLAKE3 &Hasher, StringRef Field) {
  uint64_t Size = Field.size();
  Hasher.update(ArrayRef(reinterpret_cast<const uint8_t *>(&Size), 8));
  Hasher.update(Field);
}

static StringRef asString(const Digest &D) {
  return StringRef(reinterpret_cast<const char *>(D.data()), D.size());
}

Expected<std::string> computeBackendKey(const JobList &List,
                                        const BackendJob &Job,
                                        StringRef CompilerIdentity,
                                        FileDigests &Digests) {
  BLAKE3 Hasher;
  addField(Hasher, "ulto-backend-1");
  addField(Hasher, CompilerIdentity);
  for (const std::string &Arg : normaliseArgs(List, Job))
    addField(Hasher, Arg);

  // The module and its imports by content; the shard names them so.
  std::map<std::string, std::string> NameOfPath;
  std::vector<std::string> ImportNames;
  for (size_t I = 0; I != Job.Inputs.size(); ++I) {
    if (I == 1)
      continue;
    Expected<Digest> D = Digests.get(Job.Inputs[I]);
    if (!D)
      return D.takeError();
    std::string Name = toHex(*D, /*LowerCase=*/true);
    NameOfPath[Job.Inputs[I]] = Name;
    if (I == 0)
      addField(Hasher, asString(*D));
    else
      ImportNames.push_back(Name);
  }
  llvm::sort(ImportNames);
  for (const std::string &Name : ImportNames)
    addField(Hasher, Name);

  Expected<std::unique_ptr<MemoryBuffer>> Shard =
      readWholeFile(Job.indexShard());
  if (!Shard)
    return Shard.takeError();
  Expected<std::string> ShardText =
      normaliseIndexShard((*Shard)->getMemBufferRef(),
                          [&](StringRef Path) -> std::optional<std::string> {
                            auto It = NameOfPath.find(Path.str());
                            if (It == NameOfPath.end())
                              return std::nullopt;
                            return It->second;
                          });
  if (!ShardText)
    return ShardText.takeError();
  addField(Hasher, *ShardText);

  for (const std::string &Input : List.CommonInputs) {
    Expected<Digest> D = Digests.get(Input);
    if (!D)
      return D.takeError();
    addField(Hasher, asString(*D));
  }
  return toHex(Hasher.final<32>(), /*LowerCase=*/true);
}

} // namespace ulto
