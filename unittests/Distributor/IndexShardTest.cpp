//===- IndexShardTest.cpp - Shards renamed structurally -------------------===//
//
// renameShardModules on shards written by LLVM's bitcode writer: every
// module and summary renamed, hashes and import-as-declaration marks kept.
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
