//===- ClangWorkersPlugin.cpp - The workers' code, loaded on demand -------===//
//
// libUltoClangWorkers.so: clangWorkers() (ClangWorkers.h) with libclang-cpp,
// for libUltoDist.so to load only when it starts a fork server.
//
//===----------------------------------------------------------------------===//

#include "ulto/ClangWorkers/ClangWorkers.h"

extern "C" ulto::ClangWorkersFn ultoClangWorkers() {
  return &ulto::clangWorkers;
}
