//===- LinkInputsTest.cpp - findLibrary() and loadLinkInputs() ------------===//

#include "ulto/Link/LinkInputs.h"
#include "LinkTestInputs.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

class LinkInputsTest : public LinkTest {
protected:
  // The names of the loaded files, with the test directory left out.
  std::vector<std::string> load(const LinkRequest &Request) {
    Expected<LoadedFiles> Files = loadLinkInputs(Request);
    if (!Files) {
      ADD_FAILURE() << toString(Files.takeError());
      return {};
    }
    std::vector<std::string> Names;
    for (const LoadedFile &F : Files->Files) {
      StringRef Name = F.Name;
      Name.consume_front(Dir.str());
      Name.consume_front("/");
      Names.push_back(Name.str());
    }
    return Names;
  }

  std::string loadError(const LinkRequest &Request) {
    Expected<LoadedFiles> Files = loadLinkInputs(Request);
    if (Files) {
      ADD_FAILURE() << "expected an error";
      return "";
    }
    std::string Message = toString(Files.takeError());
    // Paths relative to the test directory, for exact comparison.
    std::string Prefix = Dir.str().str() + "/";
    for (size_t Pos; (Pos = Message.find(Prefix)) != std::string::npos;)
      Message.erase(Pos, Prefix.size());
    return Message;
  }

  // main.bc calls helper(); lib.a has helper.bc (which calls deep()),
  // deep.bc and unused.bc.
  void writeProgram() {
    file("main.bc", regularBitcode(functionsIR({"main"}, {"helper"})));
    archive("lib.a",
            {{"helper.bc", regularBitcode(functionsIR({"helper"}, {"deep"}))},
             {"deep.bc", regularBitcode(functionsIR({"deep"}))},
             {"unused.bc", regularBitcode(functionsIR({"unused"}))}});
  }

  LinkInput in(StringRef Name, bool WholeArchive = false, bool Lazy = false) {
    return {path(Name), WholeArchive, Lazy};
  }
};

using Names = std::vector<std::string>;

TEST_F(LinkInputsTest, FindLibraryPrefersSharedUnlessStatic) {
  file("libx.so", "");
  file("libx.a", "");
  EXPECT_EQ(findLibrary("x", {Dir.str().str()}, /*Static=*/false),
            path("libx.so"));
  EXPECT_EQ(findLibrary("x", {Dir.str().str()}, /*Static=*/true),
            path("libx.a"));
}

TEST_F(LinkInputsTest, FindLibraryFallsBackToArchive) {
  file("libx.a", "");
  EXPECT_EQ(findLibrary("x", {Dir.str().str()}, /*Static=*/false),
            path("libx.a"));
}

// As in GNU ld: directories in order, and in each the shared library first.
TEST_F(LinkInputsTest, FindLibraryFirstDirectoryWins) {
  ASSERT_FALSE(sys::fs::create_directory(path("a")));
  ASSERT_FALSE(sys::fs::create_directory(path("b")));
  file("a/libx.a", "");
  file("b/libx.so", "");
  EXPECT_EQ(findLibrary("x", {path("a"), path("b")}, /*Static=*/false),
            path("a/libx.a"));
  EXPECT_EQ(findLibrary("x", {path("b"), path("a")}, /*Static=*/false),
            path("b/libx.so"));
  EXPECT_EQ(findLibrary("x", {path("b"), path("a")}, /*Static=*/true),
            path("a/libx.a"));
}

TEST_F(LinkInputsTest, FindLibraryColonNameIsAFileName) {
  file("libx.so.1", "");
  file("plain.o", "");
  EXPECT_EQ(findLibrary(":libx.so.1", {Dir.str().str()}, /*Static=*/false),
            path("libx.so.1"));
  EXPECT_EQ(findLibrary(":libx.so.1", {Dir.str().str()}, /*Static=*/true),
            path("libx.so.1"));
  EXPECT_EQ(findLibrary(":plain.o", {Dir.str().str()}, /*Static=*/false),
            path("plain.o"));
  // No lib prefix, no suffix added.
  EXPECT_EQ(findLibrary(":x", {Dir.str().str()}, /*Static=*/false), "");
}

TEST_F(LinkInputsTest, FindLibraryNotFound) {
  file("liby.a", "");
  EXPECT_EQ(findLibrary("x", {Dir.str().str()}, /*Static=*/false), "");
  EXPECT_EQ(findLibrary("x", {}, /*Static=*/false), "");
  file("libx.so", "");
  EXPECT_EQ(findLibrary("x", {Dir.str().str()}, /*Static=*/true), "");
}

TEST_F(LinkInputsTest, ArchiveMembersLoadOnlyWhenReferenced) {
  writeProgram();
  // helper.bc for main, deep.bc for helper; unused.bc stays.
  EXPECT_EQ(load({{in("main.bc"), in("lib.a")}, {}}),
            (Names{"main.bc", "lib.a(helper.bc)", "lib.a(deep.bc)"}));
}

TEST_F(LinkInputsTest, LoadedFilesAreMarkedBitcode) {
  writeProgram();
  Expected<LoadedFiles> Files =
      loadLinkInputs({{in("main.bc"), in("lib.a")}, {}});
  ASSERT_TRUE(bool(Files)) << toString(Files.takeError());
  ASSERT_EQ(Files->Files.size(), 3u);
  for (const LoadedFile &F : Files->Files) {
    EXPECT_TRUE(F.IsBitcode) << F.Name;
    EXPECT_EQ(F.Buffer.getBuffer().substr(0, 4), "BC\xC0\xDE") << F.Name;
  }
}

// Archives are searched without regard to command-line order, as lld does.
TEST_F(LinkInputsTest, ArchiveBeforeTheReferenceStillExtracts) {
  writeProgram();
  EXPECT_EQ(load({{in("lib.a"), in("main.bc")}, {}}),
            (Names{"main.bc", "lib.a(helper.bc)", "lib.a(deep.bc)"}));
}

TEST_F(LinkInputsTest, NothingReferencedNothingExtracted) {
  writeProgram();
  EXPECT_EQ(load({{in("lib.a")}, {}}), Names{});
}

TEST_F(LinkInputsTest, WholeArchiveLoadsEveryMember) {
  writeProgram();
  EXPECT_EQ(load({{in("main.bc"), in("lib.a", /*WholeArchive=*/true)}, {}}),
            (Names{"main.bc", "lib.a(helper.bc)", "lib.a(deep.bc)",
                   "lib.a(unused.bc)"}));
}

// With no bitcode to extract, the bitcode named is the bitcode loaded, and
// no other file is read: an archive of other members is passed over whole,
// --start-lib objects that are not bitcode too.
TEST_F(LinkInputsTest, WithoutLazyBitcodeTheNamedBitcodeLoads) {
  writeProgram();
  archive("notes.a", {{"helper.txt", "defines nothing ulto reads\n"}});
  file("lazy.txt", "neither\n");
  EXPECT_EQ(load({{in("main.bc"), in("notes.a"), in("lazy.txt", false, true),
                   in("lib.a", /*WholeArchive=*/true)},
                  {"helper"}}),
            (Names{"main.bc", "lib.a(helper.bc)", "lib.a(deep.bc)",
                   "lib.a(unused.bc)"}));
}

// A lazy bitcode file anywhere makes every file count: here the archive
// after main.bc extracts what main.bc needs.
TEST_F(LinkInputsTest, LazyBitcodeAnywhereResolves) {
  writeProgram();
  archive("notes.a", {{"helper.txt", "defines nothing ulto reads\n"}});
  EXPECT_EQ(load({{in("notes.a"), in("main.bc"), in("lib.a")}, {}}),
            (Names{"main.bc", "lib.a(helper.bc)", "lib.a(deep.bc)"}));
}

TEST_F(LinkInputsTest, RootsExtract) {
  writeProgram();
  EXPECT_EQ(load({{in("lib.a")}, {"unused"}}), (Names{"lib.a(unused.bc)"}));
  EXPECT_EQ(load({{in("lib.a")}, {"nowhere", "deep"}}),
            (Names{"lib.a(deep.bc)"}));
}

TEST_F(LinkInputsTest, DefinedSymbolsDoNotExtract) {
  // main.bc defines helper itself: the member is not needed.
  file("main.bc", regularBitcode(functionsIR({"main", "helper"}, {})));
  archive("lib.a", {{"helper.bc", regularBitcode(functionsIR({"helper"}))}});
  EXPECT_EQ(load({{in("main.bc"), in("lib.a")}, {"helper"}}), Names{"main.bc"});
}

TEST_F(LinkInputsTest, WeakReferencesDoNotExtract) {
  file("main.bc",
       regularBitcode(functionsIR({"main"}, {"helper"}, /*WeakRefs=*/true)));
  archive("lib.a", {{"helper.bc", regularBitcode(functionsIR({"helper"}))}});
  EXPECT_EQ(load({{in("main.bc"), in("lib.a")}, {}}), Names{"main.bc"});
}

TEST_F(LinkInputsTest, FirstDefinitionWins) {
  file("main.bc", regularBitcode(functionsIR({"main"}, {"helper"})));
  archive("one.a", {{"a.bc", regularBitcode(functionsIR({"helper"}))}});
  archive("two.a", {{"b.bc", regularBitcode(functionsIR({"helper"}))}});
  EXPECT_EQ(load({{in("main.bc"), in("one.a"), in("two.a")}, {}}),
            (Names{"main.bc", "one.a(a.bc)"}));
  EXPECT_EQ(load({{in("main.bc"), in("two.a"), in("one.a")}, {}}),
            (Names{"main.bc", "two.a(b.bc)"}));
}

// Objects between --start-lib and --end-lib behave like archive members.
TEST_F(LinkInputsTest, LazyObjectsLoadOnlyWhenReferenced) {
  file("main.bc", regularBitcode(functionsIR({"main"}, {"helper"})));
  file("helper.bc", regularBitcode(functionsIR({"helper"})));
  file("unused.bc", regularBitcode(functionsIR({"unused"})));
  EXPECT_EQ(load({{in("main.bc"), in("helper.bc", false, /*Lazy=*/true),
                   in("unused.bc", false, /*Lazy=*/true)},
                  {}}),
            (Names{"main.bc", "helper.bc"}));
  EXPECT_EQ(load({{in("helper.bc", false, /*Lazy=*/true)}, {}}), Names{});
  // Not lazy: loaded whether referenced or not.
  EXPECT_EQ(load({{in("unused.bc")}, {}}), Names{"unused.bc"});
}

// lld links a fat object's bitcode under --fat-lto-objects, its native code
// otherwise; so does the check's view of the link.
TEST_F(LinkInputsTest, FatObjectsLinkAsBitcodeUnderFatLTOObjects) {
  file("main.bc", regularBitcode(functionsIR({"main"}, {"helper"})));
  std::string HelperIR = functionsIR({"helper"});
  archive("lib.a",
          {{"helper.o", elfObject(HelperIR, regularBitcode(HelperIR))},
           {"unused.o", elfObject(functionsIR({"unused"}),
                                  regularBitcode(functionsIR({"unused"})))}});
  file("helper.o", elfObject(HelperIR, regularBitcode(HelperIR)));
  LinkRequest Request{{in("main.bc"), in("lib.a")}, {}};
  EXPECT_EQ(load(Request), Names{"main.bc"});
  Request.FatLTOObjects = true;
  EXPECT_EQ(load(Request), (Names{"main.bc", "lib.a(helper.o)"}));

  Expected<LoadedFiles> Files =
      loadLinkInputs({{in("helper.o")}, {}, /*FatLTOObjects=*/true});
  ASSERT_TRUE(bool(Files)) << toString(Files.takeError());
  ASSERT_EQ(Files->Files.size(), 1u);
  EXPECT_TRUE(Files->Files[0].IsBitcode);
  EXPECT_EQ(Files->Files[0].Buffer.getBuffer(), regularBitcode(HelperIR));
  // A plain object stays native.
  file("plain.o", elfObject(HelperIR));
  EXPECT_EQ(load({{in("plain.o")}, {}, /*FatLTOObjects=*/true}), Names{});
}

TEST_F(LinkInputsTest, ThinLTOBitcodeMembers) {
  file("main.bc", thinBitcode(functionsIR({"main"}, {"use"}) + UnifiedFlags));
  archive("lib.a",
          {{"vt.bc", thinBitcode(std::string(VTableIR) + UnifiedFlags)},
           {"other.bc", thinBitcode(functionsIR({"other"}))}});
  EXPECT_EQ(load({{in("main.bc"), in("lib.a")}, {}}),
            (Names{"main.bc", "lib.a(vt.bc)"}));
}

// Linker scripts (e.g. glibc's libc.so) and other files lld may accept are
// not ulto's business: skipped without an error.
TEST_F(LinkInputsTest, UnknownFilesAreSkipped) {
  file("main.bc", regularBitcode(functionsIR({"main"})));
  file("libc.so", "GROUP ( /lib/libc.so.6 )\n");
  EXPECT_EQ(load({{in("libc.so"), in("main.bc")}, {}}), Names{"main.bc"});
}

// lld names every input it cannot open, with its other errors; the scan
// lists them and goes on.
TEST_F(LinkInputsTest, UnopenableFilesAreListedForLld) {
  file("main.bc", regularBitcode(functionsIR({"main"})));
  Expected<LoadedFiles> Files =
      loadLinkInputs({{in("missing.o"), in("main.bc"), in("gone.a")}, {}});
  ASSERT_TRUE(bool(Files)) << toString(Files.takeError());
  EXPECT_EQ(Files->Unopenable, (std::vector<std::string>{in("missing.o").Path,
                                                         in("gone.a").Path}));
  ASSERT_EQ(Files->Files.size(), 1u);
}

// Resolving symbols reads every file's: what cannot be read is named.
TEST_F(LinkInputsTest, CorruptBitcodeNamesTheFile) {
  writeProgram();
  std::string Good = regularBitcode(functionsIR({"main"}));
  file("bad.bc", StringRef(Good).take_front(64));
  std::string Message = loadError({{in("bad.bc"), in("lib.a")}, {}});
  EXPECT_TRUE(StringRef(Message).starts_with("bad.bc: ")) << Message;
}

// Without resolving, no symbol is read: the file is listed, and the reader
// of its modules (readBitcodeInputs) names it.
TEST_F(LinkInputsTest, CorruptBitcodeIsListedWithoutLazyBitcode) {
  std::string Good = regularBitcode(functionsIR({"main"}));
  file("bad.bc", StringRef(Good).take_front(64));
  EXPECT_EQ(load({{in("bad.bc")}, {}}), Names{"bad.bc"});
}

TEST_F(LinkInputsTest, CorruptMemberNamesArchiveAndMember) {
  std::string Good = regularBitcode(functionsIR({"helper"}));
  archive("lib.a", {{"good.bc", Good},
                    {"bad.bc", std::string(StringRef(Good).take_front(64))}});
  std::string Message = loadError({{in("lib.a")}, {}});
  EXPECT_TRUE(StringRef(Message).starts_with("lib.a(bad.bc): ")) << Message;
}

TEST_F(LinkInputsTest, CorruptArchiveNamesTheArchive) {
  writeProgram();
  std::string Whole = archive(
      "lib.a", {{"helper.bc", regularBitcode(functionsIR({"helper"}))}});
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(Whole);
  ASSERT_TRUE(bool(Buf));
  file("truncated.a", (*Buf)->getBuffer().take_front(70));
  std::string Message = loadError({{in("truncated.a")}, {}});
  EXPECT_TRUE(StringRef(Message).starts_with("truncated.a: ")) << Message;
}

// lld-22 reads every member's own symbols, whatever the archive index says,
// so a member of an archive without an index is extracted when referenced.
TEST_F(LinkInputsTest, ArchiveWithoutIndexStillExtracts) {
  file("main.bc", regularBitcode(functionsIR({"main"}, {"helper"})));
  archive("lib.a", {{"helper.bc", regularBitcode(functionsIR({"helper"}))}},
          /*WithIndex=*/false);
  EXPECT_EQ(load({{in("main.bc"), in("lib.a")}, {}}),
            (Names{"main.bc", "lib.a(helper.bc)"}));
}

} // namespace
