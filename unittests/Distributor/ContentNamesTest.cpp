//===- ContentNamesTest.cpp - A job's files named by content --------------===//
//
// nameByContent on hand-made jobs with made-up digests: the rank from the
// local paths' order leads each module's name, extensions stay, the shared
// inputs come last; a digest that cannot be had is the job's error.
//
//===----------------------------------------------------------------------===//

#include "ulto/Distributor/ContentNames.h"

#include "Common/ErrorText.h"
#include "Common/TestJobs.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

// Digests made of the path's last letter before the extension.
Expected<std::string> fakeHex(StringRef Path) {
  StringRef Stem = Path.take_front(Path.rfind('.'));
  return std::string(32, Stem.back());
}

std::vector<std::string> namesOf(const ContentNames &Names) {
  std::vector<std::string> Result;
  for (const NamedFile &F : Names.Files)
    Result.push_back(F.Name);
  return Result;
}

TEST(ContentNamesTest, RankFromTheLocalOrderLeadsEachModuleName) {
  // The module sorts after its import here, before it there.
  JobList Late = jobList("/one", "z/m.o", "b.o");
  JobList Early = jobList("/two", "a/m.o", "b.o");
  Expected<ContentNames> L = nameByContent(Late, Late.Jobs[0], fakeHex);
  Expected<ContentNames> E = nameByContent(Early, Early.Jobs[0], fakeHex);
  ASSERT_EQ(errorText(L), "");
  ASSERT_EQ(errorText(E), "");
  EXPECT_EQ(namesOf(*L),
            (std::vector<std::string>{"m/0000-bbbbbbbbbbbbbbbb.o",
                                      "m/0001-mmmmmmmmmmmmmmmm.o",
                                      "c/0-ffffffffffffffff.txt"}));
  EXPECT_EQ(namesOf(*E),
            (std::vector<std::string>{"m/0000-mmmmmmmmmmmmmmmm.o",
                                      "m/0001-bbbbbbbbbbbbbbbb.o",
                                      "c/0-ffffffffffffffff.txt"}));
  EXPECT_EQ(L->NameOf.lookup("/one/z/m.o"), "m/0001-mmmmmmmmmmmmmmmm.o");
  EXPECT_EQ(L->Files[1].LocalPath, "/one/z/m.o");
  EXPECT_EQ(L->Files[1].ContentHex, std::string(32, 'm'));
}

TEST(ContentNamesTest, ExtensionsThatAreNotWordsAreLeftOut) {
  JobList List = jobList("/d", "lib.a(m.o at 8).3.1A2B.o", "x.o (copy)");
  Expected<ContentNames> Names =
      nameByContent(List, List.Jobs[0], [](StringRef) -> Expected<std::string> {
        return std::string(64, 'e');
      });
  ASSERT_EQ(errorText(Names), "");
  EXPECT_EQ(Names->NameOf.lookup("/d/lib.a(m.o at 8).3.1A2B.o"),
            "m/0000-eeeeeeeeeeeeeeee.o");
  EXPECT_EQ(Names->NameOf.lookup("/d/x.o (copy)"), "m/0001-eeeeeeeeeeeeeeee");
}

TEST(ContentNamesTest, ADigestThatCannotBeHadIsAnError) {
  JobList List = jobList("/d", "m.o", "b.o");
  EXPECT_EQ(
      errorText(nameByContent(List, List.Jobs[0],
                              [](StringRef Path) -> Expected<std::string> {
                                return createStringError("cannot read '%s'",
                                                         Path.str().c_str());
                              })),
      "cannot read '/d/b.o'");
}

} // namespace
