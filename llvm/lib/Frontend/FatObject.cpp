//===- FatObject.cpp - The native half of a fat unified object ------------===//

#include "ulto/Frontend/FatObject.h"
#include "clang/Basic/TargetInfo.h"
#include "clang/Frontend/CompilerInstance.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/IPO/LowerTypeTests.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace clang;
using namespace llvm;

namespace ulto {

namespace {
// Copies the module it runs on, changing nothing.
struct CopyModulePass : PassInfoMixin<CopyModulePass> {
  explicit CopyModulePass(std::unique_ptr<llvm::Module> &Copy) : Copy(&Copy) {}
  std::unique_ptr<llvm::Module> *Copy;
  PreservedAnalyses run(llvm::Module &M, ModuleAnalysisManager &) {
    *Copy = CloneModule(M);
    return PreservedAnalyses::all();
  }
};
} // namespace

FatObjectNativeCode::FatObjectNativeCode(CodeGenOptions &CG)
    : NativeOptions(CG) {
  NativeOptions.PrepareForLTO = NativeOptions.PrepareForThinLTO = false;
  NativeOptions.FatLTO = NativeOptions.UnifiedLTO = false;
  NativeOptions.ThinLinkBitcodeFile.clear();
  // Type tests belong to the bitcode's link (CFI, devirtualisation); a link
  // of native code has no type information to check them against.
  NativeOptions.PassBuilderCallbacks.push_back([](PassBuilder &PB) {
    PB.registerPipelineStartEPCallback(
        [](ModulePassManager &MPM, OptimizationLevel) {
          MPM.addPass(LowerTypeTestsPass(nullptr, nullptr,
                                         lowertypetests::DropTestKind::All));
        });
  });
  CG.PassBuilderCallbacks.push_back([Copy = &Copy](PassBuilder &PB) {
    PB.registerPipelineStartEPCallback(
        [=](ModulePassManager &MPM, OptimizationLevel) {
          MPM.addPass(CopyModulePass(*Copy));
        });
  });
}

FatObjectNativeCode::~FatObjectNativeCode() = default;

bool FatObjectNativeCode::emit(CompilerInstance &Clang, BackendAction Action,
                               StringRef Bitcode, SmallVectorImpl<char> &Out) {
  DiagnosticsEngine &Diags = Clang.getDiagnostics();
  if (!Copy) {
    Diags.Report(Diags.getCustomDiagID(
        DiagnosticsEngine::Error,
        "no native code for the fat object: the pipeline ran no "
        "pipeline-start passes"));
    return false;
  }
  embedBufferInModule(*Copy, MemoryBufferRef(Bitcode, "ModuleData"),
                      ".llvm.lto");
  emitBackendOutput(Clang, NativeOptions,
                    Clang.getTarget().getDataLayoutString(), Copy.get(), Action,
                    Clang.getVirtualFileSystemPtr(),
                    std::make_unique<raw_svector_ostream>(Out));
  Copy.reset();
  return !Diags.hasErrorOccurred();
}

} // namespace ulto
