//===- UnifiedPreLink.cpp - ulto's -funified-lto compile ------------------===//
//
// clang-22 implements -funified-lto by running the ThinLTO pre-link pipeline
// and writing through ThinLTOBitcodeWriterPass, which splits a module only if
// llvm::getUniqueModuleId() finds strong external definitions to hash. ulto
// instead:
//   1. runs clang's EmitLLVMOnlyAction with the invocation rewritten for the
//      Full LTO pre-link pipeline (or the ThinLTO one on request), so all of
//      clang's backend setup (sanitizers, PGO, target options) applies;
//   2. sets the "Unique Source File Identifier" flag at the start of that
//      pipeline from the translation unit's paths and IR fingerprint, and
//      maps the module's source_filename as __FILE__ is mapped
//      (-ffile-prefix-map): ThinLTO names local symbols' GUIDs after it, so
//      an unmapped one makes every checkout's index, shards and cache keys
//      its own;
//   3. gives every function the types of -fsanitize=cfi-icall, at the same
//      point (IndirectCallTypes.h);
//   4. leaves to the link the loop transformations that slow code down once
//      the link inlines it (deferLoopTransformsToLink);
//   5. writes the optimised module as unified split-LTO-unit bitcode, with
//      the name of its pipeline in a module flag (PreLinkPipeline.h);
//   6. under -ffat-lto-objects, embeds that bitcode in an object whose
//      native code is a plain compile's (FatObject.h).
// Rejected: post-processing clang's bitcode (a second parse and the wrong
// pipeline), and -funique-source-file-names (one source compiled twice
// collides).
//
//===----------------------------------------------------------------------===//

#include "ulto/Frontend/UnifiedPreLink.h"
#include "ulto/Frontend/FatObject.h"
#include "ulto/Frontend/IndirectCallTypes.h"
#include "ulto/Frontend/ServedTargets.h"
#include "ulto/Support/AtomicFile.h"
#include "ulto/UnifiedLTO/PreLinkPipeline.h"
#include "ulto/UnifiedLTO/SourceFileIdentifier.h"
#include "ulto/UnifiedLTO/UnifiedBitcodeWriter.h"
#include "clang/Basic/DiagnosticFrontend.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/BuryPointer.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

using namespace clang;
using namespace llvm;

namespace ulto {

bool isUnifiedPreLink(const CompilerInvocation &Invocation) {
  const CodeGenOptions &CG = Invocation.getCodeGenOpts();
  frontend::ActionKind Action = Invocation.getFrontendOpts().ProgramAction;
  const bool WritesIR =
      Action == frontend::EmitBC || Action == frontend::EmitLLVM;
  const bool WritesFatObject = CG.FatLTO && (Action == frontend::EmitObj ||
                                             Action == frontend::EmitAssembly);
  return CG.UnifiedLTO && CG.PrepareForLTO && !CG.DisableLLVMPasses &&
         (WritesIR || WritesFatObject) &&
         isServedTarget(Triple(Invocation.getTargetOpts().Triple));
}

// The source and output paths as the user gave them, with -ffile-prefix-map
// (which reaches cc1 as -fmacro-prefix-map) applied, as for __FILE__.
static TranslationUnitPaths translationUnitPaths(const CompilerInstance &Clang,
                                                 StringRef OutputPath) {
  auto Remap = [&](StringRef Path) {
    SmallString<256> P(Path);
    Clang.getLangOpts().remapPathPrefix(P);
    return std::string(P);
  };
  const FrontendOptions &FE = Clang.getFrontendOpts();
  StringRef Source = FE.Inputs.empty() ? "" : FE.Inputs[0].getFile();
  return {Remap(Source), Remap(OutputPath)};
}

// cc1 without -o names the output after the input, like clang does.
static std::string outputPath(const FrontendOptions &FE) {
  if (!FE.OutputFile.empty())
    return FE.OutputFile;
  StringRef Input = FE.Inputs.empty() ? "-" : FE.Inputs[0].getFile();
  if (Input == "-")
    return "-";
  SmallString<128> Path(sys::path::filename(Input));
  switch (FE.ProgramAction) {
  case frontend::EmitLLVM:
    sys::path::replace_extension(Path, "ll");
    break;
  case frontend::EmitAssembly:
    sys::path::replace_extension(Path, "s");
    break;
  case frontend::EmitObj:
    sys::path::replace_extension(Path, "o");
    break;
  default:
    sys::path::replace_extension(Path, "bc");
  }
  return std::string(Path);
}

// What clang's ExecuteCompilerInvocation does before it runs an action.
static bool prepareLikeClang(CompilerInstance &Clang) {
  Clang.LoadRequestedPlugins();
  const std::vector<std::string> &LLVMArgs = Clang.getFrontendOpts().LLVMArgs;
  if (!LLVMArgs.empty()) {
    SmallVector<const char *, 16> Args = {"clang (LLVM option parsing)"};
    for (const std::string &A : LLVMArgs)
      Args.push_back(A.c_str());
    Args.push_back(nullptr);
    cl::ParseCommandLineOptions(Args.size() - 1, Args.data());
  }
  return !Clang.getDiagnostics().hasErrorOccurred();
}

static bool writeOutput(CompilerInstance &Clang, StringRef Path,
                        StringRef Bytes) {
  Error Err = writeAtomically(Path, Bytes);
  if (!Err)
    return true;
  Clang.getDiagnostics().Report(diag::err_fe_unable_to_open_output)
      << Path << toString(std::move(Err));
  return false;
}

// clang picks its pre-link pipeline from these: PrepareForThinLTO, or
// UnifiedLTO, select the ThinLTO one. ulto adds the unified module flags
// itself, so UnifiedLTO can be off here.
static void selectPreLinkPipeline(CodeGenOptions &CG,
                                  UnifiedPipeline Pipeline) {
  CG.PrepareForLTO = true;
  CG.PrepareForThinLTO = Pipeline == UnifiedPipeline::Thin;
  CG.UnifiedLTO = false;
  CG.EnableSplitLTOUnit = true;
  // clang's fat pipeline would embed the module in itself; a fat object's
  // native half is ulto's (FatObject.h).
  CG.FatLTO = false;
  // ulto's identifier replaces -funique-source-file-names' path-only one.
  CG.UniqueSourceFileIdentifier.clear();
}

// What the Full pre-link leaves to the link (docs/Design.md has the
// measurements and the rejected alternatives). These
// transformations, run before the link-time inliner, made code slower once
// the link inlined the function they had transformed, and every link
// pipeline runs them again after its inliner:
//  - SLP vectorisation: a small function's field updates, packed into a
//    vector, stay in vector registers inside the caller's loop (SciMark2's
//    Random_nextDouble, iotest's initA);
//  - loop vectorisation that needs runtime alias checks: inlined, the checks
//    stay, where the link vectorises the loop without them (IRSmk's
//    rmatmult3); loops that need no checks are still vectorised here;
//  - partial and runtime unrolling: the link-time vectoriser then works on
//    unrolled loops (SimpleMOC's attenuate_fluxes); full unrolling stays.
// A -mllvm value the compile gives explicitly wins. CodeGenOptions and
// -fno-unroll-loops are not used for unrolling: clang turns the latter into
// llvm.loop.unroll.disable metadata, which stops the link's unroller too.
// Returns the options it set, for undoPreLinkOptions().
static std::vector<cl::Option *> deferLoopTransformsToLink(CodeGenOptions &CG) {
  CG.VectorizeSLP = false;
  DenseMap<StringRef, cl::Option *> &Opts = cl::getRegisteredOptions();
  std::vector<cl::Option *> Set;
  auto SetUnlessGiven = [&](StringRef Name, StringRef Value) {
    auto It = Opts.find(Name);
    if (It != Opts.end() && It->second->getNumOccurrences() == 0) {
      It->second->addOccurrence(0, Name, Value);
      Set.push_back(It->second);
    }
  };
  SetUnlessGiven("vectorize-memory-check-threshold", "0");
  SetUnlessGiven("unroll-runtime", "false");
  SetUnlessGiven("unroll-allow-partial", "false");
  return Set;
}

// The options are the process's: a fat object's native code, and the next
// compile of the process, are compiled as the user asked.
static void undoPreLinkOptions(ArrayRef<cl::Option *> Set) {
  for (cl::Option *O : Set)
    O->reset();
}

// The module's source_filename with -ffile-prefix-map (-fmacro-prefix-map)
// applied, as clang applies it to __FILE__.
static void mapSourceFileName(llvm::Module &M, const LangOptions &Lang) {
  SmallString<256> Name(M.getSourceFileName());
  Lang.remapPathPrefix(Name);
  M.setSourceFileName(Name);
}

namespace {
class MapSourceFileNamePass : public PassInfoMixin<MapSourceFileNamePass> {
public:
  explicit MapSourceFileNamePass(const LangOptions &Lang) : Lang(Lang) {}
  PreservedAnalyses run(llvm::Module &M, ModuleAnalysisManager &) {
    mapSourceFileName(M, Lang);
    return PreservedAnalyses::none();
  }

private:
  const LangOptions &Lang;
};
} // namespace

// Adds ulto's passes at the start of the pipeline \p Act runs: the mapped
// source file name, the source file identifier, and the indirect call types
// into \p Typed.
static void addPipelineStartPasses(CompilerInstance &Clang,
                                   const UnifiedPreLinkOptions &Options,
                                   const TranslationUnitPaths &Paths,
                                   const CodeGenAction &Act,
                                   TypedFunctions &Typed) {
  const FrontendOptions &FE = Clang.getFrontendOpts();
  CodeGenOptions &CG = Clang.getCodeGenOpts();
  // A -fsanitize=cfi-icall compile has clang's types on every function; an
  // IR input has no declarations to take types from.
  const bool AddTypes =
      Options.IndirectCallTypes &&
      !Clang.getLangOpts().Sanitize.has(SanitizerKind::CFIICall) &&
      !FE.Inputs.empty() &&
      FE.Inputs[0].getKind().getLanguage() != Language::LLVM_IR;
  // The pass finds each function's declaration in the AST, and frees it
  // instead of clang.
  const bool FreeAST = CG.ClearASTBeforeBackend;
  if (AddTypes)
    CG.ClearASTBeforeBackend = false;
  CG.PassBuilderCallbacks.push_back(
      [Paths, AddTypes, FreeAST, Act = &Act, Typed = &Typed,
       Lang = &Clang.getLangOpts()](PassBuilder &PB) {
        PB.registerPipelineStartEPCallback(
            [=](ModulePassManager &MPM, OptimizationLevel) {
              MPM.addPass(MapSourceFileNamePass(*Lang));
              MPM.addPass(AssignSourceFileIdentifierPass(Paths));
              if (AddTypes)
                MPM.addPass(IndirectCallTypesPass(*Act, FreeAST, *Typed));
            });
      });
}

// Writes \p M as unified split-LTO-unit bitcode (or its text, as \p Action
// asks) to \p Output, or in a fat object with \p Native's code, and its thin
// link bitcode where the compile asks for it.
static bool writeModule(CompilerInstance &Clang, llvm::Module &M,
                        StringRef Output, frontend::ActionKind Action,
                        FatObjectNativeCode *Native,
                        const TypedFunctions &Typed) {
  const CodeGenOptions &CG = Clang.getCodeGenOpts();
  const bool EmitText = Action == frontend::EmitLLVM;
  SmallString<0> Bytes, ThinLinkBytes;
  raw_svector_ostream OS(Bytes), ThinLinkOS(ThinLinkBytes);
  const bool WantThinLink = !CG.ThinLinkBitcodeFile.empty() && !EmitText;
  if (EmitText) {
    markUnifiedSplitLTOUnit(M);
    M.print(OS, nullptr, CG.EmitLLVMUseLists);
  } else {
    writeUnifiedBitcode(
        M, OS, WantThinLink ? &ThinLinkOS : nullptr, CG.EmitLLVMUseLists,
        hasOnlyIndirectCallTypes(M, Typed) ? UnifiedLayout::OneThinModule
                                           : UnifiedLayout::SplitIfTyped);
  }
  if (Native) {
    SmallString<0> Object;
    if (!Native->emit(Clang,
                      Action == frontend::EmitAssembly ? Backend_EmitAssembly
                                                       : Backend_EmitObj,
                      Bytes, Object))
      return false;
    Bytes = std::move(Object);
  }
  return writeOutput(Clang, Output, Bytes) &&
         (!WantThinLink ||
          writeOutput(Clang, CG.ThinLinkBitcodeFile, ThinLinkBytes));
}

bool runUnifiedPreLink(CompilerInstance &Clang,
                       const UnifiedPreLinkOptions &Options) {
  FrontendOptions &FE = Clang.getFrontendOpts();
  const frontend::ActionKind Action = FE.ProgramAction;
  const std::string Output = outputPath(FE);
  TranslationUnitPaths Paths =
      translationUnitPaths(Clang, Options.IdentityOutput.value_or(Output));

  // The action owns the context of the modules, which outlives them.
  auto Act = std::make_unique<EmitLLVMOnlyAction>();
  // The copy for native code is the frontend's module: its pass goes first.
  std::optional<FatObjectNativeCode> Native;
  if (Action == frontend::EmitObj || Action == frontend::EmitAssembly)
    Native.emplace(Clang.getCodeGenOpts());
  selectPreLinkPipeline(Clang.getCodeGenOpts(), Options.Pipeline);
  TypedFunctions Typed;
  addPipelineStartPasses(Clang, Options, Paths, *Act, Typed);
  FE.ProgramAction = frontend::EmitLLVMOnly;

  if (!prepareLikeClang(Clang))
    return false;
  std::vector<cl::Option *> Deferred;
  if (Options.Pipeline == UnifiedPipeline::Full)
    Deferred = deferLoopTransformsToLink(Clang.getCodeGenOpts());
  bool Executed = Clang.ExecuteAction(*Act);
  undoPreLinkOptions(Deferred);
  if (!Executed)
    return false;
  std::unique_ptr<llvm::Module> M = Act->takeModule();
  if (!M)
    return false;
  // The pipeline-start passes did this unless a pipeline without that
  // extension point ran; the fingerprint then covers the optimised IR.
  if (assignSourceFileIdentifier(*M, Paths))
    mapSourceFileName(*M, Clang.getLangOpts());
  recordPreLinkPipeline(*M, toString(Options.Pipeline));
  bool Ok = writeModule(Clang, *M, Output, Action, Native ? &*Native : nullptr,
                        Typed);

  // Like clang under -disable-free: the process ends soon, skip teardown.
  if (FE.DisableFree) {
    BuryPointer(std::move(M));
    BuryPointer(std::move(Act));
  }
  return Ok;
}

} // namespace ulto
