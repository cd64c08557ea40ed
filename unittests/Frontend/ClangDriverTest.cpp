//===- ClangDriverTest.cpp ------------------------------------------------===//

#include "ulto/Frontend/ClangDriver.h"
#include "gtest/gtest.h"

#include <vector>

using namespace llvm;
using namespace ulto;

namespace {

bool changesState(std::vector<const char *> Args) {
  Args.insert(Args.begin(), "clang");
  return changesProcessState(Args);
}

// A ThinLTO backend job as lld-22 writes it leaves nothing behind.
TEST(ClangDriverTest, BackendJobsLeaveNoState) {
  EXPECT_FALSE(changesState(
      {"-c", "--target=x86_64-pc-linux-gnu", "-O2", "-fpic",
       "-ffunction-sections", "-g", "a.o", "-fthinlto-index=a.1.thinlto.bc",
       "-o", "a.1.native.o", "-Wno-unused-command-line-argument"}));
  EXPECT_FALSE(changesState({"-c", "-x", "ir", "a.o", "-fdebug-pass-manager"}));
}

// LLVM's options, timers, statistics, traces and plugins outlive the job.
TEST(ClangDriverTest, StatefulOptions) {
  EXPECT_TRUE(changesState({"-c", "a.o", "-mllvm", "-inline-threshold=0"}));
  EXPECT_TRUE(changesState({"-c", "a.o", "-mllvm=-inline-threshold=0"}));
  EXPECT_TRUE(changesState({"-c", "a.o", "-Xclang", "-mllvm"}));
  EXPECT_TRUE(changesState({"-c", "a.o", "-Wa,-mllvm,-x"}));
  EXPECT_TRUE(changesState({"-c", "a.o", "-ftime-report"}));
  EXPECT_TRUE(changesState({"-c", "a.o", "-ftime-trace=t.json"}));
  EXPECT_TRUE(changesState({"-c", "a.o", "-save-stats=obj"}));
  EXPECT_TRUE(changesState({"-c", "a.o", "-fpass-plugin=p.so"}));
  // What a response file holds is not known.
  EXPECT_TRUE(changesState({"-c", "@args.rsp"}));
}

} // namespace
