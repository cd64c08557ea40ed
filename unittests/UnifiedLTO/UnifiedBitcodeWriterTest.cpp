//===- UnifiedBitcodeWriterTest.cpp ---------------------------------------===//

#include "ulto/UnifiedLTO/UnifiedBitcodeWriter.h"
#include "ulto/UnifiedLTO/SourceFileIdentifier.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;

namespace {

// An anonymous-namespace class with a virtual function: internal vtable with
// type metadata, nothing external.
constexpr const char *InternalVTable = R"(
target triple = "x86_64-pc-linux-gnu"
@vt = internal constant { [3 x ptr] } { [3 x ptr] [ptr null, ptr null, ptr @vf] }, !type !0
define internal i32 @vf(ptr %this) {
  ret i32 1
}
!0 = !{i64 16, !1}
!1 = distinct !{}
)";

struct Written {
  SmallString<0> Bytes;
  std::vector<BitcodeModule> Modules;
};

Written write(StringRef IR, bool AssignID,
              UnifiedLayout Layout = UnifiedLayout::SplitIfTyped) {
  // The writer reads module-level asm symbols through the target's MC layer.
  InitializeAllTargetInfos();
  InitializeAllTargetMCs();
  InitializeAllAsmParsers();
  LLVMContext Ctx;
  SMDiagnostic Err;
  std::unique_ptr<Module> M = parseAssemblyString(IR, Err, Ctx);
  EXPECT_TRUE(M);
  if (AssignID)
    assignSourceFileIdentifier(*M, {"a.cpp", "a.o"});
  Written W;
  raw_svector_ostream OS(W.Bytes);
  writeUnifiedBitcode(*M, OS, nullptr, false, Layout);
  Expected<std::vector<BitcodeModule>> Mods =
      getBitcodeModuleList(MemoryBufferRef(W.Bytes, "a.o"));
  EXPECT_TRUE(bool(Mods));
  if (Mods)
    W.Modules = std::move(*Mods);
  return W;
}

TEST(UnifiedBitcodeWriterTest, InternalOnlyModuleWithIDIsSplit) {
  Written W = write(InternalVTable, /*AssignID=*/true);
  ASSERT_EQ(W.Modules.size(), 2u);
  Expected<BitcodeLTOInfo> Thin = W.Modules[0].getLTOInfo();
  Expected<BitcodeLTOInfo> Regular = W.Modules[1].getLTOInfo();
  ASSERT_TRUE(bool(Thin) && bool(Regular));
  EXPECT_TRUE(Thin->IsThinLTO);
  EXPECT_FALSE(Regular->IsThinLTO);
  for (const BitcodeLTOInfo &I : {*Thin, *Regular}) {
    EXPECT_TRUE(I.UnifiedLTO);
    EXPECT_TRUE(I.EnableSplitLTOUnit);
    EXPECT_TRUE(I.HasSummary);
  }
}

// The upstream gap ulto closes: without an ID the same module is not split.
TEST(UnifiedBitcodeWriterTest, WithoutIDLLVMDoesNotSplit) {
  Written W = write(InternalVTable, /*AssignID=*/false);
  ASSERT_EQ(W.Modules.size(), 1u);
  Expected<BitcodeLTOInfo> Info = W.Modules[0].getLTOInfo();
  ASSERT_TRUE(bool(Info));
  EXPECT_FALSE(Info->IsThinLTO);
  EXPECT_TRUE(Info->UnifiedLTO);
}

// A function with cfi-icall types only: split by LLVM's writer, one ThinLTO
// module with OneThinModule.
constexpr const char *TypedFunction = R"(
target triple = "x86_64-pc-linux-gnu"
define i32 @twice(i32 %x) !type !0 {
  %y = shl i32 %x, 1
  ret i32 %y
}
!0 = !{i64 0, !"_ZTSFiiE"}
)";

TEST(UnifiedBitcodeWriterTest, OneThinModuleLayout) {
  EXPECT_EQ(write(TypedFunction, true).Modules.size(), 2u);
  Written W = write(TypedFunction, true, UnifiedLayout::OneThinModule);
  ASSERT_EQ(W.Modules.size(), 1u);
  Expected<BitcodeLTOInfo> Info = W.Modules[0].getLTOInfo();
  ASSERT_TRUE(bool(Info));
  EXPECT_TRUE(Info->IsThinLTO);
  EXPECT_TRUE(Info->HasSummary);
  EXPECT_TRUE(Info->UnifiedLTO);
  EXPECT_TRUE(Info->EnableSplitLTOUnit);
  LLVMContext Ctx;
  Expected<std::unique_ptr<Module>> M = W.Modules[0].parseModule(Ctx);
  ASSERT_TRUE(bool(M));
  EXPECT_TRUE((*M)->getFunction("twice")->hasMetadata(LLVMContext::MD_type));
}

TEST(UnifiedBitcodeWriterTest, ModuleFlags) {
  LLVMContext Ctx;
  SMDiagnostic Err;
  std::unique_ptr<Module> M =
      parseAssemblyString("!llvm.module.flags = !{!0}\n!0 = !{i32 1, "
                          "!\"EnableSplitLTOUnit\", i32 0}\n",
                          Err, Ctx);
  ASSERT_TRUE(M);
  markUnifiedSplitLTOUnit(*M);
  auto Flag = [&](StringRef Name) {
    return mdconst::extract<ConstantInt>(M->getModuleFlag(Name))
        ->getZExtValue();
  };
  EXPECT_EQ(Flag("UnifiedLTO"), 1u);
  EXPECT_EQ(Flag("EnableSplitLTOUnit"), 1u);
}

} // namespace
