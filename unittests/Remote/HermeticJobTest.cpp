//===- HermeticJobTest.cpp - Jobs that name only their own files ----------===//
//
// makeHermetic on a link's inputs: content names in the local names' order,
// the command and the shard rewritten to match, the same job from another
// directory the same hermetic job.
//
//===----------------------------------------------------------------------===//

#include "HermeticJob.h"

#include "ulto/Distributor/FileDigest.h"

#include "Common/ErrorText.h"
#include "Common/TestJobs.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/ModuleSummaryIndex.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

// Names from BLAKE3 digests.
HermeticJob hermetic(const JobList &List) {
  FileDigests Digests;
  Expected<BackendInputs> Inputs =
      collectBackendInputs(List, List.Jobs[0], "clang-22 id",
                           [&](StringRef Path) { return Digests.hex(Path); });
  EXPECT_EQ(errorText(Inputs), "");
  return Inputs ? makeHermetic(List, List.Jobs[0], *Inputs) : HermeticJob();
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
  std::unique_ptr<ModuleSummaryIndex> Index = readShard(Job.Shard);
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

} // namespace
