//===- ExchangeWriterTest.cpp - Replace files whole, reusing inodes -------===//

#include "ulto/Support/ExchangeWriter.h"
#include "ulto/Support/AtomicFile.h"

#include "Common/ErrorText.h"
#include "Common/Files.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

// The directory's files, by name; the writer's temporary files as "temp".
std::vector<std::string> filesIn(StringRef Dir) {
  return test::filesIn(Dir, ".ulto-exchange-");
}

uint64_t inode(StringRef Path) {
  sys::fs::file_status Status;
  EXPECT_FALSE(sys::fs::status(Path, Status));
  return Status.getUniqueID().getFile();
}

void write(StringRef Path, StringRef Bytes) {
  ASSERT_EQ(errorText(writeAtomically(Path, Bytes)), "");
}

TEST(ExchangeWriterTest, ReplacedFilesTradeInodes) {
  unittest::TempDir Dir("exchange", /*Unique=*/true);
  std::string A = (Dir.path() + "/a").str(), B = (Dir.path() + "/b").str();
  write(A, "lld's a");
  write(B, "lld's b");
  uint64_t InodeA = inode(A);
  {
    ExchangeWriter Writer;
    ASSERT_EQ(errorText(Writer.replace(A, "completed a")), "");
    EXPECT_EQ(readFile(A), "completed a");
    // a's old inode is the temporary file now; b gets it.
    EXPECT_EQ(filesIn(Dir.path()),
              (std::vector<std::string>{"a", "b", "temp"}));
    ASSERT_EQ(errorText(Writer.replace(B, "completed b")), "");
    EXPECT_EQ(readFile(B), "completed b");
    EXPECT_EQ(inode(B), InodeA);
    EXPECT_EQ(filesIn(Dir.path()),
              (std::vector<std::string>{"a", "b", "temp"}));
  }
  EXPECT_EQ(filesIn(Dir.path()), (std::vector<std::string>{"a", "b"}));
}

TEST(ExchangeWriterTest, AMissingFileIsWrittenAsNew) {
  unittest::TempDir Dir("exchange", /*Unique=*/true);
  std::string A = (Dir.path() + "/a").str();
  ExchangeWriter Writer;
  ASSERT_EQ(errorText(Writer.replace(A, "new")), "");
  EXPECT_EQ(readFile(A), "new");
  EXPECT_EQ(filesIn(Dir.path()), std::vector<std::string>{"a"});
}

TEST(ExchangeWriterTest, AFailedWriteKeepsWhatWasThere) {
  unittest::TempDir Dir("exchange", /*Unique=*/true);
  std::string A = (Dir.path() + "/a").str();
  write(A, "old");
  ExchangeWriter Writer;
  Error E = Error::success();
  withSmallFileLimit([&] {
    consumeError(std::move(E));
    E = Writer.replace(A, std::string(1 << 20, 'x'));
  });
  EXPECT_EQ(errorText(std::move(E)), "'" + A + "': File too large");
  EXPECT_EQ(readFile(A), "old");
}

} // namespace
