//===- PrivateOutputTest.cpp - A distributed link's files, the user's alone
//===//

#include "ulto/Link/PrivateOutput.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <sys/stat.h>

using namespace llvm;
using namespace ulto;

namespace {

void write(StringRef Path, StringRef Bytes) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC);
  ASSERT_FALSE(EC) << Path.str();
  OS << Bytes;
}

std::string read(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  return Buffer ? (*Buffer)->getBuffer().str() : "<none>";
}

std::vector<std::string> namesIn(StringRef Dir) {
  std::vector<std::string> Names;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC))
    Names.push_back(sys::path::filename(It->path()).str());
  llvm::sort(Names);
  return Names;
}

TEST(PrivateOutputTest, TheOutputIsRenamedIntoPlaceWithWhatLLDKept) {
  unittest::TempDir Dir("private-output", /*Unique=*/true);
  std::string Output(Dir.path("app"));
  std::optional<PrivateOutput> Private = PrivateOutput::create(Output);
  ASSERT_TRUE(Private);
  StringRef Directory = sys::path::parent_path(Private->path());
  EXPECT_EQ(sys::path::parent_path(Directory), Dir.path());
  EXPECT_EQ(sys::path::filename(Private->path()), "app");
  struct stat Status;
  ASSERT_EQ(::lstat(Directory.str().c_str(), &Status), 0);
  EXPECT_EQ(Status.st_mode & 07777, 0700u);

  write(Private->path(), "program");
  write((Directory + "/app.1.dist-file.json").str(), "kept");
  std::string DirectoryName = Directory.str();
  ASSERT_FALSE(bool(Private->finish(/*Linked=*/true)));
  EXPECT_EQ(read(Output), "program");
  EXPECT_EQ(read(Dir.path("app.1.dist-file.json")), "kept");
  Private.reset();
  EXPECT_FALSE(sys::fs::exists(DirectoryName));
  EXPECT_EQ(namesIn(Dir.path()),
            (std::vector<std::string>{"app", "app.1.dist-file.json"}));
}

TEST(PrivateOutputTest, AFailedLinkLeavesNoOutput) {
  unittest::TempDir Dir("private-output", /*Unique=*/true);
  std::optional<PrivateOutput> Private = PrivateOutput::create(Dir.path("app"));
  ASSERT_TRUE(Private);
  write(Private->path(), "half");
  ASSERT_FALSE(bool(Private->finish(/*Linked=*/false)));
  Private.reset();
  EXPECT_EQ(namesIn(Dir.path()), std::vector<std::string>{});
}

TEST(PrivateOutputTest, AnOutputThatCannotBeReplacedSaysSo) {
  unittest::TempDir Dir("private-output", /*Unique=*/true);
  std::string Output(Dir.path("app"));
  std::optional<PrivateOutput> Private = PrivateOutput::create(Output);
  ASSERT_TRUE(Private);
  ASSERT_FALSE(sys::fs::create_directory(Output));
  write(Private->path(), "program");
  EXPECT_EQ(toString(Private->finish(/*Linked=*/true)),
            "cannot open output file " + Output + ": Is a directory");
}

TEST(PrivateOutputTest, NotForOutputsThatAreNotFiles) {
  EXPECT_FALSE(PrivateOutput::create("-"));
  EXPECT_FALSE(PrivateOutput::create("/dev/null"));
  unittest::TempDir Dir("private-output", /*Unique=*/true);
  EXPECT_FALSE(PrivateOutput::create(Dir.path("missing/app")));
}

} // namespace
