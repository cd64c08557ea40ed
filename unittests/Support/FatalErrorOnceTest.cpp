//===- FatalErrorOnceTest.cpp - One thread ends the process ---------------===//
//
// Two threads report fatal errors at once: while the first one's exit() runs
// its handlers (held here for 200 ms), the second reports too. Only the first
// error is printed, and the process exits 1. With LLVM's default handler the
// second is printed as well, and its exit() runs alongside the first's.
//
//===----------------------------------------------------------------------===//

#include "ulto/Support/FatalErrorOnce.h"

#include "llvm/Support/ErrorHandling.h"
#include "gtest/gtest.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

using namespace llvm;

namespace {

std::atomic<bool> FirstReported{false};

void failTwiceAtOnce() {
  ulto::reportFatalErrorsOnce();
  std::atexit(
      [] { std::this_thread::sleep_for(std::chrono::milliseconds(200)); });
  std::thread Second([] {
    while (!FirstReported)
      std::this_thread::yield();
    report_fatal_error("second", /*gen_crash_diag=*/false);
  });
  Second.detach();
  FirstReported = true;
  report_fatal_error("first", /*gen_crash_diag=*/false);
}

TEST(FatalErrorOnceTest, OneOfTwoThreadsReportsAndEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(failTwiceAtOnce(), testing::ExitedWithCode(1),
              "^LLVM ERROR: first\n$");
}

} // namespace
