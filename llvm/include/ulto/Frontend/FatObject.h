//===- FatObject.h - The native half of a fat unified object ----*- C++ -*-===//
//
// A fat object (-ffat-lto-objects) holds LTO bitcode in .llvm.lto and native
// code everywhere else. clang-22 makes both from one module: it runs the
// pre-link pipeline, writes the bitcode, then finishes the same module for
// native code. Writing split-LTO-unit bitcode (-funified-lto,
// -fsplit-lto-unit) moves the vtables and type info to the bitcode's
// regular-LTO half and leaves declarations in the module, so the native code
// references definitions no object has (llvm-project#139440).
//
// ulto copies the frontend's module at the start of the pre-link pipeline and
// compiles the copy as clang without LTO does (clang's own backend setup, the
// compile's options, type tests dropped as clang's fat pipeline drops them),
// with the pre-link bitcode in .llvm.lto. The bitcode is byte for byte what
// the compile without -ffat-lto-objects writes; the native code is a plain
// compile's, whatever the pre-link defers to the link.
// Rejected: cloning the pre-link module before the writer splits it (clang's
// fat objects before 2024): its native code lacks the loop transformations
// ulto's Full pre-link leaves to the link, and runs the optimisation
// pipeline twice.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_FRONTEND_FATOBJECT_H
#define ULTO_FRONTEND_FATOBJECT_H

#include "clang/Basic/CodeGenOptions.h"
#include "clang/CodeGen/BackendUtil.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <memory>

namespace clang {
class CompilerInstance;
} // namespace clang

namespace llvm {
class Module;
} // namespace llvm

namespace ulto {

/// The native half of a fat object: the frontend's module, kept before the
/// pre-link pipeline changes it, and compiled without LTO.
class FatObjectNativeCode {
public:
  /// Keeps \p CG, the compile's options before the pre-link changes them, and
  /// adds to it the pass that copies the module. Call it before any other
  /// pipeline-start pass is added, so the copy is the frontend's module.
  explicit FatObjectNativeCode(clang::CodeGenOptions &CG);
  ~FatObjectNativeCode();
  FatObjectNativeCode(const FatObjectNativeCode &) = delete;
  FatObjectNativeCode &operator=(const FatObjectNativeCode &) = delete;

  /// Compiles the copy to an object or assembly (\p Action), with \p Bitcode
  /// in .llvm.lto, into \p Out. False after reporting errors to Clang's
  /// diagnostics.
  bool emit(clang::CompilerInstance &Clang, clang::BackendAction Action,
            llvm::StringRef Bitcode, llvm::SmallVectorImpl<char> &Out);

private:
  clang::CodeGenOptions NativeOptions;
  std::unique_ptr<llvm::Module> Copy;
};

} // namespace ulto

#endif
