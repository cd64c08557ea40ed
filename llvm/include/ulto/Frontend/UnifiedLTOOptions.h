//===- UnifiedLTOOptions.h - Options for unified pre-link -------*- C++ -*-===//
//
// ulto's compile-side options, shared by the driver (which takes them off the
// command line before clang's parser sees them) and by ulto's -cc1 (which
// receives them from the driver so that `-###` shows a runnable command).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_FRONTEND_UNIFIEDLTOOPTIONS_H
#define ULTO_FRONTEND_UNIFIEDLTOOPTIONS_H

#include "llvm/ADT/StringRef.h"
#include <optional>

namespace ulto {

/// The pre-link optimisation pipeline run before unified bitcode is written.
enum class UnifiedPipeline {
  Full, ///< LLVM's Full LTO pre-link pipeline (the default).
  Thin, ///< LLVM's ThinLTO pre-link pipeline, as clang -funified-lto runs.
};

/// `-funified-lto-pipeline=full|thin`, accepted by ulto-clang and its -cc1.
inline constexpr llvm::StringLiteral UnifiedPipelineOption =
    "-funified-lto-pipeline=";

/// Parses the value of -funified-lto-pipeline=; std::nullopt if unknown.
std::optional<UnifiedPipeline> parseUnifiedPipeline(llvm::StringRef Value);

} // namespace ulto

#endif
