//===- LinkInputs.cpp - Which files an ELF link loads ---------------------===//

#include "ulto/Link/LinkInputs.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/LTO/LTO.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/IRObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace ulto {
namespace {

// The global symbols a file defines, and those it references strongly (weak
// references do not extract archive members).
struct SymbolUse {
  std::vector<std::string> Defined;
  std::vector<std::string> Undefined;
};

Expected<SymbolUse> readBitcodeSymbols(MemoryBufferRef Buffer) {
  Expected<std::unique_ptr<lto::InputFile>> File =
      lto::InputFile::create(Buffer);
  if (!File)
    return File.takeError();
  SymbolUse Use;
  for (const lto::InputFile::Symbol &S : (*File)->symbols()) {
    if (!S.isUndefined())
      Use.Defined.push_back(S.getName().str());
    else if (!S.isWeak())
      Use.Undefined.push_back(S.getName().str());
  }
  return Use;
}

Expected<SymbolUse> readObjectSymbols(MemoryBufferRef Buffer) {
  Expected<std::unique_ptr<object::ObjectFile>> Obj =
      object::ObjectFile::createObjectFile(Buffer);
  if (!Obj)
    return Obj.takeError();
  SymbolUse Use;
  for (const object::SymbolRef &Sym : (*Obj)->symbols()) {
    Expected<uint32_t> Flags = Sym.getFlags();
    Expected<StringRef> Name = Sym.getName();
    if (!Flags || !Name) {
      consumeError(Flags.takeError());
      consumeError(Name.takeError());
      continue;
    }
    if (!(*Flags & object::SymbolRef::SF_Global))
      continue;
    if (!(*Flags & object::SymbolRef::SF_Undefined))
      Use.Defined.push_back(Name->str());
    else if (!(*Flags & object::SymbolRef::SF_Weak))
      Use.Undefined.push_back(Name->str());
  }
  return Use;
}

Expected<SymbolUse> readSymbols(MemoryBufferRef Buffer, bool IsBitcode) {
  return IsBitcode ? readBitcodeSymbols(Buffer) : readObjectSymbols(Buffer);
}

// Symbols a shared library provides: they satisfy references, so archive
// members defining them are not extracted.
std::vector<std::string> readSharedDefinitions(MemoryBufferRef Buffer) {
  std::vector<std::string> Defined;
  Expected<std::unique_ptr<object::ObjectFile>> Obj =
      object::ObjectFile::createObjectFile(Buffer);
  if (!Obj) {
    consumeError(Obj.takeError());
    return Defined;
  }
  auto *ELF = dyn_cast<object::ELFObjectFileBase>(Obj->get());
  if (!ELF)
    return Defined;
  for (const object::ELFSymbolRef &Sym : ELF->getDynamicSymbolIterators()) {
    Expected<uint32_t> Flags = Sym.getFlags();
    Expected<StringRef> Name = Sym.getName();
    if (Flags && Name && !(*Flags & object::SymbolRef::SF_Undefined))
      Defined.push_back(Name->str());
    if (!Flags)
      consumeError(Flags.takeError());
    if (!Name)
      consumeError(Name.takeError());
  }
  return Defined;
}

// The file a link sees in \p Buffer, which lld opens at \p Path: bitcode,
// or an ELF object (with \p FatLTOObjects, a fat object's bitcode, as lld
// reads it); std::nullopt for other kinds.
std::optional<LoadedFile> linkedFile(std::string Name, StringRef Path,
                                     MemoryBufferRef Buffer,
                                     bool FatLTOObjects) {
  file_magic Magic = identify_magic(Buffer.getBuffer());
  if (Magic == file_magic::bitcode)
    return LoadedFile{std::move(Name), Buffer, true, Path.str(), {}};
  if (Magic != file_magic::elf_relocatable)
    return std::nullopt;
  if (!FatLTOObjects)
    return LoadedFile{std::move(Name), Buffer, false, Path.str(), {}};
  Expected<MemoryBufferRef> Bitcode =
      object::IRObjectFile::findBitcodeInMemBuffer(Buffer);
  if (Bitcode)
    return LoadedFile{std::move(Name), *Bitcode, true, Path.str(), Buffer};
  consumeError(Bitcode.takeError());
  return LoadedFile{std::move(Name), Buffer, false, Path.str(), {}};
}

// A file that is loaded only if it defines a symbol the link needs: an
// archive member, or an object between --start-lib and --end-lib.
struct LazyFile {
  LoadedFile File;
  bool Loaded = false;
};

// Resolves symbols in command-line order, as lld does: a reference extracts
// a lazy file that defines it if nothing loaded so far (shared libraries
// included) defines it, whether the reference or the lazy file comes first.
class Loader {
public:
  /// Without \p Resolve, no file is lazy bitcode: every bitcode file named
  /// loads, and nothing else's symbols are read.
  Loader(const LinkRequest &Request, bool Resolve);
  /// \p Buffer is null when the input cannot be opened.
  Error add(const LinkInput &Input, std::unique_ptr<MemoryBuffer> Buffer);
  LoadedFiles take() { return std::move(Out); }

private:
  Error load(const LoadedFile &File);
  Error need(StringRef Name);
  Error addLazy(const LoadedFile &File);
  Error addArchive(MemoryBufferRef Buffer, const LinkInput &Input);
  Error retryUnresolved();

  LoadedFiles Out;
  std::vector<LazyFile> Lazies;
  StringMap<size_t> LazyBySymbol; // The first definition wins, as in lld.
  StringSet<> Defined;
  StringSet<> Unresolved;
  bool Resolve;
  bool FatLTOObjects;
};

Loader::Loader(const LinkRequest &Request, bool Resolve)
    : Resolve(Resolve), FatLTOObjects(Request.FatLTOObjects) {
  for (const std::string &Name : Request.Roots)
    Unresolved.insert(Name);
}

Error Loader::load(const LoadedFile &File) {
  if (File.IsBitcode)
    Out.Files.push_back(File);
  // Without resolving, no symbol is read: the bitcode's reader
  // (readBitcodeInputs) names what it cannot read.
  if (!Resolve)
    return Error::success();
  Expected<SymbolUse> Use = readSymbols(File.Buffer, File.IsBitcode);
  if (!Use)
    return createStringError(File.Name + ": " + toString(Use.takeError()));
  for (const std::string &Name : Use->Defined) {
    Defined.insert(Name);
    Unresolved.erase(Name);
  }
  for (const std::string &Name : Use->Undefined)
    if (Error E = need(Name))
      return E;
  return Error::success();
}

Error Loader::need(StringRef Name) {
  if (Defined.contains(Name))
    return Error::success();
  auto It = LazyBySymbol.find(Name);
  if (It == LazyBySymbol.end() || Lazies[It->second].Loaded) {
    Unresolved.insert(Name);
    return Error::success();
  }
  Lazies[It->second].Loaded = true;
  // Copy: loading may add lazy files and move the vector.
  LoadedFile File = Lazies[It->second].File;
  return load(File);
}

// References made before a lazy file was seen extract it too.
Error Loader::retryUnresolved() {
  std::vector<std::string> Names;
  for (const auto &Entry : Unresolved)
    if (LazyBySymbol.count(Entry.getKey()))
      Names.push_back(Entry.getKey().str());
  for (const std::string &Name : Names)
    if (Error E = need(Name))
      return E;
  return Error::success();
}

Error Loader::addLazy(const LoadedFile &File) {
  Expected<SymbolUse> Use = readSymbols(File.Buffer, File.IsBitcode);
  if (!Use)
    return createStringError(File.Name + ": " + toString(Use.takeError()));
  Lazies.push_back({File});
  for (const std::string &Name : Use->Defined)
    LazyBySymbol.try_emplace(Name, Lazies.size() - 1);
  return Error::success();
}

Error Loader::addArchive(MemoryBufferRef Buffer, const LinkInput &Input) {
  Expected<std::unique_ptr<object::Archive>> A =
      object::Archive::create(Buffer);
  if (!A)
    return createStringError(Input.Path + ": " + toString(A.takeError()));
  object::Archive &Archive = **A;
  // Members of thin archives live in buffers the archive owns.
  Out.Archives.push_back(std::move(*A));

  // lld ignores the archive's symbol index and reads each member's own
  // symbols, so a stale or damaged index changes nothing; so does ulto.
  Error Err = Error::success();
  for (const object::Archive::Child &C : Archive.children(Err)) {
    Expected<StringRef> Name = C.getName();
    Expected<MemoryBufferRef> Member = C.getMemoryBufferRef();
    if (!Name || !Member) {
      consumeError(std::move(Err));
      return createStringError(
          Input.Path + ": " +
          toString(!Name ? Name.takeError() : Member.takeError()));
    }
    std::optional<LoadedFile> File =
        linkedFile((Input.Path + "(" + *Name + ")").str(), Input.Path, *Member,
                   FatLTOObjects);
    if (!File)
      continue;
    if (Error E = Input.WholeArchive ? load(*File) : addLazy(*File)) {
      consumeError(std::move(Err));
      return E;
    }
  }
  if (Err)
    return createStringError(Input.Path + ": " + toString(std::move(Err)));
  return Input.WholeArchive ? Error::success() : retryUnresolved();
}

Error Loader::add(const LinkInput &Input,
                  std::unique_ptr<MemoryBuffer> Buffer) {
  if (!Buffer) {
    Out.Unopenable.push_back(Input.Path);
    return Error::success();
  }
  MemoryBufferRef Ref = Buffer->getMemBufferRef();
  Out.Owned.push_back(std::move(Buffer));

  file_magic Magic = identify_magic(Ref.getBuffer());
  switch (Magic) {
  case file_magic::archive:
    if (!Resolve && !Input.WholeArchive)
      return Error::success();
    return addArchive(Ref, Input);
  case file_magic::bitcode:
  case file_magic::elf_relocatable: {
    LoadedFile File = *linkedFile(Input.Path, Input.Path, Ref, FatLTOObjects);
    if (!Input.Lazy)
      return load(File);
    if (!Resolve)
      return Error::success();
    if (Error E = addLazy(File))
      return E;
    return retryUnresolved();
  }
  case file_magic::elf_shared_object:
    if (!Resolve)
      return Error::success();
    for (std::string &Name : readSharedDefinitions(Ref)) {
      Unresolved.erase(Name);
      Defined.insert(std::move(Name));
    }
    return Error::success();
  default:
    // Linker scripts and whatever else lld may accept: not ulto's business.
    return Error::success();
  }
}

} // namespace

std::string findLibrary(StringRef Name,
                        const std::vector<std::string> &SearchDirs,
                        bool Static) {
  std::vector<std::string> Candidates;
  if (Name.consume_front(":")) {
    Candidates.push_back(Name.str());
  } else {
    if (!Static)
      Candidates.push_back(("lib" + Name + ".so").str());
    Candidates.push_back(("lib" + Name + ".a").str());
  }
  for (const std::string &Dir : SearchDirs)
    for (const std::string &File : Candidates) {
      SmallString<256> Path(Dir);
      sys::path::append(Path, File);
      if (sys::fs::exists(Path))
        return std::string(Path);
    }
  return "";
}

// Whether \p Buffer is bitcode, or a fat object that links as bitcode.
static bool linksAsBitcode(MemoryBufferRef Buffer, bool FatLTOObjects) {
  std::optional<LoadedFile> File = linkedFile("", "", Buffer, FatLTOObjects);
  return File && File->IsBitcode;
}

// Whether \p Input may bring in bitcode only if symbol resolution says so:
// a lazy bitcode object, or an archive (not --whole-archive) with a bitcode
// member. Only then does it matter which files a link loads.
static bool hasLazyBitcode(const LinkInput &Input, MemoryBufferRef Buffer,
                           bool FatLTOObjects) {
  file_magic Magic = identify_magic(Buffer.getBuffer());
  if (Magic == file_magic::bitcode || Magic == file_magic::elf_relocatable)
    return Input.Lazy && linksAsBitcode(Buffer, FatLTOObjects);
  if (Magic != file_magic::archive || Input.WholeArchive)
    return false;
  Expected<std::unique_ptr<object::Archive>> A =
      object::Archive::create(Buffer);
  if (!A) {
    consumeError(A.takeError());
    return true; // The full load reports it.
  }
  Error Err = Error::success();
  for (const object::Archive::Child &C : (*A)->children(Err)) {
    Expected<MemoryBufferRef> Member = C.getMemoryBufferRef();
    if (!Member || linksAsBitcode(*Member, FatLTOObjects)) {
      if (!Member)
        consumeError(Member.takeError());
      consumeError(std::move(Err));
      return true;
    }
  }
  if (Err) {
    consumeError(std::move(Err));
    return true;
  }
  return false;
}

Expected<LoadedFiles> loadLinkInputs(const LinkRequest &Request) {
  // Most links have no bitcode in archives: then the bitcode they load is
  // the bitcode they name (and that of --whole-archive archives), and
  // resolving every symbol of the C and C++ runtime libraries, as much work
  // as lld's own reading of its inputs, would change nothing.
  std::vector<std::unique_ptr<MemoryBuffer>> Buffers; // Null: unopenable.
  bool Resolve = false;
  for (const LinkInput &Input : Request.Inputs) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(
        Input.Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    Buffers.push_back(Buffer ? std::move(*Buffer) : nullptr);
    Resolve = Resolve ||
              (Buffers.back() &&
               hasLazyBitcode(Input, *Buffers.back(), Request.FatLTOObjects));
  }
  Loader L(Request, Resolve);
  for (auto [Input, Buffer] : zip_equal(Request.Inputs, Buffers))
    if (Error E = L.add(Input, std::move(Buffer)))
      return E;
  return L.take();
}

} // namespace ulto
