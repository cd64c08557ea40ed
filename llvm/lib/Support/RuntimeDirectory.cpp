//===- RuntimeDirectory.cpp - The user's directories for live state -------===//

#include "ulto/Support/RuntimeDirectory.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace ulto {

// Whether \p Path is absent, or a directory of the user's.
static bool isFreeOrOwn(StringRef Path) {
  struct stat Status;
  if (::lstat(Path.str().c_str(), &Status) != 0)
    return errno == ENOENT;
  return S_ISDIR(Status.st_mode) && Status.st_uid == ::getuid();
}

std::string userRuntimeDirectory(StringRef Name) {
  SmallString<128> Path;
  std::optional<std::string> Runtime = sys::Process::GetEnv("XDG_RUNTIME_DIR");
  if (Runtime && !Runtime->empty()) {
    sys::path::append(Path, *Runtime, Name);
    return std::string(Path);
  }
  sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Path);
  sys::path::append(Path, Name + "-" + Twine(::getuid()));
  // Anyone can take that name first: then the home directory, which only
  // the user can write, under this machine's name (it may be shared).
  SmallString<128> Home;
  char Host[256] = {};
  if (isFreeOrOwn(Path) || !sys::path::home_directory(Home) ||
      ::gethostname(Host, sizeof(Host) - 1) != 0)
    return std::string(Path);
  sys::path::append(Home, ".cache", "ulto", Name + "-" + Twine(Host));
  return std::string(Home);
}

bool isTakenDirectory(StringRef Directory) {
  struct stat Status;
  return ::lstat(Directory.str().c_str(), &Status) == 0 &&
         !(S_ISDIR(Status.st_mode) && Status.st_uid == ::getuid());
}

Error makePrivateDirectory(StringRef Directory) {
  if (std::error_code EC = sys::fs::create_directories(
          Directory, /*IgnoreExisting=*/true, sys::fs::perms::owner_all))
    return createStringError(EC, "cannot create it: " + EC.message());
  struct stat Status;
  if (::lstat(Directory.str().c_str(), &Status) != 0)
    return createStringError(sys::StrError(errno));
  if (!S_ISDIR(Status.st_mode))
    return createStringError("not a directory");
  if (Status.st_uid != ::getuid())
    return createStringError("owned by another user");
  return Error::success();
}

} // namespace ulto
