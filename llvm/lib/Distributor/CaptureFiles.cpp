//===- CaptureFiles.cpp - Files for the jobs' stdout and stderr -----------===//

#include "ulto/Distributor/CaptureFiles.h"
#include "ulto/Distributor/Cancellation.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace llvm;

namespace ulto {

CaptureFiles::CaptureFiles() {
  SmallString<128> Path;
  sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Path);
  sys::path::append(Path, "ulto-backend-%%%%%%.txt");
  Model = std::string(Path);
}

Expected<CaptureFiles::Lease> CaptureFiles::take() {
  // Made and registered for removal on a signal before an interrupt removes
  // the registered files, or not made: a file made by a job starting just
  // then was left in $TMPDIR after `kill -9` of the linker (1 of 20).
  ObjectWrite Write;
  if (!Write)
    return createStringError("interrupted");
  Expected<Lease> Taken = Files.take(Model);
  if (!Taken)
    return Taken.takeError();
  // Emptied here: a process's redirected stdout does not truncate it.
  int FD;
  if (std::error_code EC = sys::fs::openFileForWrite(Taken->path(), FD,
                                                     sys::fs::CD_CreateAlways))
    return createFileError(Taken->path(), EC);
  sys::Process::SafelyCloseFileDescriptor(FD);
  return Taken;
}

} // namespace ulto
