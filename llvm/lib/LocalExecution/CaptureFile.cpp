//===- CaptureFile.cpp - The file of a job's stdout and stderr ------------===//

#include "ulto/LocalExecution/CaptureFile.h"
#include "ulto/Distributor/Cancellation.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace ulto {

Expected<CaptureFile> CaptureFile::create() {
  // Made and registered before an interrupt removes the registered files,
  // or not made: a file made by a job starting just then was left in
  // $TMPDIR after `kill -9` of the linker (1 of 20).
  WriteGuard Write;
  if (!Write)
    return createStringError("interrupted");
  SmallString<128> Model;
  sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Model);
  sys::path::append(Model, "ulto-backend-%%%%%%.txt");
  // Others may not read a job's output (createTemporaryFile's is 0644).
  Expected<sys::fs::TempFile> File = sys::fs::TempFile::create(
      Model, sys::fs::owner_read | sys::fs::owner_write);
  if (!File)
    return createFileError(Model, File.takeError());
  return CaptureFile(std::move(*File));
}

CaptureFile::~CaptureFile() {
  if (File)
    consumeError(File->discard());
}

} // namespace ulto
