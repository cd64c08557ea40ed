//===- SourceFileIdentifierTest.cpp ---------------------------------------===//

#include "ulto/UnifiedLTO/SourceFileIdentifier.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;

namespace {

std::unique_ptr<Module> parse(LLVMContext &Ctx, StringRef IR) {
  SMDiagnostic Err;
  std::unique_ptr<Module> M = parseAssemblyString(IR, Err, Ctx);
  if (!M)
    Err.print("SourceFileIdentifierTest", errs());
  return M;
}

// Internal definitions only: LLVM itself finds no ID for such a module.
constexpr const char *InternalOnly = R"(
@counter = internal global i32 7
define internal i32 @f(i32 %x) {
  %y = add i32 %x, 1
  ret i32 %y
}
)";

TEST(SourceFileIdentifierTest, InternalOnlyModuleGetsAnID) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parse(Ctx, InternalOnly);
  ASSERT_TRUE(M);
  EXPECT_EQ(getUniqueModuleId(M.get()), "");
  EXPECT_TRUE(assignSourceFileIdentifier(*M, {"a.cpp", "a.o"}));
  EXPECT_NE(getUniqueModuleId(M.get()), "");
}

TEST(SourceFileIdentifierTest, ExistingFlagIsKept) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parse(Ctx, InternalOnly);
  ASSERT_TRUE(assignSourceFileIdentifier(*M, {"a.cpp", "a.o"}));
  std::string ID = getUniqueModuleId(M.get());
  EXPECT_FALSE(assignSourceFileIdentifier(*M, {"b.cpp", "b.o"}));
  EXPECT_EQ(getUniqueModuleId(M.get()), ID);
}

TEST(SourceFileIdentifierTest, DeterministicAcrossContexts) {
  LLVMContext Ctx1, Ctx2;
  std::unique_ptr<Module> M1 = parse(Ctx1, InternalOnly);
  std::unique_ptr<Module> M2 = parse(Ctx2, InternalOnly);
  EXPECT_EQ(makeSourceFileIdentifier({"a.cpp", "a.o"}, *M1),
            makeSourceFileIdentifier({"a.cpp", "a.o"}, *M2));
}

TEST(SourceFileIdentifierTest, PathsTellIdenticalModulesApart) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parse(Ctx, InternalOnly);
  std::string ID = makeSourceFileIdentifier({"a.cpp", "a.o"}, *M);
  EXPECT_NE(ID, makeSourceFileIdentifier({"a.cpp", "b.o"}, *M));
  EXPECT_NE(ID, makeSourceFileIdentifier({"b.cpp", "a.o"}, *M));
  // Field boundaries matter: "a|b" + "c" is not "a" + "b|c".
  EXPECT_NE(makeSourceFileIdentifier({"x", "yz"}, *M),
            makeSourceFileIdentifier({"xy", "z"}, *M));
}

// What -DVALUE=1 versus -DVALUE=2 does to a translation unit.
TEST(SourceFileIdentifierTest, ContentTellsSamePathsApart) {
  LLVMContext Ctx;
  auto WithConstant = [&](StringRef C) {
    return parse(Ctx, (Twine("define internal i32 @f() {\n  ret i32 ") + C +
                       "\n}\n@g = internal global i32 " + C + "\n")
                          .str());
  };
  std::string One = fingerprintModule(*WithConstant("1"));
  std::string Two = fingerprintModule(*WithConstant("2"));
  EXPECT_NE(One, Two);
  EXPECT_EQ(One, fingerprintModule(*WithConstant("1")));
}

TEST(SourceFileIdentifierTest, NamesAndInitializersCount) {
  LLVMContext Ctx;
  std::string Base =
      fingerprintModule(*parse(Ctx, "@a = global [2 x i8] c\"xy\""));
  EXPECT_NE(Base,
            fingerprintModule(*parse(Ctx, "@b = global [2 x i8] c\"xy\"")));
  EXPECT_NE(Base,
            fingerprintModule(*parse(Ctx, "@a = global [2 x i8] c\"xz\"")));
  EXPECT_NE(Base, fingerprintModule(
                      *parse(Ctx, "@a = internal global [2 x i8] c\"xy\"")));
}

TEST(SourceFileIdentifierTest, DebugInfoDoesNotCount) {
  LLVMContext Ctx;
  std::unique_ptr<Module> Plain = parse(Ctx, InternalOnly);
  std::unique_ptr<Module> WithMD =
      parse(Ctx, std::string(InternalOnly) +
                     "!llvm.ident = !{!0}\n!0 = !{!\"/some/build/dir\"}\n");
  EXPECT_EQ(fingerprintModule(*Plain), fingerprintModule(*WithMD));
}

} // namespace
