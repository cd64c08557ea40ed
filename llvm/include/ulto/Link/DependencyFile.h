//===- DependencyFile.h - lld's --dependency-file, in the user's names -*- C++
//-*-===//
//
// A distributed link gives lld other names than the user's: the output in a
// private directory (PrivateOutput.h), inputs under ASCII names ranked for
// the backends' import order (SafeInputNames.h). lld's --dependency-file
// names what lld opened and wrote, which a build system (ninja, CMake's
// LINK_DEPENDS through the linker) would take for the link's inputs and
// output: files that are gone after the link, so the link would never be up
// to date. So the file is rewritten in the user's names, escaped as lld
// escapes them (make's rules, as clang's -MD writes them).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LINK_DEPENDENCYFILE_H
#define ULTO_LINK_DEPENDENCYFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>

namespace ulto {

/// \p Path as lld's dependency file writes it: native separators, no "."
/// or ".." components, and make's escapes for ' ', '#' and '$'.
std::string dependencyFileName(llvm::StringRef Path);

/// Rewrites the dependency file \p File with each path Renamed[i].first
/// named Renamed[i].second, whole or not at all.
llvm::Error renameInDependencyFile(
    llvm::StringRef File,
    llvm::ArrayRef<std::pair<std::string, std::string>> Renamed);

} // namespace ulto

#endif // ULTO_LINK_DEPENDENCYFILE_H
