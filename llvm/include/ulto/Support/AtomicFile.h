//===- AtomicFile.h - A file written whole or not at all --------*- C++ -*-===//
//
// LLVM's writeToOutput renames its temporary file into place even when
// writing it failed (a full disk leaves an empty or cut file under the final
// name), and the stream then aborts the process with "IO failure on output
// stream" when it is destroyed. writeAtomically checks the stream before the
// rename: on any failure the temporary file is removed, the path keeps what
// it had, and the caller gets an error naming the path.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_SUPPORT_ATOMICFILE_H
#define ULTO_SUPPORT_ATOMICFILE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace ulto {

/// Who removes the temporary file when a signal ends the process mid-write.
enum class OnSignal {
  /// LLVM's signal handlers (sys::RemoveFileOnSignal).
  RemoveTemporary,
  /// Nobody: an interrupt waits for the write (ulto dist's WriteGuard). For
  /// writes made once a job: LLVM's list of files to remove on a signal only
  /// grows, and every registration walks all of it, so a registration a job
  /// costs time quadratic in the jobs (0.3 s of CPU at 1000 jobs).
  CallerWaits,
};

/// What is at the path already, when it is not a regular file.
enum class Existing {
  /// A file the user named (-o /dev/null, a FIFO) is written to, as clang
  /// does; renaming over it would replace a device with a file.
  WriteInto,
  /// Whatever is there is replaced, a symbolic link itself, never followed:
  /// for names others may have put something at (a FIFO would block the
  /// write, a link would send it to another file).
  Replace,
};

/// Writes \p Path through \p Write into a temporary file next to it, then
/// renames it into place; nothing is renamed if a write fails. "-" is
/// stdout, as for clang's -o.
llvm::Error writeAtomically(llvm::StringRef Path,
                            llvm::function_ref<void(llvm::raw_ostream &)> Write,
                            OnSignal Cleanup = OnSignal::RemoveTemporary,
                            Existing Special = Existing::WriteInto);

/// writeAtomically of \p Bytes.
llvm::Error writeAtomically(llvm::StringRef Path, llvm::StringRef Bytes,
                            OnSignal Cleanup = OnSignal::RemoveTemporary,
                            Existing Special = Existing::WriteInto);

} // namespace ulto

#endif // ULTO_SUPPORT_ATOMICFILE_H
