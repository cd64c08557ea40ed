//===- FatObjects.h - ELF objects, fat or not, built in memory --*- C++ -*-===//
//
// What clang writes for a module without LTO, and with -ffat-lto-objects:
// native code from LLVM's own code generator and, in the fat case, the
// bitcode embedded in .llvm.lto as clang embeds it (embedBufferInModule).
// Needs the targets, their MC layers and asm printers registered.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_UNITTESTS_COMMON_FATOBJECTS_H
#define ULTO_UNITTESTS_COMMON_FATOBJECTS_H

#include "llvm/ADT/SmallString.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include "gtest/gtest.h"

#include <memory>
#include <string>

namespace ulto::test {

/// An ELF object of \p M's native code; with \p FatBitcode, that bitcode in
/// .llvm.lto too.
inline std::string elfObject(llvm::Module &M, llvm::StringRef FatBitcode = "") {
  if (!FatBitcode.empty())
    llvm::embedBufferInModule(
        M, llvm::MemoryBufferRef(FatBitcode, "ModuleData"), ".llvm.lto");
  std::string Error;
  const llvm::Target *T =
      llvm::TargetRegistry::lookupTarget(M.getTargetTriple(), Error);
  if (!T) {
    ADD_FAILURE() << Error;
    return "";
  }
  std::unique_ptr<llvm::TargetMachine> TM(T->createTargetMachine(
      M.getTargetTriple(), "", "", llvm::TargetOptions(), std::nullopt));
  llvm::SmallString<0> Object;
  llvm::raw_svector_ostream OS(Object);
  llvm::legacy::PassManager PM;
  if (TM->addPassesToEmitFile(PM, OS, nullptr,
                              llvm::CodeGenFileType::ObjectFile)) {
    ADD_FAILURE() << "the target cannot write objects";
    return "";
  }
  PM.run(M);
  return std::string(Object);
}

} // namespace ulto::test

#endif
