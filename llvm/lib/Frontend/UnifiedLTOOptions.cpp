//===- UnifiedLTOOptions.cpp - ulto's options for unified pre-link --------===//

#include "ulto/Frontend/UnifiedLTOOptions.h"
#include "llvm/ADT/StringSwitch.h"

namespace ulto {

std::optional<UnifiedPipeline> parseUnifiedPipeline(llvm::StringRef Value) {
  return llvm::StringSwitch<std::optional<UnifiedPipeline>>(Value)
      .Case("full", UnifiedPipeline::Full)
      .Case("thin", UnifiedPipeline::Thin)
      .Default(std::nullopt);
}

llvm::StringRef toString(UnifiedPipeline Pipeline) {
  return Pipeline == UnifiedPipeline::Full ? "full" : "thin";
}

} // namespace ulto
