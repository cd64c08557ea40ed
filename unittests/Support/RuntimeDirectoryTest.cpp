//===- RuntimeDirectoryTest.cpp - The user's directories for live state ---===//

#include "ulto/Support/RuntimeDirectory.h"

#include "Common/ErrorText.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

// Sets $XDG_RUNTIME_DIR (or unsets it) for one test.
class RuntimeDirScope {
public:
  explicit RuntimeDirScope(const char *Value) {
    if (const char *Old = std::getenv("XDG_RUNTIME_DIR"))
      Saved = Old;
    if (Value)
      ::setenv("XDG_RUNTIME_DIR", Value, 1);
    else
      ::unsetenv("XDG_RUNTIME_DIR");
  }
  ~RuntimeDirScope() {
    if (Saved)
      ::setenv("XDG_RUNTIME_DIR", Saved->c_str(), 1);
    else
      ::unsetenv("XDG_RUNTIME_DIR");
  }

private:
  std::optional<std::string> Saved;
};

TEST(RuntimeDirectoryTest, IsInTheUsersRuntimeDirectoryElseNamedForTheUser) {
  {
    RuntimeDirScope Scope("/run/user/1234");
    EXPECT_EQ(userRuntimeDirectory("ulto-x"), "/run/user/1234/ulto-x");
  }
  RuntimeDirScope Scope(nullptr);
  std::string Path = userRuntimeDirectory("ulto-x");
  EXPECT_TRUE(StringRef(Path).ends_with("/ulto-x-" + std::to_string(getuid())))
      << Path;
}

TEST(RuntimeDirectoryTest, IsMadePrivateOnce) {
  unittest::TempDir Dir("runtime", /*Unique=*/true);
  std::string Private = (Dir.path() + "/a/b").str();
  ASSERT_EQ(errorText(makePrivateDirectory(Private)), "");
  struct stat Status;
  ASSERT_EQ(::stat(Private.c_str(), &Status), 0);
  EXPECT_EQ(Status.st_mode & 0777, 0700u);
  EXPECT_EQ(errorText(makePrivateDirectory(Private)), "");
}

TEST(RuntimeDirectoryTest, RefusesWhatIsNoDirectoryOfItsOwn) {
  unittest::TempDir Dir("runtime", /*Unique=*/true);
  std::string File = (Dir.path() + "/file").str();
  std::string Link = (Dir.path() + "/link").str();
  ASSERT_FALSE(sys::fs::create_directory(Dir.path() + "/target"));
  ASSERT_FALSE(sys::fs::create_link(Dir.path() + "/target", Link));
  {
    int FD;
    ASSERT_FALSE(sys::fs::openFileForWrite(File, FD));
    ::close(FD);
  }
  EXPECT_EQ(errorText(makePrivateDirectory(File)), "not a directory");
  EXPECT_EQ(errorText(makePrivateDirectory(Link)), "not a directory");
}

} // namespace
