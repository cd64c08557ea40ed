//===- SplitModuleIDTest.cpp - splitModuleID() ----------------------------===//
//
// Files are split in memory by LLVM's ThinLTOBitcodeWriterPass and read back
// as ld.ulto reads them: both halves lazily, nothing materialized. The
// expected ID is getUniqueModuleId() of the module before it was written.
//
//===----------------------------------------------------------------------===//

#include "ulto/UnifiedLTO/SplitModuleID.h"
#include "Common/UnifiedTestIR.h"
#include "ulto/UnifiedLTO/UnifiedBitcodeWriter.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

class SplitModuleIDTest : public testing::Test {
protected:
  // ThinLTOBitcodeWriter scans module asm with the target's asm parser when
  // it promotes locals, and crashes if no target is registered.
  static void SetUpTestSuite() {
    InitializeAllTargetInfos();
    InitializeAllTargetMCs();
    InitializeAllAsmParsers();
  }

  // Splits IR and loads both halves lazily, as ld.ulto does; returns the ID
  // the writer split it by. Thin and Regular stay null on failure.
  std::string splitAndLoad(StringRef IR) {
    // Lazily loaded modules read from the bitcode they were loaded from.
    Thin.reset();
    Regular.reset();
    Bitcode.clear();
    RegularLoads = 0;
    SMDiagnostic Diag;
    std::unique_ptr<Module> M = parseAssemblyString(IR, Diag, Ctx);
    if (!M) {
      ADD_FAILURE() << Diag.getMessage().str();
      return "";
    }
    std::string OriginalID = getUniqueModuleId(M.get());
    raw_string_ostream OS(Bitcode);
    writeThinLTOBitcode(*M, OS, /*ThinLinkOS=*/nullptr,
                        /*PreserveUseListOrder=*/false);

    Expected<std::vector<BitcodeModule>> Mods =
        getBitcodeModuleList(MemoryBufferRef(Bitcode, "a.o"));
    if (!Mods) {
      ADD_FAILURE() << toString(Mods.takeError());
      return "";
    }
    if (Mods->size() != 2) {
      ADD_FAILURE() << "not split: " << Mods->size() << " module(s)";
      return "";
    }
    Thin = lazy((*Mods)[0], /*WithMetadata=*/true);
    Regular = lazy((*Mods)[1], /*WithMetadata=*/false);
    return OriginalID;
  }

  std::unique_ptr<Module> lazy(BitcodeModule &BM, bool WithMetadata) {
    Expected<std::unique_ptr<Module>> M =
        BM.getLazyModule(Ctx, /*ShouldLazyLoadMetadata=*/!WithMetadata,
                         /*IsImporting=*/false);
    if (!M) {
      ADD_FAILURE() << toString(M.takeError());
      return nullptr;
    }
    return std::move(*M);
  }

  // splitModuleID(), counting the loads of the regular half. The rule must
  // not need function bodies: ld.ulto never loads them.
  std::string splitID() {
    Expected<std::string> ID =
        splitModuleID(*Thin, [&]() -> Expected<const Module &> {
          ++RegularLoads;
          return *Regular;
        });
    for (const Module *M : {Thin.get(), Regular.get()})
      for (const Function &F : *M)
        EXPECT_TRUE(F.isDeclaration() || F.isMaterializable())
            << F.getName().str();
    if (!ID) {
      ADD_FAILURE() << toString(ID.takeError());
      return "";
    }
    return *ID;
  }

  static bool anyNameEndsWith(const Module &M, StringRef Suffix) {
    return any_of(M.global_values(), [&](const GlobalValue &GV) {
      return GV.getName().ends_with(Suffix);
    });
  }

  LLVMContext Ctx;
  std::string Bitcode;
  std::unique_ptr<Module> Thin, Regular;
  unsigned RegularLoads = 0;
};

// clang's -funique-source-file-names and ulto-clang: the ID is MD5 of the
// identifier, whatever the split moved or promoted, and the regular half is
// not read.
TEST_F(SplitModuleIDTest, WithIdentifierFlag) {
  for (StringRef IR : {VTableIR, LocalVTableIR}) {
    std::string OriginalID =
        splitAndLoad(std::string(IR) + uniqueSourceFlags("x"));
    ASSERT_TRUE(Thin && Regular);
    EXPECT_EQ(OriginalID, ".9dd4e461268c8034f5c8564e155c67a6");
    EXPECT_EQ(splitID(), OriginalID);
    EXPECT_EQ(RegularLoads, 0u);
  }
}

// Stock clang -flto=thin -fsplit-lto-unit: the shared locals are renamed
// after the ID, and the thin half alone hashes to something else.
TEST_F(SplitModuleIDTest, WithoutFlagLocalsPromoted) {
  std::string OriginalID =
      splitAndLoad(std::string(LocalVTableIR) + UnifiedFlags);
  ASSERT_TRUE(Thin && Regular);
  ASSERT_TRUE(anyNameEndsWith(*Thin, OriginalID));
  EXPECT_NE(getUniqueModuleId(Thin.get()), OriginalID);
  EXPECT_EQ(splitID(), OriginalID);
  EXPECT_EQ(RegularLoads, 1u);
}

// Nothing promoted, an external vtable moved to the regular half: the ID left
// no trace in the names and is rebuilt from both halves' definitions.
TEST_F(SplitModuleIDTest, WithoutFlagNothingPromoted) {
  std::string OriginalID = splitAndLoad(std::string(VTableIR) + UnifiedFlags);
  ASSERT_TRUE(Thin && Regular);
  ASSERT_FALSE(anyNameEndsWith(*Thin, OriginalID));
  ASSERT_FALSE(anyNameEndsWith(*Regular, OriginalID));
  EXPECT_NE(getUniqueModuleId(Thin.get()), OriginalID);
  EXPECT_EQ(splitID(), OriginalID);
  EXPECT_EQ(RegularLoads, 1u);
}

// When the ID needs the regular half and it cannot be read, the error is the
// loader's (ld.ulto names the file).
TEST_F(SplitModuleIDTest, RegularHalfErrorIsReturned) {
  splitAndLoad(std::string(VTableIR) + UnifiedFlags);
  ASSERT_TRUE(Thin);
  Expected<std::string> ID =
      splitModuleID(*Thin, []() -> Expected<const Module &> {
        return createStringError("invalid record");
      });
  ASSERT_FALSE(bool(ID));
  EXPECT_EQ(toString(ID.takeError()), "invalid record");
}

} // namespace
