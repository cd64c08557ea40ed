//===- SafeInputNames.h - ASCII names for a distributed link ----*- C++ -*-===//
//
// LLVM 22 writes a module path that is not ASCII corrupted into DTLTO's index
// shards (the module string table's writer sign-extends each byte into the
// bits of the next), so no backend job could load such a module: `é.o`,
// `libü.a`, an archive member `ß.o`, a build directory `/home/josé`. ld.ulto
// gives the link other names for those inputs, ASCII and sorted as the
// originals are (the backends import from their modules in the sorted order
// of the paths, which shows in the object), so the program is the one
// --lto=thin links.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LINK_SAFEINPUTNAMES_H
#define ULTO_LINK_SAFEINPUTNAMES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ulto {

/// Gives the link's bitcode files and archives, \p Paths as the command line
/// names them, names in the directory \p Dir that LLVM 22 writes correctly:
/// "<Dir>/<rank>-<the file name in ASCII>", the ranks in the sorted order of
/// \p Paths. Each is a symbolic link to its file; an archive with a member
/// whose name is not ASCII, and a thin archive, is instead a copy with its
/// members renamed alike, in their order. Returns the new names, in the order of \p Paths; an error
/// names the input it is about.
llvm::Expected<std::vector<std::string>>
makeSafeInputNames(llvm::ArrayRef<std::string> Paths, llvm::StringRef Dir);

} // namespace ulto

#endif
