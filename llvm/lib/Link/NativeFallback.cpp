//===- NativeFallback.cpp - Fat objects whose bitcode is too new ----------===//

#include "ulto/Link/NativeFallback.h"
#include "ulto/Support/AtomicFile.h"
#include "ulto/Support/TrustedFile.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ObjCopy/ConfigManager.h"
#include "llvm/ObjCopy/ObjCopy.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Object/Binary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace ulto {

std::optional<unsigned> producerMajorVersion(StringRef Producer) {
  if (!Producer.consume_front("LLVM"))
    return std::nullopt;
  unsigned Major;
  StringRef Digits = Producer.take_while(isDigit);
  if (Digits.empty() || Digits.getAsInteger(10, Major))
    return std::nullopt;
  return Major;
}

bool isFromNewerLLVM(StringRef Producer) {
  std::optional<unsigned> Major = producerMajorVersion(Producer);
  return Major && *Major > LLVM_VERSION_MAJOR;
}

std::string describeProducer(StringRef Producer) {
  if (Producer.consume_front("LLVM"))
    return ("LLVM " + Producer).str();
  return Producer.str();
}

// An ELF object without its .llvm.lto section, as llvm-objcopy
// --remove-section=.llvm.lto writes it.
static Expected<std::string> withoutBitcode(MemoryBufferRef Object) {
  Expected<std::unique_ptr<object::Binary>> Binary =
      object::createBinary(Object);
  if (!Binary)
    return Binary.takeError();
  objcopy::ConfigManager Config;
  if (Error E =
          Config.Common.ToRemove.addMatcher(objcopy::NameOrPattern::create(
              ".llvm.lto", objcopy::MatchStyle::Literal,
              [](Error E) { return E; })))
    return std::move(E);
  std::string Bytes;
  raw_string_ostream OS(Bytes);
  if (Error E = objcopy::executeObjcopyOnBinary(Config, **Binary, OS))
    return std::move(E);
  return Bytes;
}

// \p Contents, an archive, with the members among \p FatObjects stripped.
static Expected<std::string>
archiveWithoutBitcode(MemoryBufferRef Contents,
                      ArrayRef<MemoryBufferRef> FatObjects) {
  Expected<std::unique_ptr<object::Archive>> Archive =
      object::Archive::create(Contents);
  if (!Archive)
    return Archive.takeError();
  std::vector<std::string> Stripped; // What the members point into.
  Stripped.reserve(FatObjects.size());
  std::vector<NewArchiveMember> Members;
  Error Err = Error::success();
  for (const object::Archive::Child &C : (*Archive)->children(Err)) {
    Expected<NewArchiveMember> Member =
        NewArchiveMember::getOldMember(C, /*Deterministic=*/true);
    if (!Member) {
      consumeError(std::move(Err));
      return Member.takeError();
    }
    StringRef Data = Member->Buf->getBuffer();
    if (llvm::any_of(FatObjects, [&](MemoryBufferRef F) {
          return F.getBufferStart() == Data.data();
        })) {
      Expected<std::string> Native =
          withoutBitcode(Member->Buf->getMemBufferRef());
      if (!Native) {
        consumeError(std::move(Err));
        return Native.takeError();
      }
      Stripped.push_back(std::move(*Native));
      Member->Buf = MemoryBuffer::getMemBuffer(
          Stripped.back(), Member->Buf->getBufferIdentifier(), false);
    }
    Members.push_back(std::move(*Member));
  }
  if (Err)
    return std::move(Err);
  Expected<std::unique_ptr<MemoryBuffer>> Bytes = writeArchiveToBuffer(
      Members, SymtabWritingMode::NormalSymtab, object::Archive::K_GNU,
      /*Deterministic=*/true, /*Thin=*/false);
  if (!Bytes)
    return Bytes.takeError();
  return (*Bytes)->getBuffer().str();
}

// mkdtemp makes the directory 0700 in one step: LLVM's createUniqueDirectory
// leaves it to the umask, and group members could plant copies.
Expected<NativeFallback> NativeFallback::create() {
  SmallString<128> Model;
  sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Model);
  sys::path::append(Model, "ld.ulto-native-XXXXXX");
  Model.c_str(); // mkdtemp needs the terminating null.
  if (!::mkdtemp(Model.data()))
    return createStringError(
        errnoAsErrorCode(),
        "cannot make a directory for native copies of fat objects in " +
            sys::path::parent_path(Model) + ": " + std::strerror(errno));
  return NativeFallback(std::string(Model));
}

NativeFallback::NativeFallback(std::string Directory)
    : Directory(std::move(Directory)) {}

NativeFallback::NativeFallback(NativeFallback &&Other)
    : Directory(std::move(Other.Directory)), Copies(std::move(Other.Copies)) {
  Other.Directory.clear();
}

NativeFallback::~NativeFallback() { remove(); }

Expected<std::string>
NativeFallback::add(StringRef Path, MemoryBufferRef Contents,
                    ArrayRef<MemoryBufferRef> FatObjects) {
  // lld splits the argument at its first '=' and takes glob characters as a
  // pattern.
  if (Path.find_first_of("=*?[") != StringRef::npos)
    return createStringError(Path + ": cannot link its native code: lld's "
                                    "--remap-inputs= cannot name a path with "
                                    "'=', '*', '?' or '['");
  Expected<std::string> Copy =
      identify_magic(Contents.getBuffer()) == file_magic::archive
          ? archiveWithoutBitcode(Contents, FatObjects)
          : withoutBitcode(Contents);
  if (!Copy)
    return createStringError(
        Path + ": cannot copy its native code: " + toString(Copy.takeError()));
  SmallString<128> CopyPath(Directory);
  sys::path::append(CopyPath, std::to_string(Copies.size()) + "-" +
                                  sys::path::filename(Path));
  if (Error E = writeAtomically(CopyPath, *Copy))
    return std::move(E);
  Copies.push_back(std::string(CopyPath));
  return ("--remap-inputs=" + Path + "=" + CopyPath).str();
}

void NativeFallback::remove() {
  for (const std::string &Copy : Copies)
    removeOwnFile(Copy);
  Copies.clear();
  if (!Directory.empty())
    sys::fs::remove(Directory);
  Directory.clear();
}

} // namespace ulto
