//===- ExchangeWriter.cpp - Replace files whole, reusing inodes -----------===//

#include "ulto/Support/ExchangeWriter.h"
#include "ulto/Support/AtomicFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>

using namespace llvm;

namespace ulto {

Error ExchangeWriter::replace(StringRef Path, StringRef Bytes) {
  if (!CanExchange || !sys::fs::exists(Path))
    return writeAtomically(Path, Bytes, OnSignal::CallerWaits);
  SmallString<256> Model(sys::path::parent_path(Path));
  sys::path::append(Model, ".ulto-exchange-%%%%%%%%");
  Expected<ReusedFiles::Lease> Temporary = Temporaries.take(Model);
  if (!Temporary)
    return createFileError(Path, Temporary.takeError());
  {
    // Overwritten and cut to size, not truncated first: ext4 writes a file
    // out when it is closed after a truncation to zero and a rewrite
    // (auto_da_alloc), 60 us a job here.
    int FD;
    std::error_code EC = sys::fs::openFileForWrite(Temporary->path(), FD,
                                                   sys::fs::CD_OpenAlways);
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
    if (EC)
      return createFileError(Path, EC);
  }
  if (renameat2(AT_FDCWD, Temporary->path().str().c_str(), AT_FDCWD,
                Path.str().c_str(), RENAME_EXCHANGE) == 0)
    return Error::success();
  if (errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)
    CanExchange = false;
  return writeAtomically(Path, Bytes, OnSignal::CallerWaits);
}

} // namespace ulto
