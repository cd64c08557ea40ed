//===- MessageTest.cpp ----------------------------------------------------===//

#include "ulto/Support/Message.h"
#include "Common/WriteCalls.h"
#include "llvm/Support/WithColor.h"
#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

TEST(MessageTest, OneWritePerMessage) {
  WriteCalls OS(/*Colors=*/false);
  writeMessage(OS, "ulto dist", MessageKind::Error, [](raw_ostream &M) {
    M << "ThinLTO backend for 'a.o' exited with status 1\n";
    M << "  command: clang -c a.o\n";
    M << "  output:\n    error\n";
  });
  writeMessage(OS, "ulto dist", MessageKind::Warning, "cache read-only");
  writeMessage(OS, "ulto dist", MessageKind::Note,
               Twine("reproducers in ") + "/tmp");
  ASSERT_EQ(OS.Calls.size(), 3u);
  EXPECT_EQ(OS.Calls[0], "ulto dist: error: ThinLTO backend for 'a.o' exited "
                         "with status 1\n  command: clang -c a.o\n  output:\n"
                         "    error\n");
  EXPECT_EQ(OS.Calls[1], "ulto dist: warning: cache read-only\n");
  EXPECT_EQ(OS.Calls[2], "ulto dist: note: reproducers in /tmp\n");
}

// On a terminal the kind is coloured, as WithColor colours it there, and the
// colour is reset before the text; still one write.
TEST(MessageTest, ColouredAsWithColorWouldBe) {
  WriteCalls Terminal(/*Colors=*/true);
  writeMessage(Terminal, "ulto dist", MessageKind::Warning, "text");
  ASSERT_EQ(Terminal.Calls.size(), 1u);
  std::string Expected;
  {
    WriteCalls Direct(/*Colors=*/true);
    WithColor::warning(Direct, "ulto dist") << "text\n";
    for (const std::string &Call : Direct.Calls)
      Expected += Call;
  }
  EXPECT_EQ(Terminal.Calls[0], Expected);
  EXPECT_NE(Expected.find("\x1b["), std::string::npos);
}

// Every error of a joined Error is one message; a command line that cannot
// run exits 1.
TEST(MessageTest, ReportErrorsPrintsEachError) {
  testing::internal::CaptureStderr();
  int Code = reportErrors(
      "ulto dist", joinErrors(createStringError("no job list given"),
                              createStringError("--jobs= needs a number")));
  std::string Printed = testing::internal::GetCapturedStderr();
  EXPECT_EQ(Code, 1);
  EXPECT_EQ(Printed, "ulto dist: error: no job list given\n"
                     "ulto dist: error: --jobs= needs a number\n");
}

TEST(MessageTest, OthersTextWithoutControls) {
  EXPECT_EQ(withoutControls("error: x\n\tat y"), "error: x\n\tat y");
  EXPECT_EQ(withoutControls("\x1b]0;owned\x07\x1b[2J\r"),
            "\\x1b]0;owned\\x07\\x1b[2J\\x0d");
  EXPECT_EQ(withoutControls("caf\xC3\xA9"), "caf\xC3\xA9");
}

} // namespace
