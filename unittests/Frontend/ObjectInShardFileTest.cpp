//===- ObjectInShardFileTest.cpp - The object in its shard's file ---------===//
//
// The job's object, once kept, is written into its shard's file: the same
// inode, the shard gone. Every other output, and an object whose shard cannot
// be taken, is written as clang's on-disk outputs are; a discarded object
// leaves the shard as it was.
//
//===----------------------------------------------------------------------===//

#include "ulto/Frontend/ObjectInShardFile.h"

#include "Common/ErrorText.h"
#include "Common/Files.h"
#include "llvm/Support/VirtualOutputFile.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <sys/stat.h>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

class ObjectInShardFileTest : public ::testing::Test {
protected:
  ObjectInShardFileTest() : Dir("object-in-shard", /*Unique=*/true) {
    std::error_code EC;
    raw_fd_ostream(Shard, EC) << "index shard";
    EXPECT_FALSE(EC);
  }

  // Writes \p Bytes to \p Path through the backend, and keeps or discards it.
  std::string write(StringRef Path, StringRef Bytes, bool Keep = true) {
    Expected<vfs::OutputFile> File =
        objectInShardFile(Object, Shard)->createFile(Path);
    if (!File)
      return errorText(File.takeError());
    File->getOS() << Bytes;
    return errorText(Keep ? File->keep() : File->discard());
  }

  ino_t inodeOf(const std::string &Path) {
    struct stat St;
    return lstat(Path.c_str(), &St) == 0 ? St.st_ino : 0;
  }

  unittest::TempDir Dir;
  std::string Object = (Dir.path() + "/a.1.native.o").str();
  std::string Shard = Object + ".thinlto.bc";
};

TEST_F(ObjectInShardFileTest, TheObjectTakesItsShardsFile) {
  ino_t ShardInode = inodeOf(Shard);
  EXPECT_EQ(write(Object, "object"), "");
  EXPECT_EQ(readFile(Object), "object");
  EXPECT_EQ(inodeOf(Object), ShardInode);
  EXPECT_EQ(filesIn(Dir.path()), std::vector<std::string>{"a.1.native.o"});
}

TEST_F(ObjectInShardFileTest, OtherOutputsAreWrittenAsClangWritesThem) {
  std::string Other = (Dir.path() + "/a.1.native.dwo").str();
  EXPECT_EQ(write(Other, "debug info"), "");
  EXPECT_EQ(readFile(Other), "debug info");
  EXPECT_EQ(readFile(Shard), "index shard");
}

TEST_F(ObjectInShardFileTest, WithoutItsShardTheObjectIsWrittenAnyway) {
  ASSERT_FALSE(sys::fs::remove(Shard));
  EXPECT_EQ(write(Object, "object"), "");
  EXPECT_EQ(readFile(Object), "object");
  EXPECT_EQ(filesIn(Dir.path()), std::vector<std::string>{"a.1.native.o"});
}

TEST_F(ObjectInShardFileTest, ADiscardedObjectLeavesTheShard) {
  EXPECT_EQ(write(Object, "object", /*Keep=*/false), "");
  EXPECT_EQ(readFile(Shard), "index shard");
  EXPECT_EQ(filesIn(Dir.path()),
            std::vector<std::string>{"a.1.native.o.thinlto.bc"});
}

} // namespace
