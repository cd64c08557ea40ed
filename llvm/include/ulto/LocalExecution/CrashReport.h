//===- CrashReport.h - What clang says of a crashed job ---------*- C++ -*-===//
//
// clang-22's driver runs its -cc1 job in-process and catches the job's
// crash: it prints the stack dump, writes reproducers (the job's input and a
// run script) to $TMPDIR, names them in a block of notes, and exits 1. What
// ended the job is then only in its words:
//
//   clang: error: clang frontend command failed with exit code 139 (use -v ...)
//   ...
//   clang: note: diagnostic msg:
//   ********************
//
//   PLEASE ATTACH THE FOLLOWING FILES TO THE BUG REPORT:
//   Preprocessed source(s) and associated run script(s) are located at:
//   clang: note: diagnostic msg: /tmp/main-727ae5.o
//   clang: note: diagnostic msg: /tmp/main-727ae5.sh
//   clang: note: diagnostic msg:
//
//   ********************
//
// readCrashReport() turns those words into data: the signal (exit code 128
// plus the signal, as LLVM's CrashRecoveryContext reports it) and the
// reproducers' paths, and takes the block out of the output, so that a link
// with many crashed jobs names the reproducers once, not in every job's
// output. Output that does not read exactly so is left as it is.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LOCALEXECUTION_CRASHREPORT_H
#define ULTO_LOCALEXECUTION_CRASHREPORT_H

#include "ulto/Distributor/Executor.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace ulto {

struct CrashReport {
  /// The signal a job of the driver crashed with; 0 when it says of none.
  int Signal = 0;
  /// The reproducers the driver wrote, as it named them.
  std::vector<std::string> Reproducers;
  /// The output without the block naming them.
  std::string Output;
};

/// What clang's driver said in \p Output about a job that crashed.
CrashReport readCrashReport(llvm::StringRef Output);

/// How a job that exited with \p Code ended, in the words of clang's driver
/// in its output \p Crash: a crash the driver caught is the signal it names.
ExecutionResult exitedAsReported(int Code, const CrashReport &Crash);

} // namespace ulto

#endif // ULTO_LOCALEXECUTION_CRASHREPORT_H
