//===- PreLinkPipeline.h - Which pre-link optimised a module ----*- C++ -*-===//
//
// Unified bitcode looks the same whichever pre-link pipeline optimised it, yet
// the choice decides what a full-LTO consumer of a prebuilt SDK gets
// (docs/UnifiedLTO.md). ulto records it in a module flag, for `ulto inspect`.
// The flag's behaviour is AppendUnique: LTO keeps every distinct value when it
// merges module flags, so a module linked from both kinds names both, and no
// link rejects the mix (an Error or Warning flag would).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_UNIFIEDLTO_PRELINKPIPELINE_H
#define ULTO_UNIFIEDLTO_PRELINKPIPELINE_H

#include "llvm/ADT/StringRef.h"
#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace ulto {

/// The module flag that names the pre-link pipelines behind a module.
inline constexpr llvm::StringLiteral PreLinkPipelineFlag =
    "ulto.pre-link-pipeline";

/// Records in \p M that the pipeline called \p Name ("full" or "thin")
/// optimised it, keeping the names already recorded (an IR input that ulto
/// pre-linked before).
void recordPreLinkPipeline(llvm::Module &M, llvm::StringRef Name);

/// The pipelines recorded in \p M, sorted and joined by ',' ("full", "thin",
/// "full,thin"); empty when no ulto pre-link recorded one.
std::string preLinkPipelines(const llvm::Module &M);

} // namespace ulto

#endif
