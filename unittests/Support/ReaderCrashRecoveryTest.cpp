//===- ReaderCrashRecoveryTest.cpp - LLVM's readers on untrusted bytes ----===//
//
// A fault or a fatal error inside readSafely() is an error of that read; the
// process, and the next read, go on.
//
//===----------------------------------------------------------------------===//

#include "ulto/Support/ReaderCrashRecovery.h"

#include "llvm/Support/ErrorHandling.h"
#include "gtest/gtest.h"

#include <csignal>

using namespace llvm;
using namespace ulto;

namespace {

TEST(ReaderCrashRecoveryTest, CrashesAndFatalErrorsAreErrorsOfTheRead) {
  enableReaderCrashRecovery();
  EXPECT_EQ(toString(readSafely([] { ::raise(SIGSEGV); })),
            "LLVM's bitcode reader crashed (SIGSEGV)");
  EXPECT_EQ(toString(readSafely([] { report_fatal_error("bad record"); })),
            "LLVM's bitcode reader failed: bad record");
  bool Read = false;
  EXPECT_FALSE(bool(readSafely([&] { Read = true; })));
  EXPECT_TRUE(Read);
}

} // namespace
