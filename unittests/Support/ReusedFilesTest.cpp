//===- ReusedFilesTest.cpp - Temporary files kept for reuse ---------------===//

#include "ulto/Support/ReusedFiles.h"

#include "Common/ErrorText.h"
#include "Common/Files.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <optional>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

std::optional<ReusedFiles::Lease> take(ReusedFiles &Pool, StringRef Model) {
  Expected<ReusedFiles::Lease> Lease = Pool.take(Model);
  EXPECT_TRUE(bool(Lease)) << errorText(Lease.takeError());
  if (!Lease)
    return std::nullopt;
  return std::move(*Lease);
}

TEST(ReusedFilesTest, AFileGivenBackIsTakenAgainForItsModel) {
  unittest::TempDir Dir("reused", /*Unique=*/true);
  std::string A = (Dir.path() + "/a-%%%%").str(),
              B = (Dir.path() + "/b-%%%%").str();
  ReusedFiles Pool;
  std::string First;
  {
    std::optional<ReusedFiles::Lease> L = take(Pool, A);
    ASSERT_TRUE(L);
    First = L->path().str();
    EXPECT_TRUE(StringRef(First).starts_with((Dir.path() + "/a-").str()));
  }
  std::optional<ReusedFiles::Lease> OtherModel = take(Pool, B);
  std::optional<ReusedFiles::Lease> Again = take(Pool, A);
  std::optional<ReusedFiles::Lease> Second = take(Pool, A);
  ASSERT_TRUE(OtherModel && Again && Second);
  EXPECT_NE(OtherModel->path(), First);
  EXPECT_EQ(Again->path(), First);
  EXPECT_NE(Second->path(), First);
}

TEST(ReusedFilesTest, ThePoolRemovesWhatItMade) {
  unittest::TempDir Dir("reused", /*Unique=*/true);
  {
    ReusedFiles Pool;
    std::optional<ReusedFiles::Lease> L =
        take(Pool, (Dir.path() + "/f-%%%%").str());
    ASSERT_TRUE(L);
    EXPECT_EQ(filesIn(Dir.path(), "f-"), std::vector<std::string>{"temp"});
  }
  EXPECT_EQ(filesIn(Dir.path()), std::vector<std::string>{});
}

TEST(ReusedFilesTest, AnUncreatableFileIsAnErrorNamingTheModel) {
  unittest::TempDir Dir("reused", /*Unique=*/true);
  std::string Model = (Dir.path() + "/missing/f-%%%%").str();
  ReusedFiles Pool;
  std::string Text = errorText(Pool.take(Model).takeError());
  EXPECT_EQ(Text.rfind("'" + Model + "': ", 0), 0u) << Text;
}

} // namespace
