//===- SafeInputNamesTest.cpp ---------------------------------------------===//

#include "ulto/Link/SafeInputNames.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

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

  std::string archive(StringRef Name, bool Thin) {
    std::vector<NewArchiveMember> Members;
    for (StringRef Member : {"ß.o", "b.o"}) {
      Expected<NewArchiveMember> M =
          NewArchiveMember::getFile(file(Member, Member), true);
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

} // namespace
