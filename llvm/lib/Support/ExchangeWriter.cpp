//===- ExchangeWriter.cpp - Replace files whole, reusing inodes -----------===//

#include "ulto/Support/ExchangeWriter.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>

using namespace llvm;

namespace ulto {

ExchangeWriter::~ExchangeWriter() {
  for (const std::string &Path : Created) {
    sys::fs::remove(Path);
    sys::DontRemoveFileOnSignal(Path);
  }
}

Expected<std::string> ExchangeWriter::take(StringRef Dir) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    std::vector<std::string> &InDir = Free[Dir];
    if (!InDir.empty()) {
      std::string Path = std::move(InDir.back());
      InDir.pop_back();
      return Path;
    }
  }
  SmallString<256> Model(Dir.empty() ? "." : Dir);
  sys::path::append(Model, ".ulto-exchange-%%%%%%%%");
  SmallString<256> Path;
  int FD;
  if (std::error_code EC = sys::fs::createUniqueFile(Model, FD, Path))
    return createFileError(Model, EC);
  sys::Process::SafelyCloseFileDescriptor(FD);
  sys::RemoveFileOnSignal(Path);
  std::lock_guard<std::mutex> Lock(Mutex);
  Created.push_back(std::string(Path));
  return std::string(Path);
}

void ExchangeWriter::giveBack(StringRef Dir, std::string Temporary) {
  std::lock_guard<std::mutex> Lock(Mutex);
  Free[Dir].push_back(std::move(Temporary));
}

Error ExchangeWriter::replace(StringRef Path, StringRef Bytes) {
  if (!CanExchange || !sys::fs::exists(Path))
    return writeAtomically(Path, Bytes, OnSignal::CallerWaits);
  StringRef Dir = sys::path::parent_path(Path);
  Expected<std::string> Temporary = take(Dir);
  if (!Temporary)
    return createFileError(Path, Temporary.takeError());
  {
    // Overwritten and cut to size, not truncated first: ext4 writes a file
    // out when it is closed after a truncation to zero and a rewrite
    // (auto_da_alloc), 60 us a job here.
    int FD;
    std::error_code EC =
        sys::fs::openFileForWrite(*Temporary, FD, sys::fs::CD_OpenAlways);
    if (!EC) {
      raw_fd_ostream OS(FD, /*shouldClose=*/true);
      OS << Bytes;
      OS.flush();
      EC = OS.error();
      if (!EC)
        EC = sys::fs::resize_file(FD, Bytes.size());
      OS.close();
      if (!EC)
        EC = OS.error();
      OS.clear_error();
    }
    if (EC) {
      giveBack(Dir, std::move(*Temporary));
      return createFileError(Path, EC);
    }
  }
  if (renameat2(AT_FDCWD, Temporary->c_str(), AT_FDCWD, Path.str().c_str(),
                RENAME_EXCHANGE) == 0) {
    giveBack(Dir, std::move(*Temporary));
    return Error::success();
  }
  int Errno = errno;
  giveBack(Dir, std::move(*Temporary));
  if (Errno == EINVAL || Errno == ENOSYS || Errno == EOPNOTSUPP)
    CanExchange = false;
  return writeAtomically(Path, Bytes, OnSignal::CallerWaits);
}

} // namespace ulto
