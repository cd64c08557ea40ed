//===- SourceFileIdentifier.h - Unique module IDs ---------------*- C++ -*-===//
//
// LLVM splits a module into a ThinLTO half and a regular-LTO half only when
// llvm::getUniqueModuleId() returns a non-empty ID, and it names promoted
// internal symbols and internal type IDs after that ID. Two modules with the
// same ID silently merge their internal type IDs; a module without one falls
// back to regular LTO. ulto therefore sets the "Unique Source File Identifier"
// module flag itself, from everything that tells two objects of one link
// apart: the source path, the output path and a fingerprint of the module's
// content. docs/ModuleIDs.md has the uniqueness argument.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_UNIFIEDLTO_SOURCEFILEIDENTIFIER_H
#define ULTO_UNIFIEDLTO_SOURCEFILEIDENTIFIER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/PassManager.h"
#include <string>

namespace ulto {

/// The name of the module flag LLVM derives module IDs from.
inline constexpr llvm::StringLiteral SourceFileIdentifierFlag =
    "Unique Source File Identifier";

/// Where a translation unit comes from and goes to, with build-specific
/// prefixes already remapped (-ffile-prefix-map) by the caller.
struct TranslationUnitPaths {
  std::string Source;
  std::string Output;
};

/// A hex digest of what the module defines and references: names, linkage,
/// function bodies (LLVM's detailed StructuralHash, which covers operands and
/// constants) and variable initializers. Metadata (debug info) and the source
/// file name are left out so that the digest does not depend on the build
/// directory.
std::string fingerprintModule(const llvm::Module &M);

/// The identifier ulto gives a module: paths and fingerprint, joined.
std::string makeSourceFileIdentifier(const TranslationUnitPaths &Paths,
                                     const llvm::Module &M);

/// Sets the "Unique Source File Identifier" module flag unless the module
/// already has one. Returns true if it set the flag.
bool assignSourceFileIdentifier(llvm::Module &M,
                                const TranslationUnitPaths &Paths);

/// Assigns the identifier at the start of the optimisation pipeline, so that
/// the fingerprint covers the IR as IRGen produced it.
class AssignSourceFileIdentifierPass
    : public llvm::PassInfoMixin<AssignSourceFileIdentifierPass> {
public:
  explicit AssignSourceFileIdentifierPass(TranslationUnitPaths Paths)
      : Paths(std::move(Paths)) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);

private:
  TranslationUnitPaths Paths;
};

} // namespace ulto

#endif
