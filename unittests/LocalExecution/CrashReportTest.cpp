//===- CrashReportTest.cpp - What clang says of a crashed job -------------===//

#include "ulto/LocalExecution/CrashReport.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;

namespace {

// clang-22's output when its backend crashed (SIGSEGV), the stack shortened;
// its notes end in a space.
const char *const Crashed =
    "PLEASE submit a bug report to https://github.com/llvm/llvm-project/"
    "issues/ and include the crash backtrace, preprocessed source, and "
    "associated run script.\n"
    "Stack dump:\n"
    "0.\tProgram arguments: clang -c main.o -o main.native.o\n"
    " #0 0x00007f75d52b8786 llvm::sys::PrintStackTrace(llvm::raw_ostream&, "
    "int)\n"
    "clang: error: clang frontend command failed with exit code 139 (use -v "
    "to see invocation)\n"
    "Debian clang version 22.1.8 (1~deb12u1)\n"
    "InstalledDir: /usr/lib/llvm-22/bin\n"
    "clang: note: diagnostic msg: \n"
    "********************\n"
    "\n"
    "PLEASE ATTACH THE FOLLOWING FILES TO THE BUG REPORT:\n"
    "Preprocessed source(s) and associated run script(s) are located at:\n"
    "clang: note: diagnostic msg: /tmp/main-727ae5.o\n"
    "clang: note: diagnostic msg: /tmp/main-727ae5.sh\n"
    "clang: note: diagnostic msg: \n"
    "\n"
    "********************\n";

TEST(CrashReportTest, SignalAndReproducersOfACrashedJob) {
  CrashReport Report = readCrashReport(Crashed);
  EXPECT_EQ(Report.Signal, 11);
  EXPECT_EQ(
      Report.Reproducers,
      (std::vector<std::string>{"/tmp/main-727ae5.o", "/tmp/main-727ae5.sh"}));
  // The rest stays, word for word.
  StringRef Output = Crashed;
  EXPECT_EQ(Report.Output,
            Output.take_front(Output.find("clang: note:")).str());
}

TEST(CrashReportTest, AFailureIsNoCrash) {
  const char *Failed = "clang: error: unknown argument: '-fno-such-flag'\n";
  CrashReport Report = readCrashReport(Failed);
  EXPECT_EQ(Report.Signal, 0);
  EXPECT_TRUE(Report.Reproducers.empty());
  EXPECT_EQ(Report.Output, Failed);
  // Exit codes that are not 128 plus a signal.
  for (const char *Code : {"1", "70", "128", "255"})
    EXPECT_EQ(readCrashReport(std::string("clang: error: clang frontend "
                                          "command failed with exit code ") +
                              Code + " (use -v to see invocation)\n")
                  .Signal,
              0)
        << Code;
}

TEST(CrashReportTest, ABlockThatDoesNotReadSoStays) {
  std::string Output = Crashed;
  // The closing stars are missing.
  Output.resize(Output.size() - strlen("\n********************\n"));
  CrashReport Report = readCrashReport(Output);
  EXPECT_EQ(Report.Signal, 11);
  EXPECT_TRUE(Report.Reproducers.empty());
  EXPECT_EQ(Report.Output, Output);
}

TEST(CrashReportTest, ReproducersOfAFatalError) {
  // A fatal error (exit code 70) writes reproducers too; no signal.
  std::string Output = Crashed;
  size_t At = Output.find("exit code 139");
  Output.replace(At, strlen("exit code 139"), "exit code 70");
  CrashReport Report = readCrashReport(Output);
  EXPECT_EQ(Report.Signal, 0);
  EXPECT_EQ(Report.Reproducers.size(), 2u);
}

} // namespace
