//===- SourceFileIdentifier.cpp - Unique module IDs by construction -------===//

#include "ulto/UnifiedLTO/SourceFileIdentifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/StructuralHash.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/Endian.h"

using namespace llvm;

namespace ulto {
namespace {

// Feeds length-prefixed strings and fixed-width integers to BLAKE3, so that
// no two different sequences of fields produce the same byte stream.
class Fingerprint {
public:
  void add(StringRef S) {
    add(uint64_t(S.size()));
    Hasher.update(S);
  }
  void add(uint64_t V) {
    uint8_t Bytes[8];
    support::endian::write64le(Bytes, V);
    Hasher.update(Bytes);
  }
  void add(const APInt &V) {
    add(uint64_t(V.getBitWidth()));
    for (unsigned I = 0, E = V.getNumWords(); I != E; ++I)
      add(V.getRawData()[I]);
  }

  // Globals are hashed by name (their bodies are hashed where they are
  // defined); other constants by kind, value and operands.
  void add(const Constant &C) {
    if (auto *GV = dyn_cast<GlobalValue>(&C)) {
      add(GV->getName());
      return;
    }
    add(uint64_t(C.getValueID()));
    if (auto *CI = dyn_cast<ConstantInt>(&C))
      add(CI->getValue());
    else if (auto *CFP = dyn_cast<ConstantFP>(&C))
      add(CFP->getValueAPF().bitcastToAPInt());
    else if (auto *CDS = dyn_cast<ConstantDataSequential>(&C))
      add(CDS->getRawDataValues());
    for (const Use &Op : C.operands())
      if (auto *OpC = dyn_cast<Constant>(Op.get()))
        add(*OpC);
  }

  std::string digest() { return toHex(Hasher.final<16>(), /*LowerCase=*/true); }

private:
  BLAKE3 Hasher;
};

} // namespace

std::string fingerprintModule(const Module &M) {
  Fingerprint F;
  F.add(M.getTargetTriple().str());
  F.add(M.getDataLayoutStr());
  // Not the source file name: it is unmapped and absolute when the path
  // given was, and the identifier has the (mapped) path anyway.
  for (const GlobalValue &GV : M.global_values()) {
    F.add(GV.getName());
    F.add(uint64_t(GV.getLinkage()));
    F.add(uint64_t(GV.isDeclaration()));
    if (auto *Fn = dyn_cast<Function>(&GV)) {
      if (!Fn->isDeclaration())
        F.add(uint64_t(StructuralHash(*Fn, /*DetailedHash=*/true)));
    } else if (auto *Var = dyn_cast<GlobalVariable>(&GV)) {
      if (Var->hasInitializer())
        F.add(*Var->getInitializer());
    } else if (auto *GA = dyn_cast<GlobalAlias>(&GV)) {
      F.add(*GA->getAliasee());
    }
  }
  return F.digest();
}

std::string makeSourceFileIdentifier(const TranslationUnitPaths &Paths,
                                     const Module &M) {
  // The separators cannot be confused with path contents that matter: the
  // fingerprint is fixed-width hex and comes last.
  return "ulto:" + Paths.Source + "|" + Paths.Output + "|" +
         fingerprintModule(M);
}

bool assignSourceFileIdentifier(Module &M, const TranslationUnitPaths &Paths) {
  if (M.getModuleFlag(SourceFileIdentifierFlag))
    return false;
  LLVMContext &Ctx = M.getContext();
  // Same shape as clang's -funique-source-file-names flag: an MDTuple holding
  // one MDString, with Append behaviour so that llvm-link keeps both.
  M.addModuleFlag(
      Module::Append, SourceFileIdentifierFlag,
      MDTuple::get(Ctx,
                   {MDString::get(Ctx, makeSourceFileIdentifier(Paths, M))}));
  return true;
}

PreservedAnalyses AssignSourceFileIdentifierPass::run(Module &M,
                                                      ModuleAnalysisManager &) {
  // Only a module flag changes: no analysis result depends on it.
  assignSourceFileIdentifier(M, Paths);
  return PreservedAnalyses::all();
}

} // namespace ulto
