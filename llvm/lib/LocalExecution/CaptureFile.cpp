//===- CaptureFile.cpp - The file of a job's stdout and stderr ------------===//

#include "ulto/LocalExecution/CaptureFile.h"
#include "ulto/Distributor/Cancellation.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"

using namespace llvm;

namespace ulto {

Expected<CaptureFile> CaptureFile::create() {
  // Made and registered before an interrupt removes the registered files,
  // or not made: a file made by a job starting just then was left in
  // $TMPDIR after `kill -9` of the linker (1 of 20).
  WriteGuard Write;
  if (!Write)
    return createStringError("interrupted");
  SmallString<128> Model, Path;
  sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Model);
  sys::path::append(Model, "ulto-backend-%%%%%%.txt");
  int FD;
  // Others may not read a job's output (createTemporaryFile's is 0644).
  if (std::error_code EC =
          sys::fs::createUniqueFile(Model, FD, Path, sys::fs::OF_None,
                                    sys::fs::owner_read | sys::fs::owner_write))
    return createFileError(Model, EC);
  sys::Process::SafelyCloseFileDescriptor(FD);
  sys::RemoveFileOnSignal(Path);
  return CaptureFile(std::string(Path));
}

CaptureFile::~CaptureFile() {
  if (Path.empty())
    return;
  sys::fs::remove(Path);
  sys::DontRemoveFileOnSignal(Path);
}

} // namespace ulto
