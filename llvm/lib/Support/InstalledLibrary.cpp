//===- InstalledLibrary.cpp - ulto's libraries next to its programs -------===//

#include "ulto/Support/InstalledLibrary.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace ulto {

std::string installedLibrary(StringRef Executable, StringRef Name) {
  SmallString<256> Path(sys::path::parent_path(Executable));
  sys::path::append(Path, "..", "lib", "ulto", Name);
  sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  return std::string(Path);
}

} // namespace ulto
