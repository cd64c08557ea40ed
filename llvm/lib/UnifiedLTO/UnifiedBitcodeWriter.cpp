//===- UnifiedBitcodeWriter.cpp - Split, unified LTO bitcode --------------===//

#include "ulto/UnifiedLTO/UnifiedBitcodeWriter.h"
#include "llvm/Analysis/ModuleSummaryAnalysis.h"
#include "llvm/Bitcode/BitcodeWriter.h"
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

namespace {
// The analyses the writers need (the module summary and what it depends
// on): the default registrations provide exactly those.
struct WriterAnalyses {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;

  WriterAnalyses() {
    PassBuilder PB;
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  }
};
} // namespace

void writeThinLTOBitcode(Module &M, raw_ostream &OS, raw_ostream *ThinLinkOS,
                         bool PreserveUseListOrder) {
  WriterAnalyses A;
  ModulePassManager MPM;
  MPM.addPass(ThinLTOBitcodeWriterPass(OS, ThinLinkOS, PreserveUseListOrder));
  MPM.run(M, A.MAM);
}

// What ThinLTOBitcodeWriterPass writes for a module without type metadata.
static void writeOneThinModule(Module &M, raw_ostream &OS,
                               raw_ostream *ThinLinkOS,
                               bool PreserveUseListOrder) {
  WriterAnalyses A;
  const ModuleSummaryIndex &Index =
      A.MAM.getResult<ModuleSummaryIndexAnalysis>(M);
  ModuleHash Hash = {{0}};
  WriteBitcodeToFile(M, OS, PreserveUseListOrder, &Index,
                     /*GenerateHash=*/true, &Hash);
  if (ThinLinkOS)
    writeThinLinkBitcodeToFile(M, *ThinLinkOS, Index, Hash);
}

void writeUnifiedBitcode(Module &M, raw_ostream &OS, raw_ostream *ThinLinkOS,
                         bool PreserveUseListOrder, UnifiedLayout Layout) {
  markUnifiedSplitLTOUnit(M);
  if (Layout == UnifiedLayout::OneThinModule)
    writeOneThinModule(M, OS, ThinLinkOS, PreserveUseListOrder);
  else
    writeThinLTOBitcode(M, OS, ThinLinkOS, PreserveUseListOrder);
}

} // namespace ulto
