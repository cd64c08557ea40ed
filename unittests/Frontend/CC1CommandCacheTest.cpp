//===- CC1CommandCacheTest.cpp --------------------------------------------===//

#include "ulto/Frontend/CC1CommandCache.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;

namespace {

// A backend job's driver command line and the -cc1 command clang-22's driver
// builds from it (abridged), for a module, its index and its object.
struct Job {
  std::string In, Index, Out;
  std::vector<std::string> Extra = {};

  std::vector<std::string> driver() const {
    std::vector<std::string> Args = {"/usr/bin/clang", "-c", "-O2"};
    Args.insert(Args.end(), Extra.begin(), Extra.end());
    Args.insert(Args.end(), {In, "-fthinlto-index=" + Index, "-o", Out});
    return Args;
  }
  std::vector<std::string> cc1(bool SplitDwarf = false) const {
    std::vector<std::string> Args = {"/usr/bin/clang",
                                     "-cc1",
                                     "-triple",
                                     "x86_64-pc-linux-gnu",
                                     "-O2",
                                     "-emit-obj",
                                     "-fthinlto-index=" + Index,
                                     "-main-file-name",
                                     sys::path::filename(In).str()};
    if (SplitDwarf)
      Args.insert(Args.end(),
                  {"-split-dwarf-file", sys::path::stem(Out).str() + ".dwo"});
    Args.insert(Args.end(), {"-o", Out, "-x", "ir", In});
    return Args;
  }
};

std::vector<const char *> pointers(const std::vector<std::string> &Args) {
  std::vector<const char *> P;
  for (const std::string &A : Args)
    P.push_back(A.c_str());
  return P;
}

void observe(CC1CommandCache &Cache, const Job &J, bool SplitDwarf = false) {
  std::vector<std::string> Driver = J.driver(), CC1 = J.cc1(SplitDwarf);
  Cache.observe(pointers(Driver), pointers(CC1));
}

std::optional<std::vector<std::string>> lookup(const CC1CommandCache &Cache,
                                               const Job &J) {
  std::vector<std::string> Driver = J.driver();
  return Cache.lookup(pointers(Driver));
}

// The tests run in a directory of their own, where the jobs' inputs exist:
// the driver reports a missing one, so the cache leaves such jobs to it.
class CC1CommandCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::current_path(Start));
    ASSERT_FALSE(sys::fs::createUniqueDirectory("cc1-cache", Dir));
    ASSERT_FALSE(sys::fs::set_current_path(Dir));
    for (const char *Input : {"lib/a.o", "lib/b.o", "lib/c.o", "lib/c.bc",
                              "src/a.o", "a.o", "b.o", "c.o"})
      touch(Input);
  }
  static void touch(StringRef Name) {
    StringRef Parent = sys::path::parent_path(Name);
    ASSERT_FALSE(sys::fs::create_directories(Parent.empty() ? "." : Parent));
    std::error_code EC;
    raw_fd_ostream(Name, EC);
    ASSERT_FALSE(EC);
  }
  void TearDown() override {
    ASSERT_FALSE(sys::fs::set_current_path(Start));
    sys::fs::remove_directories(Dir);
  }
  SmallString<256> Start, Dir;
};

const Job A{"lib/a.o", "a.1.native.o.thinlto.bc", "a.1.native.o"};
const Job B{"lib/b.o", "b.2.native.o.thinlto.bc", "b.2.native.o"};
const Job C{"lib/c.o", "c.3.native.o.thinlto.bc", "c.3.native.o"};

// A cache that learned A's command and checked it with B's.
CC1CommandCache trustedCache() {
  CC1CommandCache Cache;
  observe(Cache, A);
  observe(Cache, B);
  return Cache;
}

TEST_F(CC1CommandCacheTest, TrustedOncePredictingASecondJob) {
  CC1CommandCache Cache;
  EXPECT_EQ(lookup(Cache, C), std::nullopt);
  observe(Cache, A);
  EXPECT_EQ(lookup(Cache, C), std::nullopt);
  observe(Cache, B);
  EXPECT_EQ(lookup(Cache, C), C.cc1());
  EXPECT_EQ(lookup(Cache, A), A.cc1());
}

TEST_F(CC1CommandCacheTest, ANameTheDriverDerivesIsNeverPredicted) {
  CC1CommandCache Cache;
  observe(Cache, A, /*SplitDwarf=*/true);
  observe(Cache, B, /*SplitDwarf=*/true);
  EXPECT_EQ(lookup(Cache, C), std::nullopt);
  // The mispredicted shape stays with the driver.
  observe(Cache, C, /*SplitDwarf=*/true);
  EXPECT_EQ(lookup(Cache, A), std::nullopt);
}

TEST_F(CC1CommandCacheTest, OnlyOtherFileNamesTestThePrediction) {
  CC1CommandCache Cache;
  observe(Cache, A);
  observe(Cache, A);
  Job SameName{"src/a.o", "b.thinlto.bc", "b.o"};
  observe(Cache, SameName);
  EXPECT_EQ(lookup(Cache, C), std::nullopt);
  observe(Cache, B);
  EXPECT_EQ(lookup(Cache, C), C.cc1());
}

TEST_F(CC1CommandCacheTest, OnlyTheLearnedShapeIsServed) {
  CC1CommandCache Cache = trustedCache();
  ASSERT_EQ(lookup(Cache, C), C.cc1());
  // Another argument; another extension; no directory; an absolute name; a
  // name the driver reads as an option, or as a response file.
  const Job Others[] = {
      {C.In, C.Index, C.Out, {"-g"}}, {"lib/c.bc", C.Index, C.Out},
      {"c.o", C.Index, C.Out},        {C.In, C.Index, "/abs/c.3.native.o"},
      {"-c.o", C.Index, C.Out},       {C.In, "@c.rsp", C.Out}};
  for (const Job &Other : Others)
    EXPECT_EQ(lookup(Cache, Other), std::nullopt)
        << Other.In << ' ' << Other.Index << ' ' << Other.Out;
}

// -main-file-name is the input's last component: the input itself when it
// names no directory, which only a job that names none may take for it.
TEST_F(CC1CommandCacheTest, ANameWithoutADirectoryIsAShapeOfItsOwn) {
  CC1CommandCache Cache;
  Job Here[] = {{"a.o", "a.thinlto.bc", "a.out.o"},
                {"b.o", "b.thinlto.bc", "b.out.o"},
                {"c.o", "c.thinlto.bc", "c.out.o"}};
  observe(Cache, Here[0]);
  observe(Cache, Here[1]);
  EXPECT_EQ(lookup(Cache, Here[2]), Here[2].cc1());
  EXPECT_EQ(lookup(Cache, C), std::nullopt);
}

TEST_F(CC1CommandCacheTest, CommandsWithDriverEffectsAreNotLearned) {
  for (const char *Option : {"-v", "-save-temps", "-###", "-MJc.json"}) {
    CC1CommandCache Cache;
    Job X = A, Y = B, Z = C;
    X.Extra = Y.Extra = Z.Extra = {Option};
    observe(Cache, X);
    observe(Cache, Y);
    EXPECT_EQ(lookup(Cache, Z), std::nullopt) << Option;
  }
}

TEST_F(CC1CommandCacheTest, ACommandLineWithANullArgumentIsNotLearned) {
  CC1CommandCache Cache;
  for (const Job &J : {A, B}) {
    std::vector<std::string> Driver = J.driver(), CC1 = J.cc1();
    std::vector<const char *> Args = pointers(Driver);
    Args.insert(Args.begin() + 2, nullptr);
    Cache.observe(Args, pointers(CC1));
  }
  std::vector<std::string> Driver = C.driver();
  std::vector<const char *> Args = pointers(Driver);
  Args.insert(Args.begin() + 2, nullptr);
  EXPECT_EQ(Cache.lookup(Args), std::nullopt);
}

TEST_F(CC1CommandCacheTest, TheWorkingDirectoryIsPartOfTheShape) {
  CC1CommandCache Cache = trustedCache();
  touch("elsewhere/lib/c.o");
  ASSERT_FALSE(sys::fs::set_current_path("elsewhere"));
  EXPECT_EQ(lookup(Cache, C), std::nullopt);
  ASSERT_FALSE(sys::fs::set_current_path(Dir));
  EXPECT_EQ(lookup(Cache, C), C.cc1());
}

TEST_F(CC1CommandCacheTest, AMissingInputIsLeftToTheDriver) {
  CC1CommandCache Cache = trustedCache();
  ASSERT_EQ(lookup(Cache, C), C.cc1());
  ASSERT_FALSE(sys::fs::remove(C.In));
  EXPECT_EQ(lookup(Cache, C), std::nullopt);
}

} // namespace
