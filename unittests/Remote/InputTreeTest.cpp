//===- InputTreeTest.cpp - Input roots as REAPI Directory trees -----------===//
//
// The root digest names the tree, not the order its files were listed in;
// any change of a name, a content or an executable bit changes it; each
// directory is one Directory blob whose entries are in name order.
//
//===----------------------------------------------------------------------===//

#include "InputTree.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;

namespace {

TreeFile file(StringRef Path, StringRef Bytes, bool Executable = false) {
  return {Path.str(), digestOf(Bytes), Executable};
}

TEST(InputTreeTest, DigestNamesTheTree) {
  std::vector<TreeFile> Files = {
      file("m/0001-b.o", "b"), file("index.thinlto.bc", "i"),
      file("m/0000-a.o", "a"), file("toolchain/bin/clang", "c", true)};
  InputTree Tree = buildInputTree(Files);
  // root, m, toolchain, toolchain/bin
  EXPECT_EQ(Tree.Directories.size(), 4u);
  EXPECT_EQ(Tree.Directories.back().Digest.hash(), Tree.Root.hash());

  std::vector<TreeFile> Reordered(Files.rbegin(), Files.rend());
  EXPECT_EQ(buildInputTree(Reordered).Root.hash(), Tree.Root.hash());

  std::vector<TreeFile> Renamed = Files;
  Renamed[0].Path = "m/0002-b.o";
  EXPECT_NE(buildInputTree(Renamed).Root.hash(), Tree.Root.hash());
  std::vector<TreeFile> Changed = Files;
  Changed[2] = file("m/0000-a.o", "other");
  EXPECT_NE(buildInputTree(Changed).Root.hash(), Tree.Root.hash());
  std::vector<TreeFile> NotExecutable = Files;
  NotExecutable[3].Executable = false;
  EXPECT_NE(buildInputTree(NotExecutable).Root.hash(), Tree.Root.hash());
}

TEST(InputTreeTest, EntriesInNameOrder) {
  InputTree Tree =
      buildInputTree({file("z.o", "z"), file("a.o", "a"), file("m/x", "x")});
  reapi::Directory Root;
  ASSERT_TRUE(Root.ParseFromString(Tree.Directories.back().Bytes));
  ASSERT_EQ(Root.files_size(), 2);
  EXPECT_EQ(Root.files(0).name(), "a.o");
  EXPECT_EQ(Root.files(1).name(), "z.o");
  EXPECT_EQ(Root.files(0).digest().hash(), digestOf("a").hash());
  ASSERT_EQ(Root.directories_size(), 1);
  EXPECT_EQ(Root.directories(0).name(), "m");
  EXPECT_EQ(Root.directories(0).digest().hash(),
            Tree.Directories.front().Digest.hash());
}

TEST(InputTreeTest, DigestIsSHA256) {
  reapi::Digest D = digestOf("abc");
  EXPECT_EQ(D.hash(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(D.size_bytes(), 3);
}

} // namespace
