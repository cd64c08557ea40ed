//===- SafeInputNames.cpp - ASCII names for a distributed link ------------===//

#include "ulto/Link/SafeInputNames.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <numeric>

using namespace llvm;

namespace ulto {

// "<rank>-<Name in ASCII>", the rank zero-padded to \p Width so that the
// names sort as the ranks do.
static std::string rankedName(size_t Rank, size_t Width, StringRef Name) {
  std::string Digits = std::to_string(Rank);
  std::string Result(Width - std::min(Width, Digits.size()), '0');
  Result += Digits + "-";
  for (char C : Name)
    Result += isAlnum(C) || C == '.' || C == '_' || C == '-' ? C : '_';
  return Result;
}

// The positions of \p Names in sorted order; equal names, one rank.
static std::vector<size_t> ranks(ArrayRef<std::string> Names) {
  std::vector<size_t> Order(Names.size());
  std::iota(Order.begin(), Order.end(), 0);
  llvm::stable_sort(Order,
                    [&](size_t A, size_t B) { return Names[A] < Names[B]; });
  std::vector<size_t> Rank(Names.size());
  for (size_t I = 0; I < Order.size(); ++I)
    Rank[Order[I]] = I > 0 && Names[Order[I]] == Names[Order[I - 1]]
                         ? Rank[Order[I - 1]]
                         : I;
  return Rank;
}

static size_t rankWidth(size_t Count) {
  return std::max<size_t>(4, std::to_string(Count).size());
}

namespace {
// An archive copied with its members renamed.
struct RenamedArchive {
  std::unique_ptr<object::Archive> Archive; ///< Owns thin members' buffers.
  std::vector<std::string> Names;
  std::vector<NewArchiveMember> Members;
};
} // namespace

// The members of the archive in \p Buffer, each renamed "<rank>-<ASCII>"
// with ranks in the sorted order of lld's member IDs ("name at offset"), if
// a member's name is not ASCII or the archive is thin (which names its
// members relative to itself, so that a link to it elsewhere would not find
// them); std::nullopt for other files.
static Expected<std::optional<RenamedArchive>>
renameMembers(MemoryBufferRef Buffer) {
  if (identify_magic(Buffer.getBuffer()) != file_magic::archive)
    return std::nullopt;
  Expected<std::unique_ptr<object::Archive>> Archive =
      object::Archive::create(Buffer);
  if (!Archive)
    return Archive.takeError();
  std::vector<std::string> IDs;
  std::vector<object::Archive::Child> Children;
  bool AllASCII = true;
  Error Err = Error::success();
  for (const object::Archive::Child &C : (*Archive)->children(Err)) {
    Expected<StringRef> Name = C.getName();
    if (!Name)
      return Name.takeError();
    AllASCII &= isASCII(*Name);
    IDs.push_back((*Name + " at " + Twine(C.getChildOffset())).str());
    Children.push_back(C);
  }
  if (Err)
    return std::move(Err);
  if (AllASCII && !(*Archive)->isThin())
    return std::nullopt;
  RenamedArchive Result;
  std::vector<size_t> Rank = ranks(IDs);
  for (auto [I, C] : enumerate(Children)) {
    Expected<MemoryBufferRef> Member = C.getMemoryBufferRef();
    if (!Member)
      return Member.takeError();
    Result.Names.push_back(
        rankedName(Rank[I], rankWidth(Children.size()),
                   sys::path::filename(cantFail(C.getName()))));
    Result.Members.emplace_back(*Member);
  }
  for (auto [M, Name] : zip(Result.Members, Result.Names))
    M.MemberName = Name;
  Result.Archive = std::move(*Archive);
  return std::move(Result);
}

namespace {
// An input as lld names its ThinLTO modules, in-process and under DTLTO.
struct ModuleNames {
  std::string Key; ///< Sorts against other inputs as its modules' IDs do.
  std::vector<std::pair<std::string, std::string>> InProcessAndDistributed;
};
} // namespace

// The module IDs of the bitcode in the file \p Path, \p Buffer: lld's in
// process ("a.o", "lib/x.a(m.o at 8)", BitcodeFile's names) and LLVM 22
// DTLTO's (DTLTO::addInput): a file's own path, a thin archive member's
// file, or a regular member in \p OutputDir, "<OutputDir>/x.a(m.o at 8).",
// which a sequence number and the linker's PID follow.
static Expected<ModuleNames> moduleNames(StringRef Path, MemoryBufferRef Buffer,
                                         StringRef OutputDir) {
  ModuleNames Names;
  Names.Key = Path.str();
  file_magic Magic = identify_magic(Buffer.getBuffer());
  if (Magic == file_magic::bitcode)
    Names.InProcessAndDistributed.push_back({Path.str(), Path.str()});
  if (Magic != file_magic::archive)
    return std::move(Names);
  Names.Key += "(";
  Expected<std::unique_ptr<object::Archive>> Archive =
      object::Archive::create(Buffer);
  if (!Archive)
    return Archive.takeError();
  Error Err = Error::success();
  for (const object::Archive::Child &C : (*Archive)->children(Err)) {
    Expected<MemoryBufferRef> Member = C.getMemoryBufferRef();
    if (!Member)
      return Member.takeError();
    if (identify_magic(Member->getBuffer()) != file_magic::bitcode)
      continue;
    StringRef MemberName = Member->getBufferIdentifier();
    std::string InProcess = (Path + "(" + sys::path::filename(MemberName) +
                             " at " + Twine(C.getChildOffset()) + ")")
                                .str();
    SmallString<256> Distributed;
    if ((*Archive)->isThin()) {
      if (sys::path::is_relative(MemberName))
        Distributed = sys::path::parent_path(Path);
      sys::path::append(Distributed, MemberName);
      sys::path::remove_dots(Distributed, /*remove_dot_dot=*/true);
    } else {
      Distributed = OutputDir;
      sys::path::append(Distributed, sys::path::filename(InProcess) + ".");
    }
    Names.InProcessAndDistributed.push_back(
        {std::move(InProcess), std::string(Distributed)});
  }
  if (Err)
    return std::move(Err);
  return std::move(Names);
}

// Reads \p Path; the error names it.
static Expected<std::unique_ptr<MemoryBuffer>> readInput(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFile(Path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return createStringError("%s: %s", Path.str().c_str(),
                             Buffer.getError().message().c_str());
  return std::move(*Buffer);
}

Expected<bool> distributedOrderMatches(ArrayRef<std::string> Paths,
                                       StringRef OutputFile) {
  std::vector<std::string> InProcess, Distributed;
  for (const std::string &Path : Paths) {
    Expected<std::unique_ptr<MemoryBuffer>> Buffer = readInput(Path);
    if (!Buffer)
      return Buffer.takeError();
    Expected<ModuleNames> Names = moduleNames(
        Path, (*Buffer)->getMemBufferRef(), sys::path::parent_path(OutputFile));
    if (!Names)
      return createStringError("%s: %s", Path.c_str(),
                               toString(Names.takeError()).c_str());
    for (auto &[In, Dist] : Names->InProcessAndDistributed) {
      InProcess.push_back(std::move(In));
      Distributed.push_back(std::move(Dist));
    }
  }
  // Adjacent in lld's order, two modules must be so under DTLTO too. An
  // input named twice is one module. Two regular archives of one name in two
  // directories give their members DTLTO names that only their sequence
  // numbers, unknown here, order: no match.
  std::vector<size_t> Order(InProcess.size());
  std::iota(Order.begin(), Order.end(), 0);
  llvm::stable_sort(
      Order, [&](size_t A, size_t B) { return InProcess[A] < InProcess[B]; });
  for (size_t K = 1; K < Order.size(); ++K) {
    size_t A = Order[K - 1], B = Order[K];
    if (InProcess[A] == InProcess[B] ? Distributed[A] != Distributed[B]
                                     : !(Distributed[A] < Distributed[B]))
      return false;
  }
  return true;
}

Expected<std::vector<std::string>>
makeSafeInputNames(ArrayRef<std::string> Paths, StringRef Dir,
                   StringRef Prefix) {
  // Ranked as their modules' IDs sort: an archive by "<path>(".
  std::vector<std::unique_ptr<MemoryBuffer>> Buffers;
  std::vector<std::string> Keys;
  for (const std::string &Path : Paths) {
    Expected<std::unique_ptr<MemoryBuffer>> Buffer = readInput(Path);
    if (!Buffer)
      return Buffer.takeError();
    bool IsArchive =
        identify_magic((*Buffer)->getBuffer()) == file_magic::archive;
    Keys.push_back(IsArchive ? Path + "(" : Path);
    Buffers.push_back(std::move(*Buffer));
  }
  std::vector<size_t> Rank = ranks(Keys);
  std::vector<std::string> Safe;
  StringMap<std::string> Made;
  // Whole or not at all.
  bool Done = false;
  scope_exit RemovePart([&] {
    if (!Done)
      for (const auto &Entry : Made)
        sys::fs::remove(Entry.second);
  });
  for (auto [I, Path] : enumerate(Paths)) {
    auto Fail = [&, &Path = Path](const Twine &Message) {
      return createStringError("%s: %s", Path.c_str(), Message.str().c_str());
    };
    if (auto It = Made.find(Path); It != Made.end()) {
      Safe.push_back(It->second);
      continue;
    }
    SmallString<256> Name(Dir);
    sys::path::append(Name,
                      Prefix + rankedName(Rank[I], rankWidth(Paths.size()),
                                          sys::path::filename(Path)));
    Expected<std::optional<RenamedArchive>> Copy =
        renameMembers(Buffers[I]->getMemBufferRef());
    if (!Copy)
      return Fail(toString(Copy.takeError()));
    if (*Copy) {
      if (Error E = writeArchive(Name, (*Copy)->Members,
                                 SymtabWritingMode::NormalSymtab,
                                 object::Archive::K_GNU,
                                 /*Deterministic=*/true, /*Thin=*/false))
        return Fail(toString(std::move(E)));
    } else {
      SmallString<256> Target(Path);
      if (std::error_code EC = sys::fs::make_absolute(Target))
        return Fail(EC.message());
      if (std::error_code EC = sys::fs::create_link(Target, Name))
        return Fail("cannot link " + Name + ": " + EC.message());
    }
    Made[Path] = std::string(Name);
    Safe.push_back(std::string(Name));
  }
  Done = true;
  return Safe;
}

} // namespace ulto
