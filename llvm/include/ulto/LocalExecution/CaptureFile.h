//===- CaptureFile.h - The file of a job's stdout and stderr ----*- C++ -*-===//
//
// A local job's stdout and stderr go to a file in $TMPDIR, read once the job
// has ended and removed with this object. The file is made under an
// WriteGuard and registered for removal on a signal, so that an interrupt
// removes it with the job's other files (Cancellation.h) and none is left.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LOCALEXECUTION_CAPTUREFILE_H
#define ULTO_LOCALEXECUTION_CAPTUREFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ulto {

class CaptureFile {
public:
  /// A new empty file, the user's alone (mode 0600).
  static llvm::Expected<CaptureFile> create();
  CaptureFile(CaptureFile &&Other) : Path(std::move(Other.Path)) {
    Other.Path.clear();
  }
  CaptureFile &operator=(CaptureFile &&) = delete;
  ~CaptureFile();
  llvm::StringRef path() const { return Path; }

private:
  explicit CaptureFile(std::string Path) : Path(std::move(Path)) {}
  std::string Path;
};

} // namespace ulto

#endif // ULTO_LOCALEXECUTION_CAPTUREFILE_H
