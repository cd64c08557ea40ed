//===- SafeInputNamesTest.cpp ---------------------------------------------===//

#include "ulto/Link/SafeInputNames.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <optional>

using namespace llvm;
using namespace ulto;

namespace {

class SafeInputNamesTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("ulto-safe-names", Dir));
    sys::path::append(Out, Dir, "out");
    ASSERT_FALSE(sys::fs::create_directory(Out));
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  std::string file(StringRef Name, StringRef Content) {
    SmallString<128> Path(Dir);
    sys::path::append(Path, Name);
    std::error_code EC;
    raw_fd_ostream(Path, EC) << Content;
    EXPECT_FALSE(EC);
    return std::string(Path);
  }

  // An archive of members named \p Names, each holding its name, or
  // \p Content when given.
  std::string archive(StringRef Name, bool Thin,
                      ArrayRef<StringRef> Names = {"ß.o", "b.o"},
                      std::optional<StringRef> Content = std::nullopt) {
    std::vector<NewArchiveMember> Members;
    for (StringRef Member : Names) {
      Expected<NewArchiveMember> M = NewArchiveMember::getFile(
          file(Member, Content ? *Content : Member), true);
      EXPECT_TRUE(bool(M));
      Members.push_back(std::move(*M));
    }
    SmallString<128> Path(Dir);
    sys::path::append(Path, Name);
    EXPECT_FALSE(
        bool(writeArchive(Path, Members, SymtabWritingMode::NormalSymtab,
                          object::Archive::K_GNU, true, Thin)));
    return std::string(Path);
  }

  // The members' names and contents of the archive at Path.
  std::vector<std::pair<std::string, std::string>> members(StringRef Path) {
    auto Buffer = MemoryBuffer::getFile(Path);
    EXPECT_TRUE(bool(Buffer));
    auto A = object::Archive::create(**Buffer);
    EXPECT_TRUE(bool(A));
    EXPECT_FALSE((*A)->isThin());
    std::vector<std::pair<std::string, std::string>> Result;
    Error Err = Error::success();
    for (const object::Archive::Child &C : (*A)->children(Err))
      Result.push_back(
          {cantFail(C.getName()).str(), cantFail(C.getBuffer()).str()});
    EXPECT_FALSE(bool(Err));
    return Result;
  }

  SmallString<128> Dir, Out;
};

using Members = std::vector<std::pair<std::string, std::string>>;

TEST_F(SafeInputNamesTest, RankedASCIINames) {
  std::vector<std::string> Paths = {file("é.o", "e"), file("a.o", "a"),
                                    archive("libü.a", /*Thin=*/false)};
  Expected<std::vector<std::string>> Safe = makeSafeInputNames(Paths, Out);
  ASSERT_TRUE(bool(Safe)) << toString(Safe.takeError());
  // Sorted, the paths are a.o, libü.a, é.o.
  EXPECT_EQ((*Safe)[0], (Out + "/0002-__.o").str());
  EXPECT_EQ((*Safe)[1], (Out + "/0000-a.o").str());
  EXPECT_EQ((*Safe)[2], (Out + "/0001-lib__.a").str());
  // Files are links to the originals.
  auto E = MemoryBuffer::getFile((*Safe)[0]);
  ASSERT_TRUE(bool(E));
  EXPECT_EQ((*E)->getBuffer(), "e");
  // An archive with a member whose name is not ASCII is a copy, members in
  // their order, ranked by name: b.o before ß.o.
  EXPECT_EQ(members((*Safe)[2]),
            (Members{{"0001-__.o", "ß.o"}, {"0000-b.o", "b.o"}}));
}

// A thin archive finds its members next to itself: it is copied whole.
TEST_F(SafeInputNamesTest, ThinArchivesAreCopied) {
  Expected<std::vector<std::string>> Safe =
      makeSafeInputNames({archive("libthin.a", /*Thin=*/true)}, Out);
  ASSERT_TRUE(bool(Safe)) << toString(Safe.takeError());
  EXPECT_EQ(members((*Safe)[0]),
            (Members{{"0001-__.o", "ß.o"}, {"0000-b.o", "b.o"}}));
}

TEST_F(SafeInputNamesTest, ErrorsNameTheInput) {
  Expected<std::vector<std::string>> Safe =
      makeSafeInputNames({(Dir + "/missing.o").str()}, Out);
  ASSERT_FALSE(bool(Safe));
  EXPECT_EQ(toString(Safe.takeError()),
            (Dir + "/missing.o: No such file or directory").str());
}

// Bitcode, as far as the module IDs care: the magic.
constexpr StringLiteral Bitcode = "BC\xC0\xDE";

TEST_F(SafeInputNamesTest, DistributedOrderAsInProcess) {
  // Objects and archives in the output's directory sort alike: "a.o",
  // "b.o", "libx.a(m.o at 8)" in process; "libx.a(m.o at 8).3.<pid>.o"
  // under DTLTO.
  std::string A = file("a.o", Bitcode), B = file("b.o", Bitcode);
  std::string X = archive("libx.a", /*Thin=*/false, {"m.o"}, Bitcode);
  Expected<bool> Same =
      distributedOrderMatches({A, B, X}, (Dir + "/app").str());
  ASSERT_TRUE(bool(Same)) << toString(Same.takeError());
  EXPECT_TRUE(*Same);
  // An input named twice is one module.
  EXPECT_TRUE(
      cantFail(distributedOrderMatches({X, A, X}, (Dir + "/app").str())));
  // Only bitcode counts: a member that is not, and another file, do not.
  std::string Text = file("notes.txt", "text");
  EXPECT_TRUE(
      cantFail(distributedOrderMatches({A, Text}, (Dir + "/app").str())));
}

TEST_F(SafeInputNamesTest, DistributedOrderOfAProjectLaidOutInDirectories) {
  // A project's layout: obj/t.o, zlib/libz.a, output in bin/. In process
  // "obj/t.o" < "zlib/libz.a(...)"; under DTLTO the member is
  // "bin/libz.a(...)", first.
  for (StringRef Sub : {"obj", "zlib", "bin"})
    ASSERT_FALSE(sys::fs::create_directories(Dir + "/" + Sub));
  std::string T = file("obj/t.o", Bitcode);
  std::string Z = archive("zlib/libz.a", /*Thin=*/false, {"z.o"}, Bitcode);
  EXPECT_FALSE(
      cantFail(distributedOrderMatches({T, Z}, (Dir + "/bin/t").str())));
  // Two archives of one name in two directories: their members' DTLTO
  // names differ in sequence numbers only, unknown here.
  std::string Z2 = archive("libz.a", /*Thin=*/false, {"z.o"}, Bitcode);
  EXPECT_FALSE(
      cantFail(distributedOrderMatches({Z, Z2}, (Dir + "/out").str())));
  // A thin archive's members keep their own files' paths.
  std::string Thin = archive("zlib/libthin.a", /*Thin=*/true, {"z.o"}, Bitcode);
  EXPECT_TRUE(
      cantFail(distributedOrderMatches({Thin}, (Dir + "/bin/t").str())));
}

TEST_F(SafeInputNamesTest, PrefixedNamesRankedAsModuleIDs) {
  // "libx.a(...)" sorts after "libx.a.o" as a path, before it as a module
  // ID ('(' before '.'): the archive ranks first.
  std::string Object = file("libx.a.o", Bitcode);
  std::string X = archive("libx.a", /*Thin=*/false, {"m.o"}, Bitcode);
  Expected<std::vector<std::string>> Safe =
      makeSafeInputNames({Object, X, Object}, Out, "app.ulto7.");
  ASSERT_TRUE(bool(Safe)) << toString(Safe.takeError());
  EXPECT_EQ((*Safe)[0], (Out + "/app.ulto7.0001-libx.a.o").str());
  EXPECT_EQ((*Safe)[1], (Out + "/app.ulto7.0000-libx.a").str());
  // One link for a path named twice.
  EXPECT_EQ((*Safe)[2], (*Safe)[0]);
}

TEST_F(SafeInputNamesTest, NothingIsLeftOfAFailure) {
  std::string A = file("a.o", Bitcode);
  Expected<std::vector<std::string>> Safe =
      makeSafeInputNames({A, (Dir + "/missing.o").str()}, Out, "p.");
  ASSERT_FALSE(bool(Safe));
  consumeError(Safe.takeError());
  std::error_code EC;
  EXPECT_TRUE(sys::fs::directory_iterator(Out, EC) ==
              sys::fs::directory_iterator());
}

} // namespace
