//===- IndirectCallTypesTest.cpp ------------------------------------------===//

#include "ulto/Frontend/IndirectCallTypes.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Mangle.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"
#include "gtest/gtest.h"

using namespace clang;
using namespace llvm;
using namespace ulto;

namespace {

constexpr const char *Source = R"(
int f(int) noexcept;
const char *g(const char *, char **);
namespace ns { double over(double); }
extern "C" void c_fn(void (*)(int));
struct A { static int s(int); int m(int); };
namespace { struct Hidden {}; }
int hid(Hidden *);
)";

class IndirectCallTypesTest : public ::testing::Test {
protected:
  void SetUp() override {
    AST = tooling::buildASTFromCodeWithArgs(
        Source, {"-std=c++17", "-target", "x86_64-pc-linux-gnu"}, "a.cpp");
    ASSERT_TRUE(AST);
    Mangler.reset(AST->getASTContext().createMangleContext());
  }

  // The type identifiers of the function (or member function) named Name.
  std::optional<std::array<std::string, 2>> ids(StringRef Name) {
    std::optional<std::array<std::string, 2>> Result;
    bool Found = false;
    std::function<void(const DeclContext *)> Visit =
        [&](const DeclContext *DC) {
          for (const Decl *D : DC->decls()) {
            if (const auto *FD = dyn_cast<FunctionDecl>(D);
                FD && FD->getName() == Name) {
              Found = true;
              Result = indirectCallTypeIDs(*FD, *Mangler);
            }
            if (const auto *Inner = dyn_cast<DeclContext>(D))
              Visit(Inner);
          }
        };
    Visit(AST->getASTContext().getTranslationUnitDecl());
    EXPECT_TRUE(Found) << Name.str();
    return Result;
  }

  std::unique_ptr<ASTUnit> AST;
  std::unique_ptr<MangleContext> Mangler;
};

using IDs = std::array<std::string, 2>;

TEST_F(IndirectCallTypesTest, ClangsIdentifiers) {
  // The exception specification is not part of the identifier.
  EXPECT_EQ(ids("f"), (IDs{"_ZTSFiiE", "_ZTSFiiE.generalized"}));
  // Generalized: pointers become void pointers with the pointee's qualifiers.
  EXPECT_EQ(ids("g"), (IDs{"_ZTSFPKcS0_PPcE", "_ZTSFPKvS0_PvE.generalized"}));
  EXPECT_EQ(ids("over"), (IDs{"_ZTSFddE", "_ZTSFddE.generalized"}));
  EXPECT_EQ(ids("c_fn"), (IDs{"_ZTSFvPFviEE", "_ZTSFvPvE.generalized"}));
  EXPECT_EQ(ids("s"), (IDs{"_ZTSFiiE", "_ZTSFiiE.generalized"}));
}

TEST_F(IndirectCallTypesTest, NoneWhereClangGivesNone) {
  // Checked through vtables and member function pointers instead.
  EXPECT_EQ(ids("m"), std::nullopt);
  // A type local to the translation unit.
  EXPECT_EQ(ids("hid"), std::nullopt);
}

std::unique_ptr<llvm::Module> parse(LLVMContext &Ctx, StringRef IR) {
  SMDiagnostic Err;
  std::unique_ptr<llvm::Module> M = parseAssemblyString(IR, Err, Ctx);
  EXPECT_TRUE(M);
  return M;
}

TEST(HasOnlyIndirectCallTypesTest, OnlyTypedFunctions) {
  LLVMContext Ctx;
  std::unique_ptr<llvm::Module> M = parse(Ctx, R"(
define void @f() !type !0 { ret void }
define void @g() { ret void }
!0 = !{i64 0, !"_ZTSFvvE"}
)");
  TypedFunctions Typed;
  EXPECT_FALSE(hasOnlyIndirectCallTypes(*M, Typed));
  Typed.insert("f");
  EXPECT_TRUE(hasOnlyIndirectCallTypes(*M, Typed));
  // Nothing typed at all: LLVM's writer decides, as without the pass.
  M->getFunction("f")->eraseMetadata(LLVMContext::MD_type);
  EXPECT_FALSE(hasOnlyIndirectCallTypes(*M, Typed));
}

TEST(HasOnlyIndirectCallTypesTest, OtherTypeMetadataSplits) {
  LLVMContext Ctx;
  std::unique_ptr<llvm::Module> M = parse(Ctx, R"(
@vt = constant [1 x ptr] [ptr @f], !type !1
define void @f() !type !0 { ret void }
define void @m() !type !2 { ret void }
!0 = !{i64 0, !"_ZTSFvvE"}
!1 = !{i64 0, !"_ZTS1A"}
!2 = !{i64 0, !"_ZTSM1AFvvE"}
)");
  TypedFunctions Typed;
  Typed.insert("f");
  EXPECT_FALSE(hasOnlyIndirectCallTypes(*M, Typed));
  M->getGlobalVariable("vt")->eraseMetadata(LLVMContext::MD_type);
  // clang's member function pointer types on @m.
  EXPECT_FALSE(hasOnlyIndirectCallTypes(*M, Typed));
}

} // namespace
