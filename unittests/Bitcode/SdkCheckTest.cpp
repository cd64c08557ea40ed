//===- SdkCheckTest.cpp - What makes an SDK universal ---------------------===//
//
// checkSdk on hand-made module lists: exact findings for each rule.
//
//===----------------------------------------------------------------------===//

#include "ulto/Bitcode/SdkCheck.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;

namespace {

LTOModuleInfo module(StringRef Member, StringRef ID,
                     LTOKind Kind = LTOKind::Thin) {
  LTOModuleInfo M;
  M.Member = Member.str();
  M.Kind = Kind;
  M.Unified = M.Split = Kind != LTOKind::Native;
  M.ModuleID = ID.str();
  M.Triple = "x86_64-pc-linux-gnu";
  M.DataLayout = Kind == LTOKind::Native ? "" : "e-m:e";
  return M;
}

// A file read without error.
LTOFileInfo file(StringRef Path, std::vector<LTOModuleInfo> Modules) {
  LTOFileInfo File;
  File.Path = Path.str();
  File.Modules = std::move(Modules);
  return File;
}

std::vector<std::string> messages(ArrayRef<SdkFinding> Findings) {
  std::vector<std::string> Result;
  for (const SdkFinding &F : Findings)
    Result.push_back((F.Where.empty() ? "" : F.Where + ": ") + F.Message);
  return Result;
}

TEST(SdkCheckTest, SplitUnitIsOneMember) {
  LTOModuleInfo Thin = module("a.o", ".1"),
                Regular = module("a.o", ".1", LTOKind::Regular);
  Thin.DefinesVTables = false;
  Regular.DefinesVTables = Regular.HasTypeMetadata = true;
  SdkReport R = checkSdk({file("lib.a", {Thin, Regular, module("b.o", ".2")})},
                         /*AllowNative=*/false);
  EXPECT_TRUE(R.universal()) << messages(R.Errors).front();
  ASSERT_EQ(R.Members.size(), 2u);
  EXPECT_EQ(R.Members[0].Name, "lib.a(a.o)");
  EXPECT_TRUE(R.Members[0].DefinesVTables && R.Members[0].HasTypeMetadata);
  EXPECT_TRUE(R.Members[0].Split);
}

TEST(SdkCheckTest, EachRule) {
  LTOModuleInfo NotUnified = module("old.o", ".3");
  NotUnified.Unified = NotUnified.Split = false;
  LTOModuleInfo NoID = module("noid.o", "");
  LTOModuleInfo Dup = module("dup.o", ".1");
  LTOModuleInfo Untyped = module("untyped.o", ".4");
  Untyped.DefinesVTables = true;
  LTOModuleInfo Cfi = module("cfi.o", ".5");
  Cfi.HasCFIChecks = true;
  LTOModuleInfo NoSplit = module("nosplit.o", ".6");
  NoSplit.Split = false;
  LTOModuleInfo Arm = module("arm.o", ".7");
  Arm.Triple = "aarch64-unknown-linux-gnu";
  SdkReport R = checkSdk(
      {file("lib.a", {module("a.o", ".1"), NotUnified, NoID, Dup, Untyped, Cfi,
                      NoSplit, Arm, module("n.o", "", LTOKind::Native)}),
       file("empty.a", {})},
      /*AllowNative=*/false);
  std::vector<std::string> Errors = messages(R.Errors);
  ASSERT_EQ(Errors.size(), 8u);
  EXPECT_EQ(Errors[0], "empty.a: has no members");
  EXPECT_EQ(Errors[1].rfind("lib.a(old.o): bitcode is not unified LTO", 0), 0u);
  EXPECT_EQ(Errors[2].rfind("lib.a(noid.o): no module ID", 0), 0u);
  EXPECT_EQ(Errors[3].rfind("lib.a(dup.o): has the same module ID (.1) as "
                            "lib.a(a.o)",
                            0),
            0u);
  EXPECT_EQ(Errors[4].rfind("lib.a(untyped.o): defines vtables but carries "
                            "no type metadata",
                            0),
            0u);
  EXPECT_EQ(Errors[5].rfind("lib.a(n.o): native object", 0), 0u);
  EXPECT_EQ(Errors[6].rfind("split-LTO-unit flags differ or are off: not "
                            "split: lib.a(nosplit.o); split: lib.a(a.o), "
                            "lib.a(noid.o), lib.a(dup.o) and 3 more",
                            0),
            0u);
  EXPECT_EQ(Errors[7], "target triples differ: 'x86_64-pc-linux-gnu' in "
                       "lib.a(a.o), lib.a(old.o), lib.a(noid.o) and 4 more; "
                       "'aarch64-unknown-linux-gnu' in lib.a(arm.o)");
  EXPECT_EQ(messages(R.Warnings),
            std::vector<std::string>{
                "lib.a(cfi.o): compiled with -fsanitize=cfi: its CFI checks "
                "run in every consumer's program, CFI consumer or not"});
}

TEST(SdkCheckTest, FatMembersNativeCodeMustDefineWhatTheBitcodeDoes) {
  LTOModuleInfo Complete = module("a.o", ".1"), Lacking = module("b.o", ".2");
  Complete.Fat = Lacking.Fat = true;
  Lacking.MissingFromNativeCode = {"_ZTV3Dog", "_ZTI3Dog"};
  SdkReport R = checkSdk({file("lib.a", {Complete})}, /*AllowNative=*/false);
  EXPECT_TRUE(R.universal());
  EXPECT_TRUE(R.Members[0].Fat);
  R = checkSdk({file("lib.a", {Complete, Lacking})}, /*AllowNative=*/false);
  EXPECT_EQ(messages(R.Errors),
            std::vector<std::string>{
                "lib.a(b.o): fat object whose native code lacks definitions "
                "its bitcode has: _ZTV3Dog, _ZTI3Dog: links without LTO fail "
                "on them (compile it with ulto-clang -funified-lto "
                "-ffat-lto-objects)"});
}

TEST(SdkCheckTest, NativeAllowedOnRequest) {
  SdkReport R = checkSdk({file("lib.a", {module("a.o", ".1"),
                                         module("n.o", "", LTOKind::Native)})},
                         /*AllowNative=*/true);
  EXPECT_TRUE(R.universal());
  EXPECT_TRUE(R.Members[1].Native);
}

} // namespace
