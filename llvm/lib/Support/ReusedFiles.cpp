//===- ReusedFiles.cpp - Temporary files kept for reuse -------------------===//

#include "ulto/Support/ReusedFiles.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"

using namespace llvm;

namespace ulto {

ReusedFiles::Lease::~Lease() {
  if (!Pool)
    return;
  std::lock_guard<std::mutex> Lock(Pool->Mutex);
  Pool->Free[Model].push_back(std::move(Path));
}

ReusedFiles::~ReusedFiles() {
  for (const std::string &Path : Created) {
    sys::fs::remove(Path);
    sys::DontRemoveFileOnSignal(Path);
  }
}

Expected<ReusedFiles::Lease> ReusedFiles::take(StringRef Model) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    std::vector<std::string> &Paths = Free[Model];
    if (!Paths.empty()) {
      Lease Taken(this, Model.str(), std::move(Paths.back()));
      Paths.pop_back();
      return Taken;
    }
  }
  SmallString<256> Path;
  int FD;
  // The user's alone: a job's output, an object on its way.
  if (std::error_code EC =
          sys::fs::createUniqueFile(Model, FD, Path, sys::fs::OF_None,
                                    sys::fs::owner_read | sys::fs::owner_write))
    return createFileError(Model, EC);
  sys::Process::SafelyCloseFileDescriptor(FD);
  sys::RemoveFileOnSignal(Path);
  std::lock_guard<std::mutex> Lock(Mutex);
  Created.push_back(std::string(Path));
  return Lease(this, Model.str(), std::string(Path));
}

} // namespace ulto
