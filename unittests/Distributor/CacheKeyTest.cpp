//===- CacheKeyTest.cpp - Keys name content, not paths --------------------===//
//
// normaliseArgs on hand-made jobs; normaliseIndexShard and computeBackendKey
// on index shards written by LLVM's own bitcode writer, as the same link laid
// out under different names.
//
//===----------------------------------------------------------------------===//

#include "ulto/Distributor/CacheKey.h"

#include "Common/ErrorText.h"
#include "Common/TestJobs.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/ModuleSummaryIndex.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

TEST(CacheKeyTest, ArgsNameRolesNotPaths) {
  JobList List = jobList("/build/one", "lib.a(m.o at 8).4.1A2B.o", "b.o");
  EXPECT_EQ(normaliseArgs(List, List.Jobs[0]),
            (std::vector<std::string>{
                "-c", "-O2", "-fprofile-sample-use=%common0", "%module",
                "-fthinlto-index=%shard", "-o", "%output"}));
  JobList Other = jobList("/elsewhere", "m.o", "b.o");
  EXPECT_EQ(normaliseArgs(List, List.Jobs[0]),
            normaliseArgs(Other, Other.Jobs[0]));
}

std::string normalise(StringRef Bytes,
                      std::map<std::string, std::string> Names) {
  Expected<std::string> Text =
      normaliseIndexShard(MemoryBufferRef(Bytes, "shard"),
                          [&](StringRef Path) -> std::optional<std::string> {
                            auto It = Names.find(Path.str());
                            if (It == Names.end())
                              return std::nullopt;
                            return It->second;
                          });
  EXPECT_EQ(errorText(Text), "");
  return Text ? *Text : "";
}

TEST(CacheKeyTest, ShardTextNamesModulesByContent) {
  // The same modules under other names, sorting the other way round.
  std::string A = normalise(shard("a/zz.o", "a/b.o", 100),
                            {{"a/zz.o", "M"}, {"a/b.o", "I"}});
  std::string B = normalise(shard("/x/lib.a(m.o at 8).o", "/x/z.o", 100),
                            {{"/x/lib.a(m.o at 8).o", "M"}, {"/x/z.o", "I"}});
  EXPECT_EQ(A, B);
  EXPECT_EQ(A.find("a/zz.o"), std::string::npos) << A;
  EXPECT_NE(A.find("module: M"), std::string::npos) << A;

  // What the backend reads differs: so does the text.
  EXPECT_NE(A, normalise(shard("a/zz.o", "a/b.o", 200),
                         {{"a/zz.o", "M"}, {"a/b.o", "I"}}));
  EXPECT_NE(A, normalise(shard("a/zz.o", "a/b.o", 100, /*ImportHash=*/3),
                         {{"a/zz.o", "M"}, {"a/b.o", "I"}}));
}

TEST(CacheKeyTest, ShardMustBeAnIndex) {
  EXPECT_NE(errorText(normaliseIndexShard(
                MemoryBufferRef("not bitcode", "s.bc"),
                [](StringRef) -> std::optional<std::string> {
                  return std::nullopt;
                })),
            "");
}

TEST(CacheKeyTest, KeyIsPathIndependent) {
  unittest::TempDir One("one", /*Unique=*/true), Two("two", true);
  FileDigests Digests;
  auto Key = [&](const JobList &List, StringRef Compiler = "clang-22 id") {
    Expected<std::string> K =
        computeBackendKey(List, List.Jobs[0], Compiler, Digests);
    EXPECT_EQ(errorText(K), "");
    return K ? *K : "";
  };

  JobList A = writeLink(One.path(), "m.o", "b.o", "import v1");
  JobList B =
      writeLink(Two.path(), "lib.a(m.o at 8).3.F00.o", "other.o", "import v1");
  std::string KeyA = Key(A);
  EXPECT_EQ(KeyA.size(), 64u);
  EXPECT_EQ(KeyA, Key(B));

  // Each thing the object depends on changes the key.
  EXPECT_NE(KeyA, Key(A, "clang-23 id"));
  JobList O3 = A;
  O3.CommonArgs[2] = "-O3";
  EXPECT_NE(KeyA, Key(O3));
  unittest::TempDir Three("three", true);
  EXPECT_NE(KeyA, Key(writeLink(Three.path(), "m.o", "b.o", "import v2")));
}

TEST(CacheKeyTest, MissingInputIsAnError) {
  FileDigests Digests;
  JobList List = jobList("/nonexistent", "m.o", "b.o");
  EXPECT_NE(errorText(computeBackendKey(List, List.Jobs[0], "id", Digests)),
            "");
}

} // namespace
