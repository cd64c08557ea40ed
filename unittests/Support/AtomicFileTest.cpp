//===- AtomicFileTest.cpp - Whole or not at all ---------------------------===//
//
// A write that fails half-way (here: past RLIMIT_FSIZE, as a full disk would
// fail it) leaves the path as it was and no temporary file beside it, whoever
// is to remove the temporary file on a signal. A path that is not a file
// (/dev/null, a FIFO) is written to, never replaced. Written in place of a
// donor file, the file is the donor's inode; a donor that is not a regular file
// of one link is left as it is.
//
//===----------------------------------------------------------------------===//

#include "ulto/Support/AtomicFile.h"

#include "Common/ErrorText.h"
#include "Common/Files.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Signals.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

class AtomicFileTest : public ::testing::TestWithParam<OnSignal> {};

TEST_P(AtomicFileTest, WritesTheWholeFile) {
  unittest::TempDir Dir("atomic", /*Unique=*/true);
  std::string Path = (Dir.path() + "/out").str();
  EXPECT_EQ(errorText(writeAtomically(Path, "old", GetParam())), "");
  EXPECT_EQ(errorText(writeAtomically(Path, "new", GetParam())), "");
  EXPECT_EQ(readFile(Path), "new");
  EXPECT_EQ(filesIn(Dir.path()), std::vector<std::string>{"out"});
}

TEST_P(AtomicFileTest, AFailedWriteKeepsWhatWasThere) {
  unittest::TempDir Dir("atomic", /*Unique=*/true);
  std::string Path = (Dir.path() + "/out").str();
  ASSERT_EQ(errorText(writeAtomically(Path, "old", GetParam())), "");

  Error E = Error::success();
  withSmallFileLimit([&] {
    consumeError(std::move(E));
    E = writeAtomically(Path, std::string(1 << 20, 'x'), GetParam());
  });

  EXPECT_EQ(errorText(std::move(E)), "'" + Path + "': File too large");
  EXPECT_EQ(readFile(Path), "old");
  EXPECT_EQ(filesIn(Dir.path()), std::vector<std::string>{"out"});
}

// A FIFO (like /dev/null, not a file to replace) is written to, and stays.
TEST_P(AtomicFileTest, AFIFOIsWrittenToNotReplaced) {
  unittest::TempDir Dir("atomic", /*Unique=*/true);
  std::string Path = (Dir.path() + "/fifo").str();
  ASSERT_EQ(::mkfifo(Path.c_str(), 0600), 0);
  // Its read end open first, so that the write neither blocks nor fails;
  // the bytes fit the pipe's buffer.
  int ReadEnd = ::open(Path.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(ReadEnd, 0);
  EXPECT_EQ(errorText(writeAtomically(Path, "through", GetParam())), "");
  char Read[16] = {};
  EXPECT_EQ(::read(ReadEnd, Read, sizeof(Read)), 7);
  ::close(ReadEnd);
  EXPECT_EQ(StringRef(Read), "through");
  sys::fs::file_status Status;
  ASSERT_FALSE(sys::fs::status(Path, Status));
  EXPECT_EQ(Status.type(), sys::fs::file_type::fifo_file);
  EXPECT_EQ(filesIn(Dir.path()), std::vector<std::string>{"fifo"});
}

TEST_P(AtomicFileTest, AnUncreatableFileIsAnErrorNamingIt) {
  unittest::TempDir Dir("atomic", /*Unique=*/true);
  std::string Path = (Dir.path() + "/missing/out").str();
  std::string Text = errorText(writeAtomically(Path, "x", GetParam()));
  EXPECT_EQ(Text.rfind("'" + Path + "': ", 0), 0u) << Text;
  EXPECT_FALSE(sys::fs::exists(Path));
}

// Where others may have put something at the name (a cache, a job's
// object): a FIFO is replaced, not waited on; a link is replaced, its target
// left alone.
TEST_P(AtomicFileTest, WhatIsThereIsReplacedWhenAsked) {
  unittest::TempDir Dir("atomic", /*Unique=*/true);
  std::string Fifo = (Dir.path() + "/fifo").str();
  ASSERT_EQ(::mkfifo(Fifo.c_str(), 0600), 0);
  EXPECT_EQ(errorText(writeAtomically(Fifo, "file", GetParam(),
                                      Existing::Replace)),
            "");
  EXPECT_EQ(readFile(Fifo), "file");

  std::string Victim = (Dir.path() + "/victim").str(),
              Link = (Dir.path() + "/link").str();
  ASSERT_EQ(errorText(writeAtomically(Victim, "mine", GetParam())), "");
  ASSERT_FALSE(sys::fs::create_link(Victim, Link));
  EXPECT_EQ(errorText(writeAtomically(Link, "file", GetParam(),
                                      Existing::Replace)),
            "");
  EXPECT_EQ(readFile(Victim), "mine");
  EXPECT_EQ(readFile(Link), "file");
  sys::fs::file_status Status;
  ASSERT_FALSE(sys::fs::status(Link, Status, /*Follow=*/false));
  EXPECT_EQ(Status.type(), sys::fs::file_type::regular_file);
  EXPECT_EQ(filesIn(Dir.path()),
            (std::vector<std::string>{"fifo", "link", "victim"}));
}

INSTANTIATE_TEST_SUITE_P(EitherCleanup, AtomicFileTest,
                         ::testing::Values(OnSignal::RemoveTemporary,
                                           OnSignal::CallerWaits));

// An interrupt in the middle of the write: LLVM's handlers remove a
// registered temporary file, so the write fails; one the caller waits for is
// left to the write, which completes.
TEST(AtomicFileCleanupTest, OnlyARegisteredTemporaryGoesOnAnInterrupt) {
  unittest::TempDir Dir("atomic", /*Unique=*/true);
  auto WriteInterrupted = [&](StringRef Name, OnSignal Cleanup) {
    std::string Path = (Dir.path() + "/" + Name).str();
    return errorText(writeAtomically(
        Path,
        [](raw_ostream &OS) {
          OS << "text";
          sys::RunInterruptHandlers();
        },
        Cleanup));
  };
  EXPECT_NE(WriteInterrupted("registered", OnSignal::RemoveTemporary), "");
  EXPECT_EQ(WriteInterrupted("waited-for", OnSignal::CallerWaits), "");
  EXPECT_EQ(readFile((Dir.path() + "/waited-for").str()), "text");
  EXPECT_EQ(filesIn(Dir.path()), std::vector<std::string>{"waited-for"});
}

} // namespace
