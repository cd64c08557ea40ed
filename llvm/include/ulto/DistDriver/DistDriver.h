//===- DistDriver.h - ulto dist, as a library -------------------*- C++ -*-===//
//
// `ulto dist [options] JOBS.json` is a ThinLTO distributor for LLVM 22's
// DTLTO: ld.ulto --lto=distributed runs it, and so can stock lld and clang:
//
//   ld.lld --thinlto-distributor=ulto --thinlto-distributor-arg=dist ...
//   clang -fthinlto-distributor=ulto -Xthinlto-distributor=dist ...
//
// lld appends the job list's path after the options and waits; a non-zero
// exit fails the link. The `ulto` multi-tool runs it, and so does
// libUltoDist.so, which ld.ulto forks into as a link begins
// (EarlyDistributor.h); they differ only in where the workers' code comes
// from.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTDRIVER_DISTDRIVER_H
#define ULTO_DISTDRIVER_DISTDRIVER_H

#include "ulto/LocalExecution/ForkServer.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace ulto {

/// What a fork server's workers run (ulto/ClangWorkers/ClangWorkers.h):
/// clang-22's driver, at the path given, on each job's command line.
using ClangWorkersFn = ForkServer::MainFn (*)(llvm::StringRef,
                                              ForkServer::Options &);

/// Where the workers' code comes from: linked in (`ulto`), or loaded.
using ClangWorkersLoader = llvm::Expected<ClangWorkersFn> (*)();

/// The workers' code from libUltoClangWorkers.so, installed beside this
/// program: libUltoDist.so loads it only to start a fork server of its own.
llvm::Expected<ClangWorkersFn> loadClangWorkersLibrary();

/// `ulto dist ARGS`: the jobs of a job list, `--await-command=FD` (the
/// command comes later, AttachedCommand.h), or `--serve-workers=NAME` (the
/// user's worker service).
int distMain(llvm::ArrayRef<const char *> Args, ClangWorkersLoader LoadWorkers);

} // namespace ulto

#endif // ULTO_DISTDRIVER_DISTDRIVER_H
