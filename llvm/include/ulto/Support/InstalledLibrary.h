//===- InstalledLibrary.h - ulto's libraries at run time --------*- C++ -*-===//
//
// ulto installs the libraries its programs load at run time (remote
// execution, the distributor that ld.ulto forks) in lib/ulto, beside the
// bin directory of the programs: <prefix>/bin/ulto loads
// <prefix>/lib/ulto/libUltoRemote.so, as the build tree lays them out too.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_SUPPORT_INSTALLEDLIBRARY_H
#define ULTO_SUPPORT_INSTALLEDLIBRARY_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace ulto {

/// The path of ulto's library \p Name for the program at \p Executable.
std::string installedLibrary(llvm::StringRef Executable, llvm::StringRef Name);

} // namespace ulto

#endif // ULTO_SUPPORT_INSTALLEDLIBRARY_H
