//===- ClangWorkers.cpp - What a fork server's workers run ----------------===//

#include "ulto/ClangWorkers/ClangWorkers.h"

#include "ulto/Frontend/CC1.h"
#include "ulto/Frontend/CC1CommandCache.h"
#include "ulto/Frontend/ClangDriver.h"

#include "clang/Basic/Stack.h"

using namespace llvm;

namespace ulto {

ForkServer::MainFn clangWorkers(StringRef Clang, ForkServer::Options &Workers) {
  initializeCC1Targets();
  Workers.MayShareWorker = [](ArrayRef<const char *> Argv) {
    return !changesProcessState(Argv);
  };
  // A crashed job ends the worker by its signal: clang-22 would only exit 1.
  // Each worker learns its jobs' -cc1 commands.
  return [Clang = Clang.str(),
          Commands = CC1CommandCache()](ArrayRef<const char *> Argv) mutable {
    clang::noteBottomOfStack();
    int CrashSignal;
    int Code = runClangDriver(Argv, Clang, &CrashSignal,
                              /*ProcessRunsOn=*/true, &Commands);
    if (CrashSignal)
      ForkServer::endChildBySignal(CrashSignal);
    return Code;
  };
}

} // namespace ulto
