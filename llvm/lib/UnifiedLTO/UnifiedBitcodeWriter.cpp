//===- UnifiedBitcodeWriter.cpp - Split, unified LTO bitcode --------------===//

#include "ulto/UnifiedLTO/UnifiedBitcodeWriter.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/IPO/ThinLTOBitcodeWriter.h"

using namespace llvm;

namespace ulto {

void markUnifiedSplitLTOUnit(Module &M) {
  M.setModuleFlag(Module::Error, "UnifiedLTO", uint32_t(1));
  M.setModuleFlag(Module::Error, "EnableSplitLTOUnit", uint32_t(1));
}

void writeThinLTOBitcode(Module &M, raw_ostream &OS, raw_ostream *ThinLinkOS,
                         bool PreserveUseListOrder) {
  // The writer needs the module summary analysis and what it depends on;
  // the default analysis registrations provide exactly that.
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB;
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);

  ModulePassManager MPM;
  MPM.addPass(ThinLTOBitcodeWriterPass(OS, ThinLinkOS, PreserveUseListOrder));
  MPM.run(M, MAM);
}

void writeUnifiedBitcode(Module &M, raw_ostream &OS, raw_ostream *ThinLinkOS,
                         bool PreserveUseListOrder) {
  markUnifiedSplitLTOUnit(M);
  writeThinLTOBitcode(M, OS, ThinLinkOS, PreserveUseListOrder);
}

} // namespace ulto
