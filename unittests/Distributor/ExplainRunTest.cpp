//===- ExplainRunTest.cpp - Why a backend job ran -------------------------===//

#include "ulto/Distributor/ExplainRun.h"

#include "Common/ErrorText.h"
#include "Common/Files.h"
#include "ulto/Support/AtomicFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <map>
#include <unistd.h>

using namespace llvm;
using namespace ulto;
using ulto::test::errorText;

namespace {

KeyComponents components() {
  KeyComponents C;
  C.Key = "k1";
  C.Compiler = "clang-22";
  C.Args = {"-c", "-O2", "%module", "-fthinlto-index=%shard", "-o", "%output"};
  C.ModuleDigest = "m1";
  C.Imports = {{"liba.a(a.o)", "a1"}, {"liba.a(b.o)", "b1"}};
  C.ShardDigest = "s1";
  return C;
}

TEST(ExplainRunTest, ModuleIdentityNamesArchiveMembersAsUsersDo) {
  EXPECT_EQ(moduleIdentity("out/libsdk.a(shapes.o at 1824).2.E36.o"),
            "libsdk.a(shapes.o)");
  EXPECT_EQ(moduleIdentity("libx.a(a b.o at 8).12.6966.o"), "libx.a(a b.o)");
  EXPECT_EQ(moduleIdentity("main.o"), "main.o");
  EXPECT_EQ(moduleIdentity("dir/lib(1).o"), "dir/lib(1).o");
}

TEST(ExplainRunTest, EachComponentIsNamed) {
  KeyComponents Before = components();
  EXPECT_EQ(explainRun(std::nullopt, Before),
            "no earlier link of this output ran it here");
  EXPECT_EQ(explainRun(Before, Before),
            "its cache entry is gone (pruned, damaged or removed)");

  auto Changed = [&](auto Change) {
    KeyComponents Now = components();
    Now.Key = "k2";
    Change(Now);
    return explainRun(Before, Now);
  };
  EXPECT_EQ(Changed([](KeyComponents &C) { C.Compiler = "clang-23"; }),
            "the compiler changed");
  EXPECT_EQ(Changed([](KeyComponents &C) { C.Args[1] = "-O3"; }),
            "the code generation options changed: removed -O2; added -O3");
  EXPECT_EQ(Changed([](KeyComponents &C) { C.Args.push_back("-g"); }),
            "the code generation options changed: added -g");
  EXPECT_EQ(Changed([](KeyComponents &C) { C.ModuleDigest = "m2"; }),
            "its own module changed");
  EXPECT_EQ(Changed([](KeyComponents &C) { C.Imports[1].second = "b2"; }),
            "an imported module changed: liba.a(b.o)");
  EXPECT_EQ(Changed([](KeyComponents &C) {
              C.Imports[0].second = "a2";
              C.Imports[1].second = "b2";
            }),
            "imported modules changed: liba.a(a.o), liba.a(b.o)");
  EXPECT_EQ(Changed([](KeyComponents &C) {
              C.Imports.pop_back();
              C.Imports.push_back({"libc.a(c.o)", "c1"});
            }),
            "the import set changed: now imports from libc.a(c.o); no longer "
            "from liba.a(b.o)");
  EXPECT_EQ(Changed([](KeyComponents &C) { C.CommonDigests = {"x"}; }),
            "a shared input changed");
  EXPECT_EQ(Changed([](KeyComponents &C) { C.ShardDigest = "s2"; }),
            "the thin link's decisions for it changed (its index shard)");
  EXPECT_EQ(Changed([](KeyComponents &) {}),
            "its cache key changed (another version of ulto)");
}

// The shard changes with every module it names: it is no reason of its own
// then.
TEST(ExplainRunTest, ReasonsAddUpWithoutTheShard) {
  KeyComponents Before = components(), Now = components();
  Now.Key = "k2";
  Now.ModuleDigest = "m2";
  Now.Imports[0].second = "a2";
  Now.ShardDigest = "s2";
  EXPECT_EQ(explainRun(Before, Now),
            "its own module changed; an imported module changed: liba.a(a.o)");
}

class ExplainRecordsTest : public testing::Test {
protected:
  unittest::TempDir Cache{"explain-records", /*Unique=*/true};
  ExplainRecords Records{Cache.path().str()};

  std::string recordFile() {
    std::error_code EC;
    sys::fs::directory_iterator It(
        Cache.path("explain-" + std::to_string(::getuid())), EC);
    return EC || It == sys::fs::directory_iterator() ? "" : It->path();
  }
};

TEST_F(ExplainRecordsTest, ARecordIsPerOutputAndModule) {
  KeyComponents C = components();
  EXPECT_FALSE(Records.load("app", "main.o"));
  ASSERT_EQ(errorText(Records.save("app", "main.o", C)), "");
  std::optional<KeyComponents> Loaded = Records.load("app", "main.o");
  ASSERT_TRUE(Loaded);
  EXPECT_TRUE(*Loaded == C);
  EXPECT_FALSE(Records.load("app2", "main.o"));
  EXPECT_FALSE(Records.load("app", "other.o"));
}

TEST_F(ExplainRecordsTest, ABadRecordIsNoRecord) {
  ASSERT_EQ(errorText(Records.save("app", "main.o", components())), "");
  std::string File = recordFile();
  ASSERT_FALSE(File.empty());
  {
    std::error_code EC;
    raw_fd_ostream OS(File, EC);
    OS << "{\"key\": 1}";
  }
  EXPECT_FALSE(Records.load("app", "main.o"));
  // Nor is anything read through a link.
  ASSERT_FALSE(sys::fs::remove(File));
  ASSERT_FALSE(sys::fs::create_link("/etc/passwd", File));
  EXPECT_FALSE(Records.load("app", "main.o"));
}

// A link in the records' place (planted in a shared cache) is not followed:
// nothing is written there, read from there or pruned there.
TEST_F(ExplainRecordsTest, ALinkInTheirPlaceIsNotFollowed) {
  unittest::TempDir Elsewhere{"explain-elsewhere", /*Unique=*/true};
  ASSERT_FALSE(sys::fs::create_link(
      Elsewhere.path(), Cache.path("explain-" + std::to_string(::getuid()))));
  std::string Old(Elsewhere.path("old.json"));
  ASSERT_EQ(errorText(writeAtomically(Old, "{}")), "");
  EXPECT_NE(errorText(Records.save("app", "main.o", components())), "");
  EXPECT_FALSE(Records.load("app", "main.o"));
  Records.prune(std::chrono::seconds(1), 0);
  Records.prune(std::chrono::seconds(0), 0);
  EXPECT_TRUE(sys::fs::exists(Old));
  EXPECT_EQ(test::filesIn(Elsewhere.path()),
            std::vector<std::string>{"old.json"});
}

TEST_F(ExplainRecordsTest, PruningGoesByAgeThenCount) {
  // a.o written three hours ago, b.o two, c.o one.
  std::map<std::string, int> HoursAgo = {{"a.o", 3}, {"b.o", 2}, {"c.o", 1}};
  for (auto &[Module, Hours] : HoursAgo) {
    KeyComponents C = components();
    C.Key = Module;
    ASSERT_EQ(errorText(Records.save("app", Module, C)), "");
  }
  auto Now = std::chrono::system_clock::now();
  std::error_code EC;
  for (sys::fs::directory_iterator
           It(Cache.path("explain-" + std::to_string(::getuid())), EC),
       End;
       It != End && !EC; It.increment(EC)) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Bytes =
        MemoryBuffer::getFile(It->path());
    ASSERT_TRUE(Bytes);
    for (auto &[Module, Hours] : HoursAgo) {
      if ((*Bytes)->getBuffer().contains("\"key\":\"" + Module + "\"")) {
        int FD;
        ASSERT_FALSE(sys::fs::openFileForWrite(It->path(), FD,
                                               sys::fs::CD_OpenExisting));
        ASSERT_FALSE(sys::fs::setLastAccessAndModificationTime(
            FD, Now - std::chrono::hours(Hours)));
        ::close(FD);
      }
    }
  }
  auto Kept = [&] {
    std::string Names;
    for (auto &[Module, Hours] : HoursAgo)
      if (Records.load("app", Module))
        Names += Module + " ";
    return Names;
  };
  Records.prune(std::chrono::seconds(0), 2);
  EXPECT_EQ(Kept(), "b.o c.o ");
  Records.prune(std::chrono::minutes(90), 0);
  EXPECT_EQ(Kept(), "c.o ");
}

} // namespace
