//===- PreLinkPipeline.cpp - Which pre-link optimised a module ------------===//

#include "ulto/UnifiedLTO/PreLinkPipeline.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ulto {

// The names in the flag's tuple; a malformed flag (not ulto's) has none.
static SmallVector<StringRef, 2> recordedNames(const Module &M) {
  SmallVector<StringRef, 2> Names;
  const auto *Tuple =
      dyn_cast_or_null<MDTuple>(M.getModuleFlag(PreLinkPipelineFlag));
  if (!Tuple)
    return Names;
  for (const MDOperand &Op : Tuple->operands())
    if (const auto *Name = dyn_cast_or_null<MDString>(Op.get()))
      Names.push_back(Name->getString());
  return Names;
}

void recordPreLinkPipeline(Module &M, StringRef Name) {
  SmallVector<StringRef, 2> Names = recordedNames(M);
  if (!is_contained(Names, Name))
    Names.push_back(Name);
  LLVMContext &Ctx = M.getContext();
  SmallVector<Metadata *, 2> Ops;
  for (StringRef N : Names)
    Ops.push_back(MDString::get(Ctx, N));
  M.setModuleFlag(Module::AppendUnique, PreLinkPipelineFlag,
                  MDTuple::get(Ctx, Ops));
}

std::string preLinkPipelines(const Module &M) {
  SmallVector<StringRef, 2> Names = recordedNames(M);
  sort(Names);
  Names.erase(llvm::unique(Names), Names.end());
  return join(Names, ",");
}

} // namespace ulto
