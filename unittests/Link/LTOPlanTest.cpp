//===- LTOPlanTest.cpp - ld.ulto's checks and plan line -------------------===//
//
// parseLTOMode, and checkUnified/checkModuleIDs/describePlan on hand-made
// BitcodeInput lists (exact strings); readBitcodeInputs and readModuleIDs on
// bitcode written by LLVM's own writers.
//
//===----------------------------------------------------------------------===//

#include "ulto/Link/LTOPlan.h"
#include "LinkTestInputs.h"

#include "llvm/Transforms/Utils/ModuleUtils.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

BitcodeInput split(StringRef Name, StringRef ID) {
  BitcodeInput In;
  In.Name = Name.str();
  In.Unified = true;
  In.Split = true;
  In.SplitLTOUnit = true;
  In.ModuleID = ID.str();
  return In;
}

BitcodeInput thinOnly(StringRef Name, bool Unified = true) {
  BitcodeInput In;
  In.Name = Name.str();
  In.Unified = Unified;
  In.ThinOnly = true;
  return In;
}

BitcodeInput regular(StringRef Name, bool Unified = true) {
  BitcodeInput In;
  In.Name = Name.str();
  In.Unified = Unified;
  return In;
}

std::string notUnified(StringRef Name, StringRef Mode) {
  return (Name + ": bitcode is not unified LTO, and --lto=" + Mode +
          " links only unified bitcode; recompile " + Name +
          " with -flto -funified-lto")
      .str();
}

std::string sameID(StringRef A, StringRef B, StringRef ID) {
  return (A + " and " + B + " have the same module ID " + ID +
          ": LTO would merge their internal type IDs and promoted symbols; "
          "link each object once, and compile with ulto-clang "
          "-funified-lto, which gives every object its own ID (clang's "
          "-funique-source-file-names gives one source compiled twice the "
          "same ID)")
      .str();
}

using Strings = std::vector<std::string>;

TEST(LTOPlanTest, ParseLTOMode) {
  EXPECT_EQ(parseLTOMode("default"), LTOMode::Default);
  EXPECT_EQ(parseLTOMode("thin"), LTOMode::Thin);
  EXPECT_EQ(parseLTOMode("full"), LTOMode::Full);
  EXPECT_EQ(parseLTOMode("distributed"), LTOMode::Distributed);
  EXPECT_EQ(parseLTOMode(""), std::nullopt);
  EXPECT_EQ(parseLTOMode("Thin"), std::nullopt);
  EXPECT_EQ(parseLTOMode("regular"), std::nullopt);
  EXPECT_EQ(parseLTOMode("thin "), std::nullopt);
  for (LTOMode M :
       {LTOMode::Default, LTOMode::Thin, LTOMode::Full, LTOMode::Distributed})
    EXPECT_EQ(parseLTOMode(ulto::toString(M)), M);
}

TEST(LTOPlanTest, CheckUnifiedNamesEachNonUnifiedInput) {
  std::vector<BitcodeInput> Inputs = {
      split("a.o", ".1"), thinOnly("legacy-thin.o", /*Unified=*/false),
      thinOnly("b.o"), regular("lib.a(legacy-full.o)", /*Unified=*/false),
      regular("c.o")};
  EXPECT_EQ(checkUnified(Inputs, LTOMode::Thin),
            (Strings{notUnified("legacy-thin.o", "thin"),
                     notUnified("lib.a(legacy-full.o)", "thin")}));
  EXPECT_EQ(checkUnified(Inputs, LTOMode::Full),
            (Strings{notUnified("legacy-thin.o", "full"),
                     notUnified("lib.a(legacy-full.o)", "full")}));
}

TEST(LTOPlanTest, CheckUnifiedDefaultModeAcceptsAnything) {
  EXPECT_EQ(checkUnified({regular("a.o", false), thinOnly("b.o", false)},
                         LTOMode::Default),
            Strings{});
}

TEST(LTOPlanTest, CheckUnifiedAllUnified) {
  EXPECT_EQ(checkUnified({split("a.o", ".1"), thinOnly("b.o"), regular("c.o")},
                         LTOMode::Thin),
            Strings{});
  EXPECT_EQ(checkUnified({}, LTOMode::Full), Strings{});
}

TEST(LTOPlanTest, CheckModuleIDsPairsEachRepeatWithTheFirst) {
  std::vector<BitcodeInput> Inputs = {split("a.o", ".aa"), split("b.o", ".bb"),
                                      split("lib.a(c.o)", ".aa"),
                                      split("d.o", ".aa")};
  EXPECT_EQ(checkModuleIDs(Inputs), (Strings{sameID("a.o", "lib.a(c.o)", ".aa"),
                                             sameID("a.o", "d.o", ".aa")}));
}

std::string unsplitFlag(StringRef Name, StringRef Split) {
  return (Name +
          ": unified bitcode compiled with -fno-split-lto-unit does "
          "not link with unified bitcode compiled without it (" +
          Split + "): LTO needs one EnableSplitLTOUnit value; recompile " +
          Name + " without -fno-split-lto-unit")
      .str();
}

// clang-22 -funified-lto -fno-split-lto-unit among split unified bitcode:
// LTO would stop on the EnableSplitLTOUnit module flag in every mode.
TEST(LTOPlanTest, CheckSplitLTOUnitFlagsNamesEachUnsplitInput) {
  BitcodeInput Unsplit = thinOnly("a.o");
  BitcodeInput UnsplitToo = thinOnly("lib.a(b.o)");
  // Compiled to split, but nothing to split: the flag still says split.
  BitcodeInput Unsplittable = regular("c.o");
  Unsplittable.SplitLTOUnit = true;
  EXPECT_EQ(checkSplitLTOUnitFlags(
                {Unsplit, split("m.o", ".1"), UnsplitToo, Unsplittable}),
            (std::vector<std::string>{unsplitFlag("a.o", "m.o"),
                                      unsplitFlag("lib.a(b.o)", "m.o")}));
  // All alike, or not unified (lld's own rules): nothing to say.
  EXPECT_TRUE(checkSplitLTOUnitFlags({Unsplit, UnsplitToo}).empty());
  EXPECT_TRUE(
      checkSplitLTOUnitFlags({split("m.o", ".1"), Unsplittable}).empty());
  EXPECT_TRUE(checkSplitLTOUnitFlags(
                  {thinOnly("x.o", /*Unified=*/false), split("m.o", ".1")})
                  .empty());
}

TEST(LTOPlanTest, CheckModuleIDsDistinct) {
  EXPECT_EQ(checkModuleIDs({split("a.o", ".aa"), split("b.o", ".bb")}),
            Strings{});
}

// Only split files have their internals renamed after the ID.
TEST(LTOPlanTest, CheckModuleIDsIgnoresUnsplitAndEmpty) {
  BitcodeInput ThinWithID = thinOnly("t.o");
  ThinWithID.ModuleID = ".aa";
  EXPECT_EQ(checkModuleIDs({split("a.o", ".aa"), ThinWithID}), Strings{});
  EXPECT_EQ(checkModuleIDs({split("a.o", ""), split("b.o", "")}), Strings{});
}

TEST(LTOPlanTest, DescribePlanNoBitcode) {
  EXPECT_EQ(describePlan({}, LTOMode::Thin), "ld.ulto: LTO: no bitcode inputs");
  EXPECT_EQ(describePlan({}, LTOMode::Default),
            "ld.ulto: LTO: no bitcode inputs");
}

TEST(LTOPlanTest, DescribePlanThin) {
  EXPECT_EQ(
      describePlan({split("a.o", ".1"), thinOnly("b.o"), thinOnly("c.o")},
                   LTOMode::Thin),
      "ld.ulto: LTO mode thin (--lto=thin): 3 modules thin, 1 module regular "
      "(1 regular half of split modules)");
  EXPECT_EQ(
      describePlan({split("a.o", ".1"), split("b.o", ".2")}, LTOMode::Thin),
      "ld.ulto: LTO mode thin (--lto=thin): 2 modules thin, 2 modules "
      "regular (2 regular halves of split modules)");
  EXPECT_EQ(describePlan({thinOnly("b.o")}, LTOMode::Thin),
            "ld.ulto: LTO mode thin (--lto=thin): 1 module thin, 0 modules "
            "regular");
}

TEST(LTOPlanTest, DescribePlanFull) {
  EXPECT_EQ(describePlan({split("a.o", ".1"), thinOnly("b.o"), regular("c.o")},
                         LTOMode::Full),
            "ld.ulto: LTO mode full (--lto=full): 4 modules, all regular LTO");
  EXPECT_EQ(describePlan({thinOnly("b.o")}, LTOMode::Full),
            "ld.ulto: LTO mode full (--lto=full): 1 module, all regular LTO");
}

// Without --lto=, LLVM goes ThinLTO at the first unified module.
TEST(LTOPlanTest, DescribePlanDefault) {
  EXPECT_EQ(
      describePlan({split("a.o", ".1"), regular("c.o")}, LTOMode::Default),
      "ld.ulto: LTO mode thin (no --lto=): 1 module thin, 2 modules "
      "regular (1 regular half of split modules; 1 not split: c.o)");
}

TEST(LTOPlanTest, DescribePlanDistributed) {
  EXPECT_EQ(describePlan({split("a.o", ".1")}, LTOMode::Distributed),
            "ld.ulto: LTO mode distributed (--lto=distributed): 1 module "
            "thin, 1 module regular (1 regular half of split modules)");
}

TEST(LTOPlanTest, DescribePlanNamesThreeUnsplitModules) {
  EXPECT_EQ(describePlan({regular("a.o"), regular("b.o"), regular("c.o")},
                         LTOMode::Thin),
            "ld.ulto: LTO mode thin (--lto=thin): 0 modules thin, 3 modules "
            "regular (3 not split: a.o, b.o, c.o)");
  EXPECT_EQ(describePlan({regular("a.o"), thinOnly("t.o"), regular("b.o"),
                          regular("lib.a(c.o)"), regular("d.o")},
                         LTOMode::Thin),
            "ld.ulto: LTO mode thin (--lto=thin): 1 module thin, 4 modules "
            "regular (4 not split: a.o, b.o, lib.a(c.o), ...)");
}

class ReadBitcodeInputsTest : public LinkTest {
protected:
  // Bitcode buffers named Name; the strings must outlive the result.
  std::vector<BitcodeInput>
  read(const std::vector<std::pair<std::string, const std::string *>> &Files) {
    std::vector<LoadedFile> Loaded;
    for (const auto &[Name, Data] : Files)
      Loaded.push_back({Name, MemoryBufferRef(*Data, Name), true});
    Expected<std::vector<BitcodeInput>> Inputs = readBitcodeInputs(Loaded);
    if (!Inputs) {
      ADD_FAILURE() << toString(Inputs.takeError());
      return {};
    }
    for (const BitcodeInput &In : *Inputs)
      EXPECT_EQ(In.ModuleID, "") << "read apart, by readModuleIDs";
    if (Error E = readModuleIDs(*Inputs, hardware_concurrency(2)))
      ADD_FAILURE() << toString(std::move(E));
    return std::move(*Inputs);
  }
};

TEST_F(ReadBitcodeInputsTest, Kinds) {
  std::string Split = thinBitcode(std::string(VTableIR) + UnifiedFlags);
  std::string Thin = thinBitcode(functionsIR({"f"}) + UnifiedFlags);
  std::string LegacyThin = thinBitcode(functionsIR({"f"}));
  std::string UnifiedRegular =
      thinBitcode(std::string(InternalOnlyIR) + UnifiedFlags);
  std::string NoSummary = regularBitcode(std::string(VTableIR) + UnifiedFlags);
  std::vector<BitcodeInput> Inputs =
      read({{"split.o", &Split},
            {"thin.o", &Thin},
            {"legacy-thin.o", &LegacyThin},
            {"unified-regular.o", &UnifiedRegular},
            {"no-summary.o", &NoSummary}});
  ASSERT_EQ(Inputs.size(), 5u);

  EXPECT_EQ(Inputs[0].Name, "split.o");
  EXPECT_TRUE(Inputs[0].Unified);
  EXPECT_TRUE(Inputs[0].Split);
  EXPECT_FALSE(Inputs[0].ThinOnly);
  EXPECT_EQ(Inputs[0].ModuleID.size(), 33u);
  EXPECT_EQ(Inputs[0].ModuleID[0], '.');

  EXPECT_TRUE(Inputs[0].SplitLTOUnit);

  EXPECT_EQ(Inputs[1].Name, "thin.o");
  EXPECT_TRUE(Inputs[1].Unified);
  EXPECT_TRUE(Inputs[1].SplitLTOUnit);
  EXPECT_FALSE(Inputs[1].Split);
  EXPECT_TRUE(Inputs[1].ThinOnly);
  EXPECT_EQ(Inputs[1].ModuleID, "");

  EXPECT_FALSE(Inputs[2].Unified);
  EXPECT_TRUE(Inputs[2].ThinOnly);
  EXPECT_FALSE(Inputs[2].SplitLTOUnit);

  // clang-22 -funified-lto on a file of internal definitions.
  EXPECT_TRUE(Inputs[3].Unified);
  EXPECT_FALSE(Inputs[3].Split);
  EXPECT_FALSE(Inputs[3].ThinOnly);

  // The linker reads the unified flag from the summary, and there is none.
  EXPECT_FALSE(Inputs[4].Unified);
  EXPECT_FALSE(Inputs[4].Split);
  EXPECT_FALSE(Inputs[4].ThinOnly);
}

TEST_F(ReadBitcodeInputsTest, NativeFilesAreSkipped) {
  std::string Thin = thinBitcode(functionsIR({"f"}) + UnifiedFlags);
  std::string Native = "\x7f"
                       "ELF";
  std::vector<LoadedFile> Loaded = {
      {"native.o", MemoryBufferRef(Native, "native.o"), false},
      {"thin.o", MemoryBufferRef(Thin, "thin.o"), true}};
  Expected<std::vector<BitcodeInput>> Inputs = readBitcodeInputs(Loaded);
  ASSERT_TRUE(bool(Inputs)) << toString(Inputs.takeError());
  ASSERT_EQ(Inputs->size(), 1u);
  EXPECT_EQ((*Inputs)[0].Name, "thin.o");
}

TEST_F(ReadBitcodeInputsTest, CorruptBitcodeNamesTheFile) {
  std::string Thin = thinBitcode(functionsIR({"f"}) + UnifiedFlags);
  std::string Bad = Thin.substr(0, 64);
  std::vector<LoadedFile> Loaded = {
      {"lib.a(bad.o)", MemoryBufferRef(Bad, "bad.o"), true}};
  Expected<std::vector<BitcodeInput>> Inputs = readBitcodeInputs(Loaded);
  ASSERT_FALSE(bool(Inputs));
  std::string Message = toString(Inputs.takeError());
  EXPECT_TRUE(StringRef(Message).starts_with("lib.a(bad.o): ")) << Message;
}

// Files are read in parallel; the error named is the first file's, in the
// order of the link, whichever thread finds it first.
TEST_F(ReadBitcodeInputsTest, FirstCorruptFileInLinkOrderIsNamed) {
  std::string Thin = thinBitcode(functionsIR({"f"}) + UnifiedFlags);
  std::string Bad = Thin.substr(0, 64);
  std::vector<LoadedFile> Loaded;
  std::vector<std::string> Names;
  for (int I = 0; I != 64; ++I)
    Names.push_back("f" + std::to_string(I) + ".o");
  for (int I = 0; I != 64; ++I)
    Loaded.push_back(
        {Names[I], MemoryBufferRef(I < 40 ? Thin : Bad, Names[I]), true});
  Expected<std::vector<BitcodeInput>> Inputs = readBitcodeInputs(Loaded);
  ASSERT_FALSE(bool(Inputs));
  std::string Message = toString(Inputs.takeError());
  EXPECT_TRUE(StringRef(Message).starts_with("f40.o: ")) << Message;

  Loaded.resize(40);
  Inputs = readBitcodeInputs(Loaded);
  ASSERT_TRUE(bool(Inputs)) << toString(Inputs.takeError());
  ASSERT_EQ(Inputs->size(), 40u);
  EXPECT_EQ((*Inputs)[39].Name, "f39.o");
}

// Read on threads of their own; the error named is the first split input's
// in link order, and inputs that are not split are not read.
TEST_F(ReadBitcodeInputsTest, ModuleIDErrorsNameTheFirstSplitInput) {
  std::string Split = thinBitcode(std::string(VTableIR) + UnifiedFlags);
  std::string Bad = Split.substr(0, 64);
  std::vector<BitcodeInput> Inputs(4);
  const char *Names[] = {"good.o", "unsplit.o", "bad1.o", "bad2.o"};
  for (int I = 0; I != 4; ++I) {
    Inputs[I].Name = Names[I];
    Inputs[I].Split = I != 1;
    Inputs[I].Buffer = MemoryBufferRef(I == 0 ? Split : Bad, Names[I]);
  }
  Error E = readModuleIDs(Inputs, hardware_concurrency(2));
  ASSERT_TRUE(bool(E));
  std::string Message = toString(std::move(E));
  EXPECT_TRUE(StringRef(Message).starts_with("bad1.o: ")) << Message;
  EXPECT_EQ(Inputs[0].ModuleID.size(), 33u);

  Inputs.resize(2);
  EXPECT_FALSE(bool(readModuleIDs(Inputs, hardware_concurrency(2))));
  EXPECT_EQ(Inputs[1].ModuleID, "");
}

// One object linked twice under two names.
TEST_F(ReadBitcodeInputsTest, CopiesOfOneSplitFileCollide) {
  std::string Split = thinBitcode(std::string(VTableIR) + UnifiedFlags);
  std::vector<BitcodeInput> Inputs =
      read({{"a.o", &Split}, {"copy.o", &Split}});
  ASSERT_EQ(Inputs.size(), 2u);
  EXPECT_EQ(checkModuleIDs(Inputs),
            Strings{sameID("a.o", "copy.o", Inputs[0].ModuleID)});
}

TEST_F(ReadBitcodeInputsTest, DifferentSplitFilesDoNotCollide) {
  std::string IR = std::string(VTableIR) + UnifiedFlags;
  std::string A = thinBitcode(IR + "define i32 @a() {\n  ret i32 0\n}\n");
  std::string B = thinBitcode(IR + "define i32 @b() {\n  ret i32 0\n}\n");
  std::vector<BitcodeInput> Inputs = read({{"a.o", &A}, {"b.o", &B}});
  ASSERT_EQ(Inputs.size(), 2u);
  EXPECT_TRUE(Inputs[0].Split && Inputs[1].Split);
  EXPECT_NE(Inputs[0].ModuleID, Inputs[1].ModuleID);
  EXPECT_EQ(checkModuleIDs(Inputs), Strings{});
}

// Same content, different identifiers (ulto-clang: same source, different
// -o): different IDs, no collision.
TEST_F(ReadBitcodeInputsTest, DifferentIdentifiersDoNotCollide) {
  std::string A = thinBitcode(std::string(VTableIR) + uniqueSourceFlags("a"));
  std::string B = thinBitcode(std::string(VTableIR) + uniqueSourceFlags("b"));
  EXPECT_EQ(checkModuleIDs(read({{"a.o", &A}, {"b.o", &B}})), Strings{});
}

// The ID read back is the one the split renamed locals and type IDs after:
// getUniqueModuleId() of the module before it was written, with or without
// the identifier flag (splitModuleID() has the cases).
TEST_F(ReadBitcodeInputsTest, ModuleIDIsTheOneTheSplitUsed) {
  for (std::string IR : {std::string(VTableIR) + uniqueSourceFlags("x.cpp"),
                         std::string(VTableIR) + UnifiedFlags,
                         std::string(LocalVTableIR) + UnifiedFlags}) {
    std::unique_ptr<Module> M = parse(IR);
    ASSERT_TRUE(M);
    std::string Expected = getUniqueModuleId(M.get());
    std::string Split = thinBitcode(IR);
    std::vector<BitcodeInput> Inputs = read({{"a.o", &Split}});
    ASSERT_EQ(Inputs.size(), 1u);
    EXPECT_TRUE(Inputs[0].Split);
    EXPECT_EQ(Inputs[0].ModuleID, Expected) << IR;
  }
}

// clang's -funique-source-file-names: one source compiled twice (different
// external definitions, as with two -D variants) gets one ID.
TEST_F(ReadBitcodeInputsTest, SameSourceIdentifierCollides) {
  std::string IR = std::string(VTableIR) + uniqueSourceFlags("pet.cpp");
  std::string Cat =
      thinBitcode(IR + "define i32 @speak_cat() {\n  ret i32 0\n}\n");
  std::string Dog =
      thinBitcode(IR + "define i32 @speak_dog() {\n  ret i32 0\n}\n");
  std::vector<BitcodeInput> Inputs = read({{"cat.o", &Cat}, {"dog.o", &Dog}});
  ASSERT_EQ(Inputs.size(), 2u);
  EXPECT_EQ(checkModuleIDs(Inputs),
            Strings{sameID("cat.o", "dog.o", Inputs[0].ModuleID)});
}

// -r links generate each module with its own relocation model in-process;
// the distributed jobs get one, so ld.ulto reads them (PIC Level flag).
TEST_F(ReadBitcodeInputsTest, ModulesPIC) {
  auto Compiled = [&](StringRef PICFlags) {
    return thinBitcode(functionsIR({"f"}) + PICFlags.str() + UnifiedFlags);
  };
  std::string PIE = Compiled("!llvm.module.flags = !{!1, !2}\n"
                             "!1 = !{i32 8, !\"PIC Level\", i32 2}\n"
                             "!2 = !{i32 7, !\"PIE Level\", i32 2}\n");
  std::string PIC = Compiled("!llvm.module.flags = !{!1}\n"
                             "!1 = !{i32 8, !\"PIC Level\", i32 1}\n");
  std::string Static = Compiled("");
  std::string Split = thinBitcode(std::string(VTableIR) + UnifiedFlags);
  std::string Regular = regularBitcode(functionsIR({"g"}));
  std::string Bad = Static.substr(0, 64);
  auto Read =
      [](std::vector<std::pair<std::string, const std::string *>> Files) {
        std::vector<LoadedFile> Loaded;
        for (const auto &[Name, Data] : Files)
          Loaded.push_back({Name, MemoryBufferRef(*Data, Name), true});
        return readModulesPIC(Loaded);
      };
  EXPECT_EQ(Read({{"pie.o", &PIE}, {"pic.o", &PIC}}), ModulesPIC::All);
  // A file without a ThinLTO module has no job: it does not count.
  EXPECT_EQ(Read({{"static.o", &Static}, {"regular.o", &Regular}}),
            ModulesPIC::None);
  EXPECT_EQ(Read({{"static.o", &Static}, {"split.o", &Split}}),
            ModulesPIC::None);
  EXPECT_EQ(Read({{"pie.o", &PIE}, {"static.o", &Static}}), ModulesPIC::Mixed);
  EXPECT_EQ(Read({{"pie.o", &PIE}, {"bad.o", &Bad}}), ModulesPIC::Unknown);
}

} // namespace
