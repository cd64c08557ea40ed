//===- SplitModuleID.cpp - The module ID of a split bitcode file ----------===//
//
// The thin half keeps every global of the original module, in the original
// order, and turns those that moved to the regular half into declarations.
// So the original list of exported definitions is the thin half's, with each
// declaration looked up in the regular half, minus the promoted locals. The
// hash is then computed by LLVM itself, over a stand-in module holding those
// names in that order, so that ulto cannot drift from getUniqueModuleId().
//
// Rejected: hashing the thin half alone. It needs no regular half, but it
// misses the moved definitions and counts the promoted locals, so whenever
// the split moved or promoted anything it gives an ID nothing was named
// after.
//
//===----------------------------------------------------------------------===//

#include "ulto/UnifiedLTO/SplitModuleID.h"
#include "ulto/UnifiedLTO/SourceFileIdentifier.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <utility>

using namespace llvm;

namespace ulto {
namespace {

// A definition getUniqueModuleId() hashes.
bool isExportedDefinition(const GlobalValue &GV) {
  return !GV.isDeclaration() && GV.hasExternalLinkage() && !GV.hasComdat() &&
         !GV.getName().starts_with("llvm.");
}

// "." followed by 32 lowercase hex digits, the shape of a module ID.
bool endsWithModuleID(StringRef Name) {
  if (Name.size() < 33 || Name[Name.size() - 33] != '.')
    return false;
  return all_of(Name.take_back(32),
                [](char C) { return isDigit(C) || (C >= 'a' && C <= 'f'); });
}

// getUniqueModuleId() of the module \p Thin and \p Regular were split from,
// with local symbols promoted under \p Promoted (possibly empty) left out.
std::string originalModuleID(Module &Thin, const Module &Regular,
                             StringRef Promoted) {
  Module StandIn("ulto.module-id", Thin.getContext());
  Type *Int8Ty = Type::getInt8Ty(Thin.getContext());
  for (GlobalValue &GV : Thin.global_values()) {
    StringRef Name = GV.getName();
    if (!Promoted.empty() && Name.ends_with(Promoted))
      continue;
    bool Exported = isExportedDefinition(GV);
    if (!Exported && GV.isDeclaration())
      if (const GlobalValue *Moved = Regular.getNamedValue(Name))
        Exported = isExportedDefinition(*Moved);
    if (Exported)
      new GlobalVariable(StandIn, Int8Ty, /*isConstant=*/false,
                         GlobalValue::ExternalLinkage,
                         ConstantInt::get(Int8Ty, 0), Name);
  }
  return getUniqueModuleId(&StandIn);
}

} // namespace

Expected<std::string>
splitModuleID(Module &Thin,
              function_ref<Expected<const Module &>()> LoadRegular) {
  if (Thin.getModuleFlag(SourceFileIdentifierFlag))
    return getUniqueModuleId(&Thin);
  Expected<const Module &> Regular = LoadRegular();
  if (!Regular)
    return Regular.takeError();

  // A promoted local is named "<name><ID>": the ID is a suffix that the
  // reconstruction reproduces once the promoted names are left out.
  SmallSetVector<StringRef, 4> Candidates;
  for (const Module *M : {&std::as_const(Thin), &*Regular})
    for (const GlobalValue &GV : M->global_values())
      if (endsWithModuleID(GV.getName()))
        Candidates.insert(GV.getName().take_back(33));
  for (StringRef Candidate : Candidates)
    if (originalModuleID(Thin, *Regular, Candidate) == Candidate)
      return Candidate.str();

  // Nothing was promoted, so the ID left no trace and this is the best
  // reconstruction (exact unless an alias moved to the regular half).
  return originalModuleID(Thin, *Regular, "");
}

} // namespace ulto
