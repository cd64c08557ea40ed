//===- DistCommand.cpp - ulto dist ----------------------------------------===//
//
// `ulto dist` (DistDriver.h), with the workers' code linked in.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"
#include "ulto/ClangWorkers/ClangWorkers.h"

#include "ulto/DistDriver/DistDriver.h"

int ulto::distMain(llvm::ArrayRef<const char *> Args) {
  return ulto::distMain(
      Args, []() -> llvm::Expected<ClangWorkersFn> { return &clangWorkers; });
}
