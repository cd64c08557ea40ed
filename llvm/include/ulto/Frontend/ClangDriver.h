//===- ClangDriver.h - clang-22's driver, with unified LTO ------*- C++ -*-===//
//
// The driver of ulto-clang: clang-22's own, with -funified-lto done by ulto
// (UnifiedPreLink.h) and the link-time LTO mode passed to ld.ulto. Without
// ulto's options a command does, and writes, what clang-22's does.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_FRONTEND_CLANGDRIVER_H
#define ULTO_FRONTEND_CLANGDRIVER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace ulto {

class CC1CommandCache;

/// Runs one driver command line, Argv[0] naming the program (its name picks
/// the driver mode, as clang++ does). \p ExecutablePath is the driver's own
/// path, as it names it in -cc1 jobs; empty: this process's executable. The
/// caller has initialised LLVM and its targets. Returns the exit status: 1
/// when a job crashed, as clang-22's, which catches the crash of the -cc1 job
/// it runs in-process and writes reproducers; then \p CrashSignal, if given,
/// is set to the signal the job crashed with (else to 0). With
/// \p ProcessRunsOn the process runs more commands after this one, and the
/// in-process jobs free their memory for them. With \p Commands, the -cc1
/// commands the driver builds are learned there, and a job whose command is
/// known runs without the driver.
int runClangDriver(llvm::ArrayRef<const char *> Argv,
                   llvm::StringRef ExecutablePath = {},
                   int *CrashSignal = nullptr, bool ProcessRunsOn = false,
                   CC1CommandCache *Commands = nullptr);

/// Whether the command line \p Argv may leave state in its process that a
/// later command run there would see: LLVM's command-line options (-mllvm,
/// also through -Xclang or -Wa,), timers and statistics, time traces, pass
/// plugins. A response file is not read, and counts as such.
bool changesProcessState(llvm::ArrayRef<const char *> Argv);

} // namespace ulto

#endif // ULTO_FRONTEND_CLANGDRIVER_H
