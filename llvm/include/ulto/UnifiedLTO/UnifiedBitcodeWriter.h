//===- UnifiedBitcodeWriter.h - Split, unified LTO bitcode ------*- C++ -*-===//
//
// Unified LTO bitcode is consumed by both ThinLTO and regular LTO, so it
// carries the module flags UnifiedLTO=1 and EnableSplitLTOUnit=1 and is
// written by LLVM's ThinLTOBitcodeWriterPass: a ThinLTO half with a summary
// and, for modules with type metadata, a regular-LTO half for CFI and
// whole-program devirtualisation.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_UNIFIEDLTO_UNIFIEDBITCODEWRITER_H
#define ULTO_UNIFIEDLTO_UNIFIEDBITCODEWRITER_H

namespace llvm {
class Module;
class raw_ostream;
} // namespace llvm

namespace ulto {

/// Adds the module flags that make M unified, split-LTO-unit bitcode.
void markUnifiedSplitLTOUnit(llvm::Module &M);

/// Writes M through LLVM's ThinLTOBitcodeWriterPass, with the analyses it
/// needs, to OS (and the thin-link-only bitcode to ThinLinkOS if given), as
/// clang -flto=thin does; the module flags decide what is written.
void writeThinLTOBitcode(llvm::Module &M, llvm::raw_ostream &OS,
                         llvm::raw_ostream *ThinLinkOS,
                         bool PreserveUseListOrder);

/// Marks M (see above) and writes it through ThinLTOBitcodeWriterPass to OS,
/// and the thin-link-only bitcode to ThinLinkOS if given.
void writeUnifiedBitcode(llvm::Module &M, llvm::raw_ostream &OS,
                         llvm::raw_ostream *ThinLinkOS,
                         bool PreserveUseListOrder);

} // namespace ulto

#endif
