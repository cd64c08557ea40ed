//===- IndexShardTest.cpp - Shards renamed structurally -------------------===//
//
// renameShardModules on shards written by LLVM's bitcode writer: every
// module and summary renamed, hashes and import-as-declaration marks kept,
// CFI function lists and type IDs kept whole, the same content the same
// bytes.
//
//===----------------------------------------------------------------------===//

#include "ulto/Distributor/IndexShard.h"

#include "Common/ErrorText.h"
#include "Common/TestJobs.h"
#include "llvm/IR/ModuleSummaryIndex.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

TEST(IndexShardTest, RenamesEveryModuleAndKeepsWhatTheBackendReads) {
  std::string Original = shard("/abs/lib (1).a(m.o at 8).o", "../b.o", 100,
                               /*ImportHash=*/7, /*Declaration=*/true);
  Expected<std::string> Renamed = renameShardModules(
      MemoryBufferRef(Original, "shard"),
      [](StringRef Path) -> Expected<std::string> {
        return Path == "../b.o" ? "m/0000-b.o" : "m/0001-m.o";
      });
  ASSERT_EQ(errorText(Renamed), "");
  std::unique_ptr<ModuleSummaryIndex> Index = readShard(*Renamed);
  ASSERT_TRUE(Index);

  std::vector<std::string> Paths;
  for (const auto &Entry : Index->modulePaths())
    Paths.push_back(Entry.getKey().str());
  llvm::sort(Paths);
  EXPECT_EQ(Paths, (std::vector<std::string>{"m/0000-b.o", "m/0001-m.o"}));
  EXPECT_EQ(Index->getModuleHash("m/0000-b.o")[0], 7u);

  ValueInfo Own = Index->getValueInfo(100), Imported = Index->getValueInfo(101);
  ASSERT_TRUE(Own && Imported);
  EXPECT_EQ(Own.getSummaryList()[0]->modulePath(), "m/0001-m.o");
  EXPECT_EQ(Imported.getSummaryList()[0]->modulePath(), "m/0000-b.o");
  EXPECT_EQ(Imported.getSummaryList()[0]->importType(),
            GlobalValueSummary::Declaration);
  EXPECT_EQ(Own.getSummaryList()[0]->importType(),
            GlobalValueSummary::Definition);
}

Expected<std::string> prefixModules(StringRef Shard) {
  return renameShardModules(MemoryBufferRef(Shard, "shard"),
                            [](StringRef Path) -> Expected<std::string> {
                              return ("m/" + Path).str();
                            });
}

std::vector<std::string> sorted(std::vector<StringRef> Names) {
  llvm::sort(Names);
  return std::vector<std::string>(Names.begin(), Names.end());
}

TEST(IndexShardTest, KeepsTheCfiNamesOfFunctionsItOnlyReferences) {
  std::string Original = shardWithCfi("main.o", "lib.o", /*F2IsDef=*/false);
  std::unique_ptr<ModuleSummaryIndex> Before = readShard(Original);
  ASSERT_TRUE(Before);
  // The premise: f1 and f2 are named, their summaries are not in the shard
  // (LLVM's writer, asked to write this index again, would drop the names).
  EXPECT_EQ(sorted(Before->cfiFunctionDecls().symbols()),
            (std::vector<std::string>{"f1", "f2"}));
  EXPECT_FALSE(
      Before->getValueInfo(GlobalValue::getGUIDAssumingExternalLinkage("f1")));

  Expected<std::string> Renamed = prefixModules(Original);
  ASSERT_EQ(errorText(Renamed), "");
  std::unique_ptr<ModuleSummaryIndex> After = readShard(*Renamed);
  ASSERT_TRUE(After);
  EXPECT_EQ(sorted(After->cfiFunctionDecls().symbols()),
            (std::vector<std::string>{"f1", "f2"}));
  EXPECT_TRUE(After->cfiFunctionDefs().symbols().empty());
  EXPECT_TRUE(After->modulePaths().count("m/main.o"));
  EXPECT_TRUE(After->getValueInfo(
      GlobalValue::getGUIDAssumingExternalLinkage("table")));

  // The lists are content: another list, other bytes.
  Expected<std::string> Other =
      prefixModules(shardWithCfi("main.o", "lib.o", /*F2IsDef=*/true));
  ASSERT_EQ(errorText(Other), "");
  EXPECT_TRUE(*Renamed != *Other);
  std::unique_ptr<ModuleSummaryIndex> OtherIndex = readShard(*Other);
  ASSERT_TRUE(OtherIndex);
  EXPECT_EQ(sorted(OtherIndex->cfiFunctionDefs().symbols()),
            (std::vector<std::string>{"f2"}));
}

// A type ID that lld wrote for an alias the shard imports, whose aliasee's
// type test is in no summary of the shard: LLVM's writer, asked to write the
// index again, drops it, and the backend would take the test as false.
TEST(IndexShardTest, KeepsTypeIdsThatNoSummaryTests) {
  ModuleSummaryIndex Index(/*HaveGVs=*/false);
  Index.addModule("main.o", ModuleHash{{1, 1, 1, 1, 1}});
  TypeIdSummary &Icall = Index.getOrInsertTypeIdSummary("_ZTSFRSoS_E");
  Icall.TTRes.TheKind = TypeTestResolution::Single;
  TypeIdSummary &Vtable = Index.getOrInsertTypeIdSummary("_ZTS5Shape");
  Vtable.TTRes = {TypeTestResolution::ByteArray, 3, 4, 5, 6, 7};
  WholeProgramDevirtResolution &Devirt = Vtable.WPDRes[16];
  Devirt.TheKind = WholeProgramDevirtResolution::SingleImpl;
  Devirt.SingleImplName = "_ZNK6Square4areaEv";
  Devirt.ResByArg[{1, 2}] = {WholeProgramDevirtResolution::ByArg::UniformRetVal,
                             42, 0, 0};
  Index.cfiFunctionDecls().emplace("f1");

  std::string Plain;
  raw_string_ostream OS(Plain);
  writeIndexToFile(Index, OS);
  std::unique_ptr<ModuleSummaryIndex> Dropped = readShard(Plain);
  ASSERT_TRUE(Dropped);
  EXPECT_TRUE(Dropped->typeIds().empty());

  Expected<std::string> Kept = writeIndexShard(Index, "shard");
  ASSERT_EQ(errorText(Kept), "");
  std::unique_ptr<ModuleSummaryIndex> After = readShard(*Kept);
  ASSERT_TRUE(After);
  ASSERT_EQ(After->typeIds().size(), 2u);
  const TypeIdSummary *I = After->getTypeIdSummary("_ZTSFRSoS_E");
  ASSERT_TRUE(I);
  EXPECT_EQ(I->TTRes.TheKind, TypeTestResolution::Single);
  const TypeIdSummary *V = After->getTypeIdSummary("_ZTS5Shape");
  ASSERT_TRUE(V);
  EXPECT_EQ(V->TTRes.TheKind, TypeTestResolution::ByteArray);
  EXPECT_EQ(V->TTRes.SizeM1BitWidth, 3u);
  EXPECT_EQ(V->TTRes.AlignLog2, 4u);
  EXPECT_EQ(V->TTRes.SizeM1, 5u);
  EXPECT_EQ(V->TTRes.BitMask, 6u);
  EXPECT_EQ(V->TTRes.InlineBits, 7u);
  ASSERT_EQ(V->WPDRes.count(16), 1u);
  const WholeProgramDevirtResolution &W = V->WPDRes.at(16);
  EXPECT_EQ(W.TheKind, WholeProgramDevirtResolution::SingleImpl);
  EXPECT_EQ(W.SingleImplName, "_ZNK6Square4areaEv");
  ASSERT_EQ(W.ResByArg.size(), 1u);
  const auto &[Args, ByArg] = *W.ResByArg.begin();
  EXPECT_EQ(Args, (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(ByArg.TheKind, WholeProgramDevirtResolution::ByArg::UniformRetVal);
  EXPECT_EQ(ByArg.Info, 42u);
  EXPECT_EQ(sorted(After->cfiFunctionDecls().symbols()),
            (std::vector<std::string>{"f1"}));
}

TEST(IndexShardTest, SameContentSameBytes) {
  // Two links name the same modules by other paths; renamed alike, the
  // shards are the same bytes, whatever order the index's map of module
  // paths holds them in (LLVM's writer sorts them).
  auto Rename = [](StringRef Module, StringRef Import) {
    std::string Original = shard(Module, Import, 100);
    Expected<std::string> Renamed = renameShardModules(
        MemoryBufferRef(Original, "shard"),
        [&](StringRef Path) -> Expected<std::string> {
          return Path == Module ? "m/0001-module.o" : "m/0000-import.o";
        });
    EXPECT_EQ(errorText(Renamed), "");
    return Renamed ? *Renamed : "";
  };
  std::string A = Rename("build/one/lib.a(m.o at 8).1.A.o", "build/one/b.o");
  EXPECT_TRUE(A == Rename("/elsewhere/z.o", "/elsewhere/a.o"));
  EXPECT_TRUE(A == Rename("m.o", "i.o"));
}

TEST(IndexShardTest, EveryModuleNeedsANewName) {
  std::string Original = shard("a.o", "b.o", 100);
  Expected<std::string> Renamed =
      renameShardModules(MemoryBufferRef(Original, "shard"),
                         [](StringRef Path) -> Expected<std::string> {
                           if (Path == "b.o")
                             return createStringError("no name for b.o");
                           return "m/a.o";
                         });
  EXPECT_EQ(errorText(Renamed), "no name for b.o");
  // A new name may not be another module's old one.
  Renamed = renameShardModules(MemoryBufferRef(Original, "shard"),
                               [](StringRef Path) -> Expected<std::string> {
                                 return Path == "a.o" ? "b.o" : "c.o";
                               });
  EXPECT_EQ(errorText(Renamed),
            "shard: cannot rename module 'a.o' to 'b.o', which the index "
            "already names");
}

} // namespace
