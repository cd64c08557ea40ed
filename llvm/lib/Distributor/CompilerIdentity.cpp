//===- CompilerIdentity.cpp - Who compiles a backend job ------------------===//

#include "ulto/Distributor/CompilerIdentity.h"
#include "ulto/Distributor/FileDigest.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"

using namespace llvm;

namespace ulto {

Expected<std::string> computeCompilerIdentity(StringRef Compiler,
                                              const VersionProbe &Probe) {
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
  // Removed after use, or by an interrupt (Cancellation.h).
  sys::RemoveFileOnSignal(VersionFile);
  scope_exit Remove([&] {
    sys::fs::remove(VersionFile);
    sys::DontRemoveFileOnSignal(VersionFile);
  });
  if (Error E = Probe(*Path, VersionFile))
    return E;
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

} // namespace ulto
