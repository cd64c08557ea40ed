//===- SafeInputNames.h - Names for a distributed link ----------*- C++ -*-===//
//
// A ThinLTO backend imports from its source modules in the sorted order of
// their module IDs (FunctionImporter), and the object shows that order (the
// order of the globals it imports). In process, lld names a module by its
// path, an archive member "lib/x.a(m.o at 8)"; LLVM 22's DTLTO names a
// regular archive's members after the linker's output instead,
// "<output dir>/x.a(m.o at 8).<sequence>.<pid>.o", and writes them there.
// So when a link's archives and objects lie in other directories than its
// output (CMake: CMakeFiles/t.dir/t.cc.o, lib/libx.a, -o bin/t), the jobs
// imported in another order than --lto=thin's backends, and the program
// differed (12 of fmtlib's 20 test programs).
//
// ld.ulto then gives the link's bitcode files and archives other names, in
// the output's directory, ranked as lld's in-process IDs sort: objects and
// regular archives' members then sort under DTLTO as they do in process.
// The same names serve a second purpose: LLVM 22 writes a module path that
// is not ASCII corrupted into DTLTO's index shards (the module string
// table's writer sign-extends each byte into the bits of the next), so no
// backend job could load such a module (`é.o`, `libü.a`, a member `ß.o`):
// the ranked names are ASCII.
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

/// Whether the ThinLTO modules of \p Paths, the link's bitcode files and
/// archives, sort alike by lld's in-process module IDs and by LLVM 22's DTLTO
/// ones for a link whose output is \p OutputFile; an error names the input
/// it is about.
llvm::Expected<bool> distributedOrderMatches(llvm::ArrayRef<std::string> Paths,
                                             llvm::StringRef OutputFile);

/// Gives the link's bitcode files and archives, \p Paths as the command line
/// names them, names in the directory \p Dir that LLVM 22 writes correctly
/// and that sort as lld's in-process module IDs do:
/// "<Dir>/<Prefix><rank>-<the file name in ASCII>", an archive ranked as
/// "<path>(" (its members' IDs). Each is a symbolic link to its file, one
/// for a path named twice; an archive with a member whose name is not ASCII,
/// and a thin archive, is instead a copy with its members renamed alike, in
/// their order. Returns the new names, in the order of \p Paths; an error
/// names the input it is about.
llvm::Expected<std::vector<std::string>>
makeSafeInputNames(llvm::ArrayRef<std::string> Paths, llvm::StringRef Dir,
                   llvm::StringRef Prefix = "");

} // namespace ulto

#endif
