//===- UnifiedPreLink.h - ulto's -funified-lto compile ----------*- C++ -*-===//
//
// ulto's implementation of `-funified-lto`: clang's own frontend and
// optimisation pipeline (so sanitizers, PGO and target options keep working),
// set up for the Full LTO pre-link pipeline by default or the ThinLTO one on
// request (-funified-lto-pipeline=thin), then the module gets a unique
// source-file identifier and is written as unified, split-LTO-unit bitcode.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_FRONTEND_UNIFIEDPRELINK_H
#define ULTO_FRONTEND_UNIFIEDPRELINK_H

#include "ulto/Frontend/UnifiedLTOOptions.h"

namespace clang {
class CompilerInstance;
class CompilerInvocation;
} // namespace clang

namespace ulto {

/// True if the invocation is a -funified-lto compile that writes LTO IR
/// (bitcode, text for -S -emit-llvm, or a -ffat-lto-objects object or
/// assembly) after running the pipeline, for a
/// target ulto serves (ServedTargets.h). Other invocations (including
/// -disable-llvm-passes steps of -save-temps, and PlayStation's implicit
/// -funified-lto) are clang's own business.
bool isUnifiedPreLink(const clang::CompilerInvocation &Invocation);

/// Compiles the invocation of Clang (which isUnifiedPreLink) and writes the
/// output atomically. Returns false after reporting errors to Clang's
/// diagnostics.
bool runUnifiedPreLink(clang::CompilerInstance &Clang,
                       const UnifiedPreLinkOptions &Options);

} // namespace ulto

#endif
