//===- CaptureFilesTest.cpp - Files for the jobs' stdout and stderr -------===//

#include "ulto/Distributor/CaptureFiles.h"

#include "Common/ErrorText.h"
#include "Common/Files.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <optional>
#include <string>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

std::optional<CaptureFiles::Lease> take(CaptureFiles &Pool) {
  Expected<CaptureFiles::Lease> Lease = Pool.take();
  EXPECT_TRUE(bool(Lease)) << errorText(Lease.takeError());
  if (!Lease)
    return std::nullopt;
  return std::move(*Lease);
}

void append(StringRef Path, StringRef Text) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_Append);
  ASSERT_FALSE(EC) << EC.message();
  OS << Text;
}

TEST(CaptureFilesTest, AReturnedFileIsReusedEmpty) {
  CaptureFiles Pool;
  std::string First;
  {
    std::optional<CaptureFiles::Lease> A = take(Pool);
    ASSERT_TRUE(A);
    First = A->path().str();
    EXPECT_EQ(readFile(First), "");
    append(First, "a long first job's output\n");
  }
  std::optional<CaptureFiles::Lease> B = take(Pool);
  ASSERT_TRUE(B);
  EXPECT_EQ(B->path(), First);
  EXPECT_EQ(readFile(First), "");
}

TEST(CaptureFilesTest, LeasesHeldAtOnceHaveTheirOwnFiles) {
  CaptureFiles Pool;
  std::optional<CaptureFiles::Lease> A = take(Pool);
  std::optional<CaptureFiles::Lease> B = take(Pool);
  ASSERT_TRUE(A && B);
  EXPECT_NE(A->path(), B->path());
  append(A->path(), "a");
  append(B->path(), "b");
  EXPECT_EQ(readFile(A->path()), "a");
  EXPECT_EQ(readFile(B->path()), "b");
}

TEST(CaptureFilesTest, AFileRemovedMeanwhileIsCreatedAgain) {
  // An interrupt's handler removes the captures while jobs may still start.
  CaptureFiles Pool;
  std::string Path;
  {
    std::optional<CaptureFiles::Lease> A = take(Pool);
    ASSERT_TRUE(A);
    Path = A->path().str();
  }
  ASSERT_FALSE(sys::fs::remove(Path));
  std::optional<CaptureFiles::Lease> B = take(Pool);
  ASSERT_TRUE(B);
  EXPECT_EQ(B->path(), Path);
  EXPECT_TRUE(sys::fs::exists(Path));
}

TEST(CaptureFilesTest, ThePoolRemovesItsFiles) {
  std::vector<std::string> Paths;
  {
    CaptureFiles Pool;
    std::optional<CaptureFiles::Lease> A = take(Pool);
    std::optional<CaptureFiles::Lease> B = take(Pool);
    ASSERT_TRUE(A && B);
    Paths = {A->path().str(), B->path().str()};
    A.reset();
    B.reset();
  }
  for (const std::string &Path : Paths)
    EXPECT_FALSE(sys::fs::exists(Path)) << Path;
}

} // namespace
