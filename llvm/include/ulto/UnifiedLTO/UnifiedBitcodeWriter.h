//===- UnifiedBitcodeWriter.h - Split, unified LTO bitcode ------*- C++ -*-===//
//
// Unified LTO bitcode is consumed by both ThinLTO and regular LTO, so it
// carries the module flags UnifiedLTO=1 and EnableSplitLTOUnit=1 and is
// written by LLVM's ThinLTOBitcodeWriterPass: a ThinLTO half with a summary
// and, for modules with type metadata, a regular-LTO half for CFI and
// whole-program devirtualisation (or, on request, as one ThinLTO module).
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

/// How unified bitcode is laid out.
enum class UnifiedLayout {
  /// ThinLTOBitcodeWriterPass decides: a module with type metadata is split
  /// into a ThinLTO half and a regular-LTO half.
  SplitIfTyped,
  /// One ThinLTO module with its summary, whatever type metadata it has: for
  /// modules whose only type metadata are the cfi-icall types ulto gives
  /// every function, none of which they take the address of
  /// (IndirectCallTypes.h). Full LTO reads them from the
  /// definitions; a regular-LTO half would only add an object to every
  /// ThinLTO link, and CFI entries that ThinLTO finds without it.
  OneThinModule,
};

/// Marks M (see above) and writes it to OS, and the thin-link-only bitcode
/// to ThinLinkOS if given, laid out as \p Layout says.
void writeUnifiedBitcode(llvm::Module &M, llvm::raw_ostream &OS,
                         llvm::raw_ostream *ThinLinkOS,
                         bool PreserveUseListOrder,
                         UnifiedLayout Layout = UnifiedLayout::SplitIfTyped);

} // namespace ulto

#endif
