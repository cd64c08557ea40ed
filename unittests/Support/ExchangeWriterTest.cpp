//===- ExchangeWriterTest.cpp - Replace files whole, reusing inodes -------===//

#include "ulto/Support/ExchangeWriter.h"

#include "Common/ErrorText.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <csignal>
#include <sys/resource.h>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

std::string readFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  return Buffer ? (*Buffer)->getBuffer().str() : "<none>";
}

// The directory's files, by name; the writer's temporary files as "temp".
std::vector<std::string> filesIn(StringRef Dir) {
  std::vector<std::string> Names;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    Names.push_back(Name.starts_with(".ulto-exchange-") ? "temp" : Name.str());
  }
  llvm::sort(Names);
  return Names;
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
  struct rlimit Saved;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &Saved), 0);
  struct rlimit Small = Saved;
  Small.rlim_cur = 4096;
  auto OldHandler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &Small), 0);
  Error E = Writer.replace(A, std::string(1 << 20, 'x'));
  ::setrlimit(RLIMIT_FSIZE, &Saved);
  std::signal(SIGXFSZ, OldHandler);
  EXPECT_EQ(errorText(std::move(E)), "'" + A + "': File too large");
  EXPECT_EQ(readFile(A), "old");
}

} // namespace
