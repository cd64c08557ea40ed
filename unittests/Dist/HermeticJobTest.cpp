//===- HermeticJobTest.cpp - Jobs that name only their own files ----------===//
//
// renameShardModules on shards written by LLVM's bitcode writer: every
// module and summary renamed, hashes and import-as-declaration marks kept.
// makeHermetic on a link's files: content names in the local names' order,
// the command and the shard rewritten to match, the same job from another
// directory the same hermetic job.
//
//===----------------------------------------------------------------------===//

#include "ulto/Dist/HermeticJob.h"

#include "ErrorText.h"
#include "TestJobs.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/ModuleSummaryIndex.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

std::unique_ptr<ModuleSummaryIndex> read(StringRef Bytes) {
  Expected<std::unique_ptr<ModuleSummaryIndex>> Index =
      getModuleSummaryIndex(MemoryBufferRef(Bytes, "shard"));
  EXPECT_EQ(errorText(Index), "");
  return Index ? std::move(*Index) : nullptr;
}

TEST(HermeticJobTest, RenamesEveryModuleAndKeepsWhatTheBackendReads) {
  std::string Original = shard("/abs/lib (1).a(m.o at 8).o", "../b.o", 100,
                               /*ImportHash=*/7, /*Declaration=*/true);
  Expected<std::string> Renamed = renameShardModules(
      MemoryBufferRef(Original, "shard"),
      [](StringRef Path) -> Expected<std::string> {
        return Path == "../b.o" ? "m/0000-b.o" : "m/0001-m.o";
      });
  ASSERT_EQ(errorText(Renamed), "");
  std::unique_ptr<ModuleSummaryIndex> Index = read(*Renamed);
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

TEST(HermeticJobTest, EveryModuleNeedsANewName) {
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

// Names from BLAKE3 digests.
Expected<HermeticJob> makeHermeticBLAKE3(const JobList &List) {
  FileDigests Digests;
  return makeHermetic(List, List.Jobs[0],
                      [&](StringRef Path) -> Expected<std::string> {
                        Expected<Digest> D = Digests.get(Path);
                        if (!D)
                          return D.takeError();
                        return toHex(*D, /*LowerCase=*/true);
                      });
}

HermeticJob hermetic(const JobList &List) {
  Expected<HermeticJob> Job = makeHermeticBLAKE3(List);
  EXPECT_EQ(errorText(Job), "");
  return Job ? std::move(*Job) : HermeticJob();
}

TEST(HermeticJobTest, NamesFilesByContentInTheLocalOrder) {
  unittest::TempDir Dir("hermetic", /*Unique=*/true);
  // The module sorts after its import ("z" > "a"), and so do their names.
  JobList List = writeLink(Dir.path(), "z (1).a(m.o at 8).o", "a.o", "import");
  HermeticJob Job = hermetic(List);
  ASSERT_EQ(Job.Files.size(), 3u);
  EXPECT_EQ(Job.Files[0].LocalPath, List.Jobs[0].imports()[0]);
  EXPECT_TRUE(StringRef(Job.Files[0].Path).starts_with("m/0000-"));
  EXPECT_TRUE(StringRef(Job.Files[0].Path).ends_with(".o"));
  EXPECT_EQ(Job.Files[1].LocalPath, List.Jobs[0].module());
  EXPECT_TRUE(StringRef(Job.Files[1].Path).starts_with("m/0001-"));
  EXPECT_EQ(Job.Files[2].LocalPath, List.CommonInputs[0]);
  EXPECT_TRUE(StringRef(Job.Files[2].Path).starts_with("c/0-"));
  EXPECT_TRUE(StringRef(Job.Files[2].Path).ends_with(".txt"));

  EXPECT_EQ(Job.Args,
            (std::vector<std::string>{
                "-c", "-O2", "-fprofile-sample-use=" + Job.Files[2].Path,
                Job.Files[1].Path, "-fthinlto-index=index.thinlto.bc", "-o",
                "backend.o"}));
  std::unique_ptr<ModuleSummaryIndex> Index = read(Job.Shard);
  ASSERT_TRUE(Index);
  EXPECT_TRUE(Index->modulePaths().count(Job.Files[0].Path));
  EXPECT_TRUE(Index->modulePaths().count(Job.Files[1].Path));
}

TEST(HermeticJobTest, SameJobFromAnotherDirectoryIsTheSame) {
  unittest::TempDir One("one", /*Unique=*/true), Two("two", true);
  HermeticJob A = hermetic(writeLink(One.path(), "m.o", "i.o", "import"));
  HermeticJob B = hermetic(writeLink(Two.path(), "m.o", "i.o", "import"));
  EXPECT_EQ(A.Args, B.Args);
  EXPECT_EQ(A.Shard, B.Shard);
  // Other import bytes: other names.
  unittest::TempDir Three("three", true);
  HermeticJob C = hermetic(writeLink(Three.path(), "m.o", "i.o", "other"));
  EXPECT_NE(A.Files[0].Path, C.Files[0].Path);
}

TEST(HermeticJobTest, ShardNamingAStrangerIsAnError) {
  unittest::TempDir Dir("hermetic", /*Unique=*/true);
  JobList List = writeLink(Dir.path(), "m.o", "i.o", "import");
  writeFile(List.Jobs[0].indexShard(),
            shard(List.Jobs[0].module(), "elsewhere.o", 100));
  EXPECT_EQ(errorText(makeHermeticBLAKE3(List)),
            List.Jobs[0].indexShard().str() +
                ": names module 'elsewhere.o', which is not among the job's "
                "inputs");
}

} // namespace
