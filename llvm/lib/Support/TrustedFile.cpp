//===- TrustedFile.cpp - Files a user may take instructions from ----------===//

#include "ulto/Support/TrustedFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>
#include <vector>

using namespace llvm;

namespace ulto {

std::optional<std::string> untrustedBecause(const struct stat &Status,
                                            uid_t User,
                                            std::optional<gid_t> UserGroup,
                                            Owners Allowed) {
  if (Status.st_uid != User &&
      !(Allowed == Owners::UserOrRoot && Status.st_uid == 0))
    return ("it belongs to user " + Twine(Status.st_uid)).str();
  if (Status.st_mode & S_IWOTH)
    return std::string("other users can write it");
  if ((Status.st_mode & S_IWGRP) && Status.st_gid != UserGroup)
    return ("group " + Twine(Status.st_gid) + " can write it").str();
  return std::nullopt;
}

std::optional<gid_t> userPrivateGroup() {
  struct passwd *User = ::getpwuid(::geteuid());
  if (!User)
    return std::nullopt;
  struct group *Group = ::getgrgid(User->pw_gid);
  if (!Group || std::strcmp(Group->gr_name, User->pw_name) != 0)
    return std::nullopt;
  return Group->gr_gid;
}

bool inPrivateDirectory(StringRef Path) {
  SmallString<256> Directory(sys::path::parent_path(Path));
  if (Directory.empty())
    Directory = ".";
  struct stat Status;
  return ::lstat(Directory.c_str(), &Status) == 0 && S_ISDIR(Status.st_mode) &&
         Status.st_uid == ::geteuid() && (Status.st_mode & 077) == 0;
}

std::optional<std::string> untrustedLinkerFile(StringRef Path,
                                               std::optional<gid_t> UserGroup) {
  struct stat Status;
  if (::lstat(Path.str().c_str(), &Status) != 0)
    return std::nullopt;
  if (S_ISLNK(Status.st_mode))
    return std::string("it is a symbolic link");
  if (!S_ISREG(Status.st_mode))
    return std::string("not a regular file");
  std::optional<std::string> Why =
      untrustedBecause(Status, ::geteuid(), UserGroup, Owners::User);
  if (Why && inPrivateDirectory(Path))
    return std::nullopt;
  return Why;
}

bool isGroupMember(uid_t User, gid_t Group) {
  std::vector<char> Buffer(16384);
  struct passwd Entry, *Found = nullptr;
  if (::getpwuid_r(User, &Entry, Buffer.data(), Buffer.size(), &Found) != 0 ||
      !Found)
    return false;
  if (Found->pw_gid == Group)
    return true;
  std::string Name = Found->pw_name;
  struct group GroupEntry, *FoundGroup = nullptr;
  // Groups of many members need more room.
  for (size_t Size = 16384; Size <= (size_t(1) << 24); Size *= 4) {
    Buffer.resize(Size);
    int Err = ::getgrgid_r(Group, &GroupEntry, Buffer.data(), Buffer.size(),
                           &FoundGroup);
    if (Err == ERANGE)
      continue;
    if (Err != 0 || !FoundGroup)
      return false;
    for (char **Member = FoundGroup->gr_mem; *Member; ++Member)
      if (Name == *Member)
        return true;
    return false;
  }
  return false;
}

Expected<std::unique_ptr<MemoryBuffer>> readTrustedFile(StringRef Path) {
  auto Fail = [&](const Twine &Why) {
    return createStringError("%s: %s", Path.str().c_str(), Why.str().c_str());
  };
  int FD;
  do
    FD = ::open(Path.str().c_str(),
                O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  while (FD < 0 && errno == EINTR);
  if (FD < 0)
    return Fail(errno == ELOOP ? "not taken: it is a symbolic link"
                               : std::strerror(errno));
  struct stat Status = {};
  if (::fstat(FD, &Status) != 0 || !S_ISREG(Status.st_mode)) {
    ::close(FD);
    return Fail(S_ISDIR(Status.st_mode) ? std::strerror(EISDIR)
                                        : "not taken: not a regular file");
  }
  std::optional<std::string> Why =
      untrustedBecause(Status, ::geteuid(), userPrivateGroup(), Owners::User);
  if (Why && !inPrivateDirectory(Path)) {
    ::close(FD);
    return Fail("not taken: " + *Why);
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getOpenFile(
      FD, Path, Status.st_size, /*RequiresNullTerminator=*/false);
  ::close(FD);
  if (!Buffer)
    return Fail(Buffer.getError().message());
  return std::move(*Buffer);
}

Error checkTrustedProgram(StringRef Path) {
  struct stat Status;
  if (::stat(Path.str().c_str(), &Status) != 0)
    return Error::success(); // Not there: running it says so.
  if (std::optional<std::string> Why = untrustedBecause(
          Status, ::geteuid(), userPrivateGroup(), Owners::UserOrRoot))
    return createStringError("%s: not run: %s", Path.str().c_str(),
                             Why->c_str());
  return Error::success();
}

bool removeOwnFile(StringRef Path) {
  std::string P = Path.str();
  struct stat Status;
  return ::lstat(P.c_str(), &Status) == 0 && Status.st_uid == ::geteuid() &&
         ::unlink(P.c_str()) == 0;
}

} // namespace ulto
