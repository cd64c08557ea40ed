//===- IndirectCallTypes.h - cfi-icall types on every SDK function -*- C++
//-*-===//
//
// A program compiled with -fsanitize=cfi-icall may call, through a pointer,
// a function of a library compiled without it. ThinLTO lets the call through:
// the program's declaration of the function carries its type (cfi.functions).
// Full LTO traps: the IR link keeps the library's definition, which has no
// type, and drops the declaration. So ulto's unified bitcode gives every
// function it defines the type identifiers clang's -fsanitize=cfi-icall would
// give it. Only a CFI consumer's jump tables read them.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_FRONTEND_INDIRECTCALLTYPES_H
#define ULTO_FRONTEND_INDIRECTCALLTYPES_H

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/PassManager.h"
#include <array>
#include <optional>
#include <string>

namespace clang {
class CodeGenAction;
class FunctionDecl;
class MangleContext;
} // namespace clang

namespace ulto {

/// The type identifiers clang-22's -fsanitize=cfi-icall attaches to a
/// function declared as \p FD: its type's and its pointer-generalized type's
/// (for -fsanitize-cfi-icall-generalize-pointers callers). std::nullopt for
/// what clang gives no named identifier: non-static member functions (CFI
/// checks them through vtables and member function pointers) and types that
/// are not externally visible.
std::optional<std::array<std::string, 2>>
indirectCallTypeIDs(const clang::FunctionDecl &FD,
                    clang::MangleContext &Mangler);

/// The functions IndirectCallTypesPass gave types to, by name.
using TypedFunctions = llvm::StringSet<>;

/// Gives every function the module defines for the linker, and that has no
/// type metadata yet, its indirectCallTypeIDs() as !type metadata, and
/// records it in \p Typed. Linkonce definitions are left alone: every
/// translation unit that uses one has its own copy, so a CFI consumer that
/// takes its address brings one with types. So are local functions whose
/// address the module does not take: nothing else can call them. Runs at the
/// start of the pre-link pipeline of \p Action's compile, whose code generator
/// knows each function's declaration.
///
/// clang frees the AST before the pipeline (-clear-ast-before-backend); the
/// compile must keep it for the pass, which then frees it as clang would
/// have if \p FreeAST.
class IndirectCallTypesPass
    : public llvm::PassInfoMixin<IndirectCallTypesPass> {
public:
  IndirectCallTypesPass(const clang::CodeGenAction &Action, bool FreeAST,
                        TypedFunctions &Typed)
      : Action(Action), FreeAST(FreeAST), Typed(Typed) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);

private:
  const clang::CodeGenAction &Action;
  bool FreeAST;
  TypedFunctions &Typed;
};

/// Whether \p M has type metadata, all of it on functions in \p Typed whose
/// address it does not take: then it is written as one ThinLTO module
/// (UnifiedLayout::OneThinModule). A taken address may reach a CFI program
/// that declares no such function: the split's cfi.functions put it in a
/// thin link's jump tables.
bool hasOnlyIndirectCallTypes(const llvm::Module &M,
                              const TypedFunctions &Typed);

} // namespace ulto

#endif
