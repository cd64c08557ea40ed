//===- ulto-clang.cpp - clang-22's driver, with unified LTO ---------------===//
//
// ulto-clang is clang-22 with ulto's -funified-lto and link-time LTO modes;
// the driver itself is a library (ClangDriver.h), which ulto dist shares.
//
//===----------------------------------------------------------------------===//

#include "ulto/Frontend/ClangDriver.h"

#include "clang/Basic/Stack.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/TargetSelect.h"

using namespace llvm;

int main(int Argc, char **Argv) {
  clang::noteBottomOfStack();
  InitLLVM X(Argc, Argv);
  if (sys::Process::FixupStandardFileDescriptors())
    return 1;
  InitializeAllTargets();
  return ulto::runClangDriver(ArrayRef(const_cast<const char **>(Argv), Argc));
}
