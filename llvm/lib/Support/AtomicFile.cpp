//===- AtomicFile.cpp - A file written whole or not at all ----------------===//

#include "ulto/Support/AtomicFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"

#include <cstdio>
#include <fcntl.h>
#include <optional>
#include <sys/stat.h>

using namespace llvm;

namespace ulto {

namespace {

SmallString<128> temporaryModel(StringRef Path) {
  SmallString<128> Model(Path);
  Model += ".tmp-%%%%%%";
  return Model;
}

// Whether \p FD is a regular file with no other link.
bool isLoneRegularFile(int FD) {
  struct stat St;
  return fstat(FD, &St) == 0 && S_ISREG(St.st_mode) && St.st_nlink == 1;
}

// The temporary file next to the destination: LLVM's TempFile, or the same
// without its registration for removal on a signal.
class Temporary {
public:
  static Expected<Temporary> create(StringRef Path, OnSignal Cleanup) {
    Temporary T;
    SmallString<128> Model = temporaryModel(Path);
    if (Cleanup == OnSignal::RemoveTemporary) {
      Expected<sys::fs::TempFile> File = sys::fs::TempFile::create(Model);
      if (!File)
        return File.takeError();
      T.FD = File->FD;
      T.Registered.emplace(std::move(*File));
    } else if (std::error_code EC =
                   sys::fs::createUniqueFile(Model, T.FD, T.Unregistered)) {
      return errorCodeToError(EC);
    }
    return T;
  }

  int fd() const { return FD; }

  void discard() {
    if (Registered) {
      consumeError(Registered->discard());
      return;
    }
    sys::Process::SafelyCloseFileDescriptor(FD);
    sys::fs::remove(Unregistered);
  }

  Error keep(StringRef Path) {
    if (Registered)
      return Registered->keep(Path);
    sys::Process::SafelyCloseFileDescriptor(FD);
    if (std::error_code EC = sys::fs::rename(Unregistered, Path)) {
      sys::fs::remove(Unregistered);
      return errorCodeToError(EC);
    }
    return Error::success();
  }

private:
  int FD = -1;
  std::optional<sys::fs::TempFile> Registered;
  SmallString<128> Unregistered;
};

} // namespace

Error writeAtomically(StringRef Path, function_ref<void(raw_ostream &)> Write,
                      OnSignal Cleanup) {
  if (Path == "-") {
    Write(outs());
    outs().flush();
    return Error::success();
  }
  Expected<Temporary> Temp = Temporary::create(Path, Cleanup);
  if (!Temp)
    return createFileError(Path, Temp.takeError());
  std::error_code EC;
  {
    raw_fd_ostream OS(Temp->fd(), /*shouldClose=*/false);
    Write(OS);
    OS.flush();
    EC = OS.error();
    // Reported here, not by the stream's destructor (a fatal error).
    OS.clear_error();
  }
  if (EC) {
    Temp->discard();
    return createFileError(Path, EC);
  }
  if (Error E = Temp->keep(Path))
    return createFileError(Path, std::move(E));
  return Error::success();
}

Error writeAtomically(StringRef Path, StringRef Bytes, OnSignal Cleanup) {
  return writeAtomically(Path, [&](raw_ostream &OS) { OS << Bytes; }, Cleanup);
}

std::error_code overwriteFile(int FD, StringRef Bytes) {
  raw_fd_ostream OS(FD, /*shouldClose=*/true);
  OS << Bytes;
  OS.flush();
  std::error_code EC = OS.error();
  if (!EC)
    EC = sys::fs::resize_file(FD, Bytes.size());
  OS.close();
  if (!EC)
    EC = OS.error();
  // Reported here, not by the stream's destructor (a fatal error).
  OS.clear_error();
  return EC;
}

bool writeAtomicallyInPlaceOf(StringRef Donor, StringRef Path, StringRef Bytes,
                              OnSignal Cleanup) {
  std::string From = Donor.str();
  struct stat St;
  if (Path == "-" || lstat(From.c_str(), &St) != 0 || !S_ISREG(St.st_mode) ||
      St.st_nlink != 1)
    return false;
  SmallString<128> Temp;
  sys::fs::createUniquePath(temporaryModel(Path), Temp, /*MakeAbsolute=*/false);
  if (renameat2(AT_FDCWD, From.c_str(), AT_FDCWD, Temp.c_str(),
                RENAME_NOREPLACE) != 0)
    return false;
  bool Registered = Cleanup == OnSignal::RemoveTemporary;
  if (Registered)
    sys::RemoveFileOnSignal(Temp);
  // Opened without following a link: Donor may have been swapped meanwhile.
  int FD = ::open(Temp.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  bool Overwritten = FD >= 0 && isLoneRegularFile(FD);
  bool Written =
      Overwritten && !overwriteFile(FD, Bytes) && !sys::fs::rename(Temp, Path);
  if (FD >= 0 && !Overwritten)
    sys::Process::SafelyCloseFileDescriptor(FD);
  if (!Written && (Overwritten || sys::fs::rename(Temp, From)))
    sys::fs::remove(Temp);
  if (Registered)
    sys::DontRemoveFileOnSignal(Temp);
  return Written;
}

} // namespace ulto
