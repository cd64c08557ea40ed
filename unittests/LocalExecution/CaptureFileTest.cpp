//===- CaptureFileTest.cpp - The file of a job's stdout and stderr --------===//

#include "ulto/LocalExecution/CaptureFile.h"

#include "Common/ErrorText.h"
#include "Common/Files.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

#include <optional>
#include <string>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

std::optional<CaptureFile> create() {
  Expected<CaptureFile> File = CaptureFile::create();
  EXPECT_TRUE(bool(File)) << errorText(File.takeError());
  if (!File)
    return std::nullopt;
  return std::move(*File);
}

TEST(CaptureFileTest, IsNewEmptyAndTheUsersAlone) {
  std::optional<CaptureFile> A = create(), B = create();
  ASSERT_TRUE(A && B);
  EXPECT_NE(A->path(), B->path());
  EXPECT_EQ(readFile(A->path()), "");
  sys::fs::file_status Status;
  ASSERT_FALSE(sys::fs::status(A->path(), Status));
  EXPECT_EQ(Status.permissions(), sys::fs::owner_read | sys::fs::owner_write);
}

TEST(CaptureFileTest, GoesWithItsObject) {
  std::string Path;
  {
    std::optional<CaptureFile> A = create();
    ASSERT_TRUE(A);
    Path = A->path().str();
    std::optional<CaptureFile> Moved = std::move(A);
    A.reset();
    EXPECT_TRUE(sys::fs::exists(Path));
  }
  EXPECT_FALSE(sys::fs::exists(Path));
}

} // namespace
