//===- DistPlugin.cpp - ulto dist as a library ld.ulto forks into ---------===//
//
// Starting `ulto` costs a distributed link about 10 ms of CPU before the
// distributor can take lld's command line: the dynamic loader's work for
// libLLVM and libclang-cpp, and their static constructors. ld.ulto has
// libLLVM loaded already; so it forks as the link begins, and the child
// loads this library, which adds `ulto dist`'s own code (DistDriver.h), and
// runs `ulto dist` on the arguments it is given, which make it wait for its
// command as `ulto dist --await-command=FD` would (EarlyDistributor.h). The
// workers' code, with libclang-cpp, is loaded only to start a fork server.
//
//===----------------------------------------------------------------------===//

#include "ulto/DistDriver/DistDriver.h"

extern "C" int ultoDistMain(int Argc, const char *const *Argv) {
  return ulto::distMain(llvm::ArrayRef(Argv, Argc),
                        &ulto::loadClangWorkersLibrary);
}
