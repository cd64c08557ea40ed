//===- PreLinkPipelineTest.cpp - recordPreLinkPipeline() ------------------===//
//
// The flag must survive what happens to modules: a second pre-link of IR
// input, LTO's module flag merging (IRMover, as a full link does) and the
// verifier's rules for AppendUnique flags.
//
//===----------------------------------------------------------------------===//

#include "ulto/UnifiedLTO/PreLinkPipeline.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;

namespace {

class PreLinkPipelineTest : public testing::Test {
protected:
  std::unique_ptr<Module> parse(StringRef IR) {
    SMDiagnostic Diag;
    std::unique_ptr<Module> M = parseAssemblyString(IR, Diag, Ctx);
    EXPECT_TRUE(M) << Diag.getMessage().str();
    return M;
  }

  std::unique_ptr<Module> module(StringRef Name, StringRef Pipeline) {
    auto M = std::make_unique<Module>(Name, Ctx);
    recordPreLinkPipeline(*M, Pipeline);
    EXPECT_FALSE(verifyModule(*M, &errs()));
    return M;
  }

  LLVMContext Ctx;
};

TEST_F(PreLinkPipelineTest, UnrecordedModulesNameNone) {
  Module M("m", Ctx);
  EXPECT_EQ(preLinkPipelines(M), "");
}

TEST_F(PreLinkPipelineTest, RecordsOneName) {
  EXPECT_EQ(preLinkPipelines(*module("m", "full")), "full");
  EXPECT_EQ(preLinkPipelines(*module("m", "thin")), "thin");
}

TEST_F(PreLinkPipelineTest, ASecondPreLinkKeepsTheFirstName) {
  std::unique_ptr<Module> M = module("m", "thin");
  recordPreLinkPipeline(*M, "full");
  recordPreLinkPipeline(*M, "full");
  EXPECT_FALSE(verifyModule(*M, &errs())); // still one flag of its name
  EXPECT_EQ(preLinkPipelines(*M), "full,thin");
}

TEST_F(PreLinkPipelineTest, LinkingModulesOfBothKindsNamesBoth) {
  std::unique_ptr<Module> Dest = module("dest", "full");
  Linker L(*Dest);
  ASSERT_FALSE(L.linkInModule(module("a", "thin")));
  ASSERT_FALSE(L.linkInModule(module("b", "full")));
  EXPECT_FALSE(verifyModule(*Dest, &errs()));
  EXPECT_EQ(preLinkPipelines(*Dest), "full,thin");
}

TEST_F(PreLinkPipelineTest, LinkingWithAnUnrecordedModuleKeepsTheName) {
  std::unique_ptr<Module> Dest = std::make_unique<Module>("dest", Ctx);
  Linker L(*Dest);
  ASSERT_FALSE(L.linkInModule(module("a", "full")));
  EXPECT_EQ(preLinkPipelines(*Dest), "full");
}

// Someone else's flag of that name is not ulto's record: no names, no crash.
TEST_F(PreLinkPipelineTest, AMalformedFlagNamesNone) {
  std::unique_ptr<Module> M = parse(R"(
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"ulto.pre-link-pipeline", i32 3}
)");
  ASSERT_TRUE(M);
  EXPECT_EQ(preLinkPipelines(*M), "");
}

} // namespace
