//===- SplitModuleID.h - The module ID of a split bitcode file --*- C++ -*-===//
//
// ThinLTOBitcodeWriter computes llvm::getUniqueModuleId() on the whole
// module, then moves the definitions with type metadata into the regular
// half and renames the locals both halves share to "<name><ID>". Unless the
// "Unique Source File Identifier" module flag fixes the ID, neither half read
// back hashes to it: the thin half lost the moved definitions and gained the
// promoted ones. Every tool that names a split file by its ID (ld.ulto's
// duplicate check, `ulto inspect`, `ulto sdk check`) must therefore
// reconstruct the ID from both halves, and by the same rule, or they print
// different IDs for one file.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_UNIFIEDLTO_SPLITMODULEID_H
#define ULTO_UNIFIEDLTO_SPLITMODULEID_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace ulto {

/// The module ID ThinLTOBitcodeWriter split a file by, from its thin half
/// \p Thin and, only when the ID depends on it, its regular half, which
/// \p LoadRegular returns: ld.ulto runs this on every input of every link,
/// and the regular half of ulto-clang's objects, which have the identifier
/// flag, is never read. Both may be lazily loaded modules with nothing
/// materialized: the rule reads only the names, linkage and comdats of
/// global values, and the module flags of \p Thin, which must therefore be
/// loaded with its module-level metadata. Fails only if \p LoadRegular does.
///
/// With the "Unique Source File Identifier" flag the ID is LLVM's hash of it.
/// Otherwise it is the hash of the original module's exported definitions,
/// rebuilt from both halves; when locals were promoted, it is the suffix of
/// a promoted name that this rebuild reproduces. When nothing was promoted
/// the rebuild is exact unless an alias moved to the regular half.
llvm::Expected<std::string> splitModuleID(
    llvm::Module &Thin,
    llvm::function_ref<llvm::Expected<const llvm::Module &>()> LoadRegular);

} // namespace ulto

#endif
