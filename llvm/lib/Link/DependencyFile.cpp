//===- DependencyFile.cpp - lld's --dependency-file, in the user's names --===//

#include "ulto/Link/DependencyFile.h"

#include "ulto/Support/AtomicFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace ulto {

// As lld-22's writeDependencyFile (lld/ELF/Driver.cpp) prints a name.
std::string dependencyFileName(StringRef Path) {
  SmallString<256> Native;
  sys::path::native(Path, Native);
  sys::path::remove_dots(Native, /*remove_dot_dot=*/true);
  std::string Escaped;
  for (size_t I = 0; I != Native.size(); ++I) {
    if (Native[I] == '#') {
      Escaped += '\\';
    } else if (Native[I] == ' ') {
      Escaped += '\\';
      for (size_t J = I; J > 0 && Native[--J] == '\\';)
        Escaped += '\\';
    } else if (Native[I] == '$') {
      Escaped += '$';
    }
    Escaped += Native[I];
  }
  return Escaped;
}

Error renameInDependencyFile(
    StringRef File, ArrayRef<std::pair<std::string, std::string>> Renamed) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFile(File, /*IsText=*/true);
  if (!Buffer)
    return createFileError(File, Buffer.getError());
  std::string Text = (*Buffer)->getBuffer().str();
  // Whole names only: the output's name begins the inputs' other names.
  auto IsEdge = [&](size_t At) {
    return At == std::string::npos || At >= Text.size() || Text[At] == ' ' ||
           Text[At] == ':' || Text[At] == '\n';
  };
  for (const auto &[From, To] : Renamed) {
    std::string Old = dependencyFileName(From), New = dependencyFileName(To);
    for (size_t At = Text.find(Old); At != std::string::npos;
         At = Text.find(Old, At + 1)) {
      if (!IsEdge(At == 0 ? std::string::npos : At - 1) ||
          !IsEdge(At + Old.size()))
        continue;
      Text.replace(At, Old.size(), New);
    }
  }
  return writeAtomically(File, Text);
}

} // namespace ulto
