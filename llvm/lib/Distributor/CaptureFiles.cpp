//===- CaptureFiles.cpp - Files for the jobs' stdout and stderr -----------===//

#include "ulto/Distributor/CaptureFiles.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"

using namespace llvm;

namespace ulto {

CaptureFiles::Lease::~Lease() {
  if (!Pool)
    return;
  std::lock_guard<std::mutex> Lock(Pool->Mutex);
  Pool->Free.push_back(std::move(Path));
}

CaptureFiles::~CaptureFiles() {
  for (const std::string &Path : Created) {
    sys::fs::remove(Path);
    sys::DontRemoveFileOnSignal(Path);
  }
}

Expected<CaptureFiles::Lease> CaptureFiles::take() {
  std::unique_lock<std::mutex> Lock(Mutex);
  if (Free.empty()) {
    Lock.unlock();
    SmallString<128> Path;
    if (std::error_code EC =
            sys::fs::createTemporaryFile("ulto-backend", "txt", Path))
      return errorCodeToError(EC);
    sys::RemoveFileOnSignal(Path);
    Lock.lock();
    Created.push_back(std::string(Path));
    return Lease(this, std::string(Path));
  }
  Lease Taken(this, std::move(Free.back()));
  Free.pop_back();
  Lock.unlock();
  // Emptied here: a process's redirected stdout does not truncate it.
  int FD;
  if (std::error_code EC =
          sys::fs::openFileForWrite(Taken.path(), FD, sys::fs::CD_CreateAlways))
    return createFileError(Taken.path(), EC);
  sys::Process::SafelyCloseFileDescriptor(FD);
  return Taken;
}

} // namespace ulto
