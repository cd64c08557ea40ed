//===- SafeInputNames.cpp - ASCII names for a distributed link ------------===//

#include "ulto/Link/SafeInputNames.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
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

// The positions of \p Names in sorted order.
static std::vector<size_t> ranks(ArrayRef<std::string> Names) {
  std::vector<size_t> Order(Names.size());
  std::iota(Order.begin(), Order.end(), 0);
  llvm::stable_sort(Order,
                    [&](size_t A, size_t B) { return Names[A] < Names[B]; });
  std::vector<size_t> Rank(Names.size());
  for (auto [R, I] : enumerate(Order))
    Rank[I] = R;
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

Expected<std::vector<std::string>>
makeSafeInputNames(ArrayRef<std::string> Paths, StringRef Dir) {
  std::vector<size_t> Rank = ranks(Paths);
  std::vector<std::string> Safe;
  for (auto [I, Path] : enumerate(Paths)) {
    auto Fail = [&, &Path = Path](const Twine &Message) {
      return createStringError("%s: %s", Path.c_str(), Message.str().c_str());
    };
    SmallString<256> Name(Dir);
    sys::path::append(Name, rankedName(Rank[I], rankWidth(Paths.size()),
                                       sys::path::filename(Path)));
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
        MemoryBuffer::getFile(Path, /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (!Buffer)
      return Fail(Buffer.getError().message());
    Expected<std::optional<RenamedArchive>> Copy = renameMembers(**Buffer);
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
    Safe.push_back(std::string(Name));
  }
  return Safe;
}

} // namespace ulto
