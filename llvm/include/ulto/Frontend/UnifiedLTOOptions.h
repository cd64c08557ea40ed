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
#include <string>

namespace ulto {

/// The pre-link optimisation pipeline run before unified bitcode is written.
/// The Full LTO one is the default, as ulto's specification and the Unified
/// LTO RFC have it: a prebuilt bitcode SDK is compiled once and its full-LTO
/// consumers link pre-optimised code. The ThinLTO one is for builds that
/// recompile everything and link only with ThinLTO (docs/UnifiedLTO.md).
enum class UnifiedPipeline {
  Full, ///< LLVM's Full LTO pre-link pipeline.
  Thin, ///< LLVM's ThinLTO pre-link pipeline, as clang -funified-lto runs.
};

/// `-funified-lto-pipeline=full|thin`, accepted by ulto-clang and its -cc1.
inline constexpr llvm::StringLiteral UnifiedPipelineOption =
    "-funified-lto-pipeline=";

/// Parses the value of -funified-lto-pipeline=; std::nullopt if unknown.
std::optional<UnifiedPipeline> parseUnifiedPipeline(llvm::StringRef Value);

/// "full" or "thin", as -funified-lto-pipeline= spells it.
llvm::StringRef toString(UnifiedPipeline Pipeline);

/// `-fno-unified-lto-icall-types` (and `-funified-lto-icall-types`, the
/// default), accepted by ulto-clang and its -cc1: whether every function gets
/// the type identifiers of -fsanitize=cfi-icall (IndirectCallTypes.h).
inline constexpr llvm::StringLiteral IndirectCallTypesOption =
    "-funified-lto-icall-types";
inline constexpr llvm::StringLiteral NoIndirectCallTypesOption =
    "-fno-unified-lto-icall-types";

/// `-funified-lto-identity-output=PATH`, cc1 only: the output path the module
/// ID is made from when it must not be -o. The driver passes it empty for
/// temporary objects, whose names are random, so that a compile-and-link
/// command is reproducible.
inline constexpr llvm::StringLiteral IdentityOutputOption =
    "-funified-lto-identity-output=";

/// What ulto's -cc1 takes from its arguments for a unified pre-link.
struct UnifiedPreLinkOptions {
  UnifiedPipeline Pipeline = UnifiedPipeline::Full;
  std::optional<std::string> IdentityOutput;
  bool IndirectCallTypes = true;
};

} // namespace ulto

#endif
