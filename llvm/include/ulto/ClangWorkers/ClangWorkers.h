//===- ClangWorkers.h - What a fork server's workers run --------*- C++ -*-===//
//
// The workers of a link's fork server, and of a worker service, run
// clang-22's driver in their own process, which needs libclang-cpp: loading
// and relocating it costs a link about 12 ms, before the link's first job. A
// link whose jobs go to a worker service needs none of it. So libUltoDist.so,
// which ld.ulto forks into (plugins/DistPlugin.cpp), does not link the
// workers' code: it loads libUltoClangWorkers.so (plugins/
// ClangWorkersPlugin.cpp) only to start a fork server of its own. `ulto`
// links it in.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_CLANGWORKERS_CLANGWORKERS_H
#define ULTO_CLANGWORKERS_CLANGWORKERS_H

#include "ulto/DistDriver/DistDriver.h"
#include "ulto/LocalExecution/ForkServer.h"

#include "llvm/ADT/StringRef.h"

namespace ulto {

/// What the workers run: clang-22's driver, at \p Clang, on each job's
/// command line; \p Workers learns which jobs may share a worker. Initialises
/// the targets, once for all workers.
ForkServer::MainFn clangWorkers(llvm::StringRef Clang,
                                ForkServer::Options &Workers);

} // namespace ulto

#endif // ULTO_CLANGWORKERS_CLANGWORKERS_H
