//===- ShippedToolchain.cpp - A compiler to send with every action --------===//

#include "ShippedToolchain.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

using namespace llvm;
using namespace llvm::object;

namespace ulto {

// The DT_NEEDED and DT_RUNPATH/DT_RPATH strings of an ELF executable.
static Error readDynamic(const ELF64LEFile &File,
                         std::vector<std::string> &Needed,
                         std::vector<std::string> &RunPaths) {
  Expected<ELF64LEFile::Elf_Dyn_Range> Entries = File.dynamicEntries();
  if (!Entries)
    return Entries.takeError();
  uint64_t StringTable = 0;
  std::vector<std::pair<int64_t, uint64_t>> Strings;
  for (const ELF64LEFile::Elf_Dyn &Entry : *Entries) {
    if (Entry.d_tag == ELF::DT_STRTAB)
      StringTable = Entry.getPtr();
    else if (Entry.d_tag == ELF::DT_NEEDED || Entry.d_tag == ELF::DT_RUNPATH ||
             Entry.d_tag == ELF::DT_RPATH)
      Strings.push_back({Entry.d_tag, Entry.getVal()});
  }
  if (Strings.empty())
    return Error::success();
  Expected<const uint8_t *> Base = File.toMappedAddr(StringTable);
  if (!Base)
    return Base.takeError();
  for (auto [Tag, Offset] : Strings) {
    std::string S = reinterpret_cast<const char *>(*Base) + Offset;
    (Tag == ELF::DT_NEEDED ? Needed : RunPaths).push_back(std::move(S));
  }
  return Error::success();
}

Expected<ShippedToolchain> findShippedToolchain(StringRef Compiler) {
  ErrorOr<std::string> Found = sys::findProgramByName(Compiler);
  if (!Found)
    return createStringError("cannot ship compiler '%s': not found",
                             Compiler.str().c_str());
  SmallString<256> Real;
  if (std::error_code EC = sys::fs::real_path(*Found, Real))
    return createStringError(EC, "cannot ship compiler '%s': %s",
                             Found->c_str(), EC.message().c_str());

  ShippedToolchain Result;
  // The name as invoked: clang picks its mode (clang, clang++) by it.
  Result.Compiler = "toolchain/bin/" + sys::path::filename(*Found).str();
  Result.Files.push_back({Result.Compiler, Real.str().str(), true});

  Expected<OwningBinary<Binary>> Bin = createBinary(Real);
  if (!Bin)
    return createStringError("cannot ship compiler '%s': %s", Real.c_str(),
                             toString(Bin.takeError()).c_str());
  auto *ELF = dyn_cast<ELF64LEObjectFile>(Bin->getBinary());
  if (!ELF)
    return createStringError("cannot ship compiler '%s': not a 64-bit "
                             "little-endian ELF executable",
                             Real.c_str());
  std::vector<std::string> Needed, RunPaths;
  if (Error E = readDynamic(ELF->getELFFile(), Needed, RunPaths))
    return createStringError("cannot ship compiler '%s': %s", Real.c_str(),
                             toString(std::move(E)).c_str());

  StringRef Origin = sys::path::parent_path(Real);
  for (const std::string &RunPath : RunPaths) {
    SmallVector<StringRef, 4> Directories;
    StringRef(RunPath).split(Directories, ':');
    for (StringRef Directory : Directories) {
      if (!Directory.consume_front("$ORIGIN"))
        continue;
      SmallString<256> Local(Origin), Remote("toolchain/bin");
      sys::path::append(Local, Directory);
      sys::path::append(Remote, Directory);
      sys::path::remove_dots(Remote, /*remove_dot_dot=*/true);
      for (const std::string &Library : Needed) {
        SmallString<256> LocalLibrary(Local);
        sys::path::append(LocalLibrary, Library);
        SmallString<256> RealLibrary;
        if (sys::fs::real_path(LocalLibrary, RealLibrary))
          continue;
        Result.Files.push_back(
            {(Remote + "/" + Library).str(), RealLibrary.str().str(), false});
      }
    }
  }
  return Result;
}

} // namespace ulto
