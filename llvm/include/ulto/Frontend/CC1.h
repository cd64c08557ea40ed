//===- CC1.h - ulto's -cc1 --------------------------------------*- C++ -*-===//
//
// The compiler job of ulto-clang: clang's -cc1, in-process on libclang-cpp,
// identical to clang-22's for every invocation except unified LTO pre-link
// (see UnifiedPreLink.h).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_FRONTEND_CC1_H
#define ULTO_FRONTEND_CC1_H

#include "llvm/ADT/ArrayRef.h"

namespace ulto {

/// Registers every target, with its MC layer, assembly printer and parser,
/// as -cc1 needs them: once a process, however often it is called.
void initializeCC1Targets();

/// Runs one -cc1 job. Argv excludes the program name and "-cc1"; Argv0 and
/// MainAddr locate the executable as for clang's cc1_main. With
/// \p ProcessRunsOn the job frees its memory, which clang-22 leaves to the
/// process's exit (-disable-free), for the next job to reuse. Returns the
/// exit status.
int runCC1(llvm::ArrayRef<const char *> Argv, const char *Argv0, void *MainAddr,
           bool ProcessRunsOn = false);

} // namespace ulto

#endif
