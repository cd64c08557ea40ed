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

// Sets an environment variable (or unsets it) for one test.
class EnvScope {
public:
  EnvScope(const char *Name, std::optional<std::string> Value) : Name(Name) {
    if (const char *Old = std::getenv(Name))
      Saved = Old;
    set(Value);
  }
  ~EnvScope() { set(Saved); }

private:
  void set(const std::optional<std::string> &Value) {
    if (Value)
      ::setenv(Name, Value->c_str(), 1);
    else
      ::unsetenv(Name);
  }
  const char *Name;
  std::optional<std::string> Saved;
};

TEST(RuntimeDirectoryTest, IsInTheUsersRuntimeDirectoryElseNamedForTheUser) {
  {
    EnvScope Scope("XDG_RUNTIME_DIR", "/run/user/1234");
    EXPECT_EQ(userRuntimeDirectory("ulto-x"), "/run/user/1234/ulto-x");
  }
  EnvScope Scope("XDG_RUNTIME_DIR", std::nullopt);
  std::string Path = userRuntimeDirectory("ulto-x");
  EXPECT_TRUE(StringRef(Path).ends_with("/ulto-x-" + std::to_string(getuid())))
      << Path;
}

// A name in /tmp that another user took first costs nothing: the
// directory is then in the user's home.
TEST(RuntimeDirectoryTest, ANameAnotherUserTookMovesHome) {
  if (::getuid() != 0)
    GTEST_SKIP() << "needs root to make another user's directory";
  unittest::TempDir Dir("runtime", /*Unique=*/true);
  EnvScope Scope("XDG_RUNTIME_DIR", std::nullopt);
  std::string Tmp = (Dir.path() + "/tmp").str(),
              Home = (Dir.path() + "/home").str();
  ASSERT_EQ(::mkdir(Tmp.c_str(), 01777), 0);
  EnvScope TmpScope("TMPDIR", Tmp), HomeScope("HOME", Home);
  std::string Usual = Tmp + "/ulto-x-" + std::to_string(getuid());
  EXPECT_EQ(userRuntimeDirectory("ulto-x"), Usual);
  ASSERT_EQ(::mkdir(Usual.c_str(), 0777), 0);
  EXPECT_EQ(userRuntimeDirectory("ulto-x"), Usual); // The user's own.
  ASSERT_EQ(::chown(Usual.c_str(), 65534, 65534), 0);
  std::string Moved = userRuntimeDirectory("ulto-x");
  EXPECT_TRUE(StringRef(Moved).starts_with(Home + "/.cache/ulto/ulto-x-"))
      << Moved;
  EXPECT_EQ(errorText(makePrivateDirectory(Moved)), "");
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
  // Taken, unlike a directory of the user's, or none.
  EXPECT_TRUE(isTakenDirectory(File));
  EXPECT_TRUE(isTakenDirectory(Link));
  EXPECT_FALSE(isTakenDirectory((Dir.path() + "/target").str()));
  EXPECT_FALSE(isTakenDirectory((Dir.path() + "/none").str()));
}

} // namespace
