//===- TrustedFileTest.cpp ------------------------------------------------===//

#include "ulto/Support/TrustedFile.h"
#include "gtest/gtest.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Testing/Support/SupportHelpers.h"

#include <pwd.h>
#include <unistd.h>

using namespace llvm;
using namespace ulto;

namespace {

struct stat fileOf(uid_t Owner, gid_t Group, mode_t Mode) {
  struct stat S = {};
  S.st_uid = Owner;
  S.st_gid = Group;
  S.st_mode = S_IFREG | Mode;
  return S;
}

TEST(TrustedFileTest, TheUsersOwnAndNoOneElsesToWrite) {
  EXPECT_EQ(
      untrustedBecause(fileOf(1000, 1000, 0644), 1000, 1000, Owners::User),
      std::nullopt);
  EXPECT_EQ(
      untrustedBecause(fileOf(1001, 1001, 0644), 1000, 1000, Owners::User),
      "it belongs to user 1001");
  EXPECT_EQ(
      untrustedBecause(fileOf(1000, 1000, 0666), 1000, 1000, Owners::User),
      "other users can write it");
  EXPECT_EQ(untrustedBecause(fileOf(1000, 100, 0664), 1000, 1000, Owners::User),
            "group 100 can write it");
  // The user's private group writes as the user does (umask 002).
  EXPECT_EQ(
      untrustedBecause(fileOf(1000, 1000, 0664), 1000, 1000, Owners::User),
      std::nullopt);
  EXPECT_EQ(untrustedBecause(fileOf(1000, 1000, 0664), 1000, std::nullopt,
                             Owners::User),
            "group 1000 can write it");
}

TEST(TrustedFileTest, ProgramsMayBeRoots) {
  EXPECT_EQ(
      untrustedBecause(fileOf(0, 0, 0755), 1000, 1000, Owners::UserOrRoot),
      std::nullopt);
  EXPECT_EQ(untrustedBecause(fileOf(0, 0, 0755), 1000, 1000, Owners::User),
            "it belongs to user 0");
  EXPECT_EQ(
      untrustedBecause(fileOf(0, 0, 0757), 1000, 1000, Owners::UserOrRoot),
      "other users can write it");
}

TEST(TrustedFileTest, ReadsTheUsersFilesOnly) {
  unittest::TempDir Dir("trusted-file", /*Unique=*/true);
  unittest::TempFile List(Dir.path("jobs.json"), "", "{}", /*Unique=*/false);
  Expected<std::unique_ptr<MemoryBuffer>> Read = readTrustedFile(List.path());
  ASSERT_TRUE(bool(Read)) << toString(Read.takeError());
  EXPECT_EQ((*Read)->getBuffer(), "{}");

  ASSERT_FALSE(sys::fs::setPermissions(List.path(), sys::fs::perms(0646)));
  EXPECT_EQ(toString(readTrustedFile(List.path()).takeError()),
            List.path().str() + ": not taken: other users can write it");

  // Not through a link, and not a FIFO (a read would wait for a writer).
  unittest::TempLink Link(List.path(), Dir.path("link.json"));
  EXPECT_EQ(toString(readTrustedFile(Link.path()).takeError()),
            Link.path().str() + ": not taken: it is a symbolic link");
  std::string Fifo(Dir.path("fifo.json"));
  ASSERT_EQ(::mkfifo(Fifo.c_str(), 0600), 0);
  EXPECT_EQ(toString(readTrustedFile(Fifo).takeError()),
            Fifo + ": not taken: not a regular file");
  ::unlink(Fifo.c_str());
}

// What lld wrote for a link: the user's, or in a directory only the user can
// enter, where its mode does not matter; never a link.
TEST(TrustedFileTest, LinkerFilesAreTheUsersOrInAPrivateDirectory) {
  unittest::TempDir Dir("trusted-file", /*Unique=*/true);
  ASSERT_FALSE(sys::fs::setPermissions(Dir.path(), sys::fs::perms(0755)));
  unittest::TempFile Shard(Dir.path("shard.bc"), "", "x", /*Unique=*/false);
  std::optional<gid_t> Group = userPrivateGroup();
  EXPECT_EQ(untrustedLinkerFile(Shard.path(), Group), std::nullopt);
  ASSERT_FALSE(sys::fs::setPermissions(Shard.path(), sys::fs::perms(0666)));
  EXPECT_EQ(untrustedLinkerFile(Shard.path(), Group),
            "other users can write it");
  EXPECT_FALSE(inPrivateDirectory(Shard.path()));
  ASSERT_FALSE(sys::fs::setPermissions(Dir.path(), sys::fs::perms(0700)));
  EXPECT_TRUE(inPrivateDirectory(Shard.path()));
  EXPECT_EQ(untrustedLinkerFile(Shard.path(), Group), std::nullopt);

  unittest::TempLink Link(Shard.path(), Dir.path("link.bc"));
  EXPECT_EQ(untrustedLinkerFile(Link.path(), Group), "it is a symbolic link");
  EXPECT_EQ(untrustedLinkerFile(Dir.path("missing.bc"), Group), std::nullopt);
}

TEST(TrustedFileTest, GroupMembersByPrimaryGroupOrMembership) {
  struct passwd *Me = ::getpwuid(::geteuid());
  ASSERT_NE(Me, nullptr);
  EXPECT_TRUE(isGroupMember(::geteuid(), Me->pw_gid));
  // No such user belongs to any group.
  EXPECT_FALSE(isGroupMember(uid_t(4000000000u), Me->pw_gid));
}

TEST(TrustedFileTest, RemovesTheUsersFilesOnly) {
  unittest::TempDir Dir("trusted-file", /*Unique=*/true);
  unittest::TempFile File(Dir.path("mine"), "", "x", /*Unique=*/false);
  std::string Mine(File.path()), Link(Dir.path("link"));
  ASSERT_EQ(::symlink(Mine.c_str(), Link.c_str()), 0);
  EXPECT_TRUE(removeOwnFile(Link)); // The link, not its target.
  EXPECT_TRUE(sys::fs::exists(Mine));
  EXPECT_FALSE(removeOwnFile(Link));
  if (::geteuid() != 0)
    return;
  ASSERT_EQ(::chown(Mine.c_str(), 65534, 65534), 0);
  EXPECT_FALSE(removeOwnFile(Mine));
  EXPECT_TRUE(sys::fs::exists(Mine));
}

} // namespace
