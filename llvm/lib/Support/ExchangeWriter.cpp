//===- ExchangeWriter.cpp - Replace files whole, reusing inodes -----------===//

#include "ulto/Support/ExchangeWriter.h"
#include "ulto/Support/AtomicFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

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
    // Overwritten, not truncated first: 60 us a job here (overwriteFile).
    int FD;
    std::error_code EC = sys::fs::openFileForWrite(Temporary->path(), FD,
                                                   sys::fs::CD_OpenAlways);
    if (!EC)
      EC = overwriteFile(FD, Bytes);
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
