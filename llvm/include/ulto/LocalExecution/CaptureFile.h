//===- CaptureFile.h - The file of a job's stdout and stderr ----*- C++ -*-===//
//
// A local job's stdout and stderr go to a file in $TMPDIR (LLVM's TempFile),
// read once the job has ended and removed with this object. The file is
// made under a WriteGuard and registered for removal on a signal, so that an
// interrupt removes it with the job's other files (Cancellation.h) and none
// is left.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LOCALEXECUTION_CAPTUREFILE_H
#define ULTO_LOCALEXECUTION_CAPTUREFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"

#include <optional>

namespace ulto {

class CaptureFile {
public:
  /// A new empty file, the user's alone (mode 0600).
  static llvm::Expected<CaptureFile> create();
  CaptureFile(CaptureFile &&Other) : File(std::move(Other.File)) {
    Other.File.reset();
  }
  CaptureFile &operator=(CaptureFile &&) = delete;
  ~CaptureFile();
  llvm::StringRef path() const { return File->TmpName; }

private:
  explicit CaptureFile(llvm::sys::fs::TempFile File) : File(std::move(File)) {}
  std::optional<llvm::sys::fs::TempFile> File;
};

} // namespace ulto

#endif // ULTO_LOCALEXECUTION_CAPTUREFILE_H
