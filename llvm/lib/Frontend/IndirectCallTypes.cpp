//===- IndirectCallTypes.cpp - cfi-icall types on every SDK function ------===//
//
// The identifiers are clang's own (CodeGenModule::CreateMetadataIdentifier*,
// private to clang's CodeGen): the canonical type's Itanium mangling through
// clang's mangler, exception specification dropped, with ".generalized"
// for the variant whose pointers are void pointers. test/ulto-clang/
// icall-types-match-clang-*.test check them against clang-22's.
//
//===----------------------------------------------------------------------===//

#include "ulto/Frontend/IndirectCallTypes.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Mangle.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/CodeGen/ModuleBuilder.h"
#include "llvm/IR/Module.h"

using namespace clang;
using namespace llvm;

namespace ulto {

// A pointer becomes a void pointer with the pointee's qualifiers, as clang
// generalizes: 'const char *' gives 'const void *'.
static QualType generalize(ASTContext &Ctx, QualType T) {
  if (!T->isPointerType())
    return T;
  return Ctx.getPointerType(
      QualType(Ctx.VoidTy)
          .withCVRQualifiers(T->getPointeeType().getCVRQualifiers()));
}

static QualType generalizeFunctionType(ASTContext &Ctx, QualType T) {
  if (const auto *Proto = T->getAs<FunctionProtoType>()) {
    SmallVector<QualType, 8> Params;
    for (QualType Param : Proto->param_types())
      Params.push_back(generalize(Ctx, Param));
    return Ctx.getFunctionType(generalize(Ctx, Proto->getReturnType()), Params,
                               Proto->getExtProtoInfo());
  }
  const auto *NoProto = T->castAs<FunctionNoProtoType>();
  return Ctx.getFunctionNoProtoType(generalize(Ctx, NoProto->getReturnType()));
}

static std::optional<std::string> typeID(MangleContext &Mangler, QualType T,
                                         StringRef Suffix) {
  ASTContext &Ctx = Mangler.getASTContext();
  if (const auto *Proto = T->getAs<FunctionProtoType>())
    T = Ctx.getFunctionType(
        Proto->getReturnType(), Proto->getParamTypes(),
        Proto->getExtProtoInfo().withExceptionSpec(EST_None));
  if (!isExternallyVisible(T->getLinkage()))
    return std::nullopt;
  std::string ID;
  raw_string_ostream OS(ID);
  Mangler.mangleCanonicalTypeName(T, OS);
  OS << Suffix;
  return ID;
}

std::optional<std::array<std::string, 2>>
indirectCallTypeIDs(const FunctionDecl &FD, MangleContext &Mangler) {
  if (const auto *Method = dyn_cast<CXXMethodDecl>(&FD);
      Method && !Method->isStatic())
    return std::nullopt;
  QualType T = FD.getType();
  std::optional<std::string> Exact = typeID(Mangler, T, "");
  std::optional<std::string> General =
      typeID(Mangler, generalizeFunctionType(Mangler.getASTContext(), T),
             ".generalized");
  if (!Exact || !General)
    return std::nullopt;
  return std::array<std::string, 2>{std::move(*Exact), std::move(*General)};
}

PreservedAnalyses IndirectCallTypesPass::run(llvm::Module &M,
                                             ModuleAnalysisManager &) {
  CodeGenerator *Gen = Action.getCodeGenerator();
  if (!Gen)
    return PreservedAnalyses::all();
  std::unique_ptr<MangleContext> Mangler;
  ASTContext *Ctx = nullptr;
  for (Function &F : M) {
    // A local function is called through a pointer only when this module
    // takes its address (pugixml's unspecified-bool operators return one).
    if (F.isDeclarationForLinker() ||
        (F.hasLocalLinkage() && !F.hasAddressTaken()) ||
        F.hasLinkOnceLinkage() || F.hasMetadata(LLVMContext::MD_type))
      continue;
    const auto *FD =
        dyn_cast_or_null<FunctionDecl>(Gen->GetDeclForMangledName(F.getName()));
    if (!FD)
      continue;
    if (!Mangler) {
      Ctx = &FD->getASTContext();
      Mangler.reset(Ctx->createMangleContext());
    }
    std::optional<std::array<std::string, 2>> IDs =
        indirectCallTypeIDs(*FD, *Mangler);
    if (!IDs)
      continue;
    for (const std::string &ID : *IDs)
      F.addTypeMetadata(0, MDString::get(M.getContext(), ID));
    Typed.insert(F.getName());
  }
  // What clang's BackendConsumer does under -clear-ast-before-backend.
  if (FreeAST && Ctx) {
    Mangler.reset();
    Ctx->cleanup();
    Ctx->getAllocator().Reset();
  }
  return Typed.empty() ? PreservedAnalyses::all() : PreservedAnalyses::none();
}

bool hasOnlyIndirectCallTypes(const llvm::Module &M,
                              const TypedFunctions &Typed) {
  bool Any = false;
  for (const GlobalObject &GO : M.global_objects()) {
    if (!GO.hasMetadata(LLVMContext::MD_type))
      continue;
    if (!isa<Function>(GO) || !Typed.contains(GO.getName()))
      return false;
    // A function whose address the module takes may be called through a
    // pointer that only this module made: the split's cfi.functions carry
    // it to a thin link's jump tables.
    if (cast<Function>(GO).hasAddressTaken())
      return false;
    Any = true;
  }
  return Any;
}

} // namespace ulto
