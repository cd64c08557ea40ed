//===- HeldStreamTest.cpp -------------------------------------------------===//

#include "ulto/Support/HeldStream.h"
#include "Common/WriteCalls.h"
#include "gtest/gtest.h"

#include <string>
#include <thread>
#include <vector>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

TEST(HeldStreamTest, HoldsUntilReleasedThenPassesThrough) {
  WriteCalls Out;
  HeldStream Held(Out);
  Held << "first\n";
  Held << "second\n";
  EXPECT_TRUE(Out.Calls.empty());
  Out << "the check's error\n";
  Held.release();
  Held << "third\n";
  EXPECT_EQ(Out.Calls,
            (std::vector<std::string>{"the check's error\n", "first\nsecond\n",
                                      "third\n"}));
  Held.release(); // Once only.
  EXPECT_EQ(Out.Calls.size(), 3u);
}

TEST(HeldStreamTest, DiscardDropsWhatWasHeldAndWhatComesAfter) {
  WriteCalls Out;
  HeldStream Held(Out);
  Held << "held\n";
  Held.discard();
  Held << "after\n";
  Held.release(); // Too late: dropped it stays.
  Held << "later\n";
  EXPECT_TRUE(Out.Calls.empty());
}

TEST(HeldStreamTest, TheDestructorReleases) {
  WriteCalls Out;
  {
    HeldStream Held(Out);
    Held << "held\n";
  }
  EXPECT_EQ(Out.Calls, std::vector<std::string>{"held\n"});
}

TEST(HeldStreamTest, NothingHeldWritesNothing) {
  WriteCalls Out;
  HeldStream(Out).release();
  EXPECT_TRUE(Out.Calls.empty());
}

TEST(HeldStreamTest, ColorsAreTheStreams) {
  WriteCalls Plain, Colored(/*Colors=*/true);
  HeldStream HeldPlain(Plain), HeldColored(Colored);
  EXPECT_FALSE(HeldPlain.colors_enabled());
  EXPECT_FALSE(HeldPlain.has_colors());
  EXPECT_TRUE(HeldColored.colors_enabled());
  EXPECT_TRUE(HeldColored.has_colors());
  HeldColored.changeColor(raw_ostream::RED);
  HeldColored << "error";
  HeldColored.resetColor();
  HeldColored.release();
  std::string All;
  for (const std::string &Call : Colored.Calls)
    All += Call;
  EXPECT_NE(All.find("\x1b["), std::string::npos) << All;
  EXPECT_NE(All.find("error"), std::string::npos);
}

// WriteCalls from lld's threads while the check's thread releases: every byte
// arrives, each write whole.
TEST(HeldStreamTest, ConcurrentWritesAreKeptWhole) {
  WriteCalls Out;
  HeldStream Held(Out);
  std::string Line(100, 'x');
  Line += '\n';
  std::vector<std::thread> Writers;
  for (int T = 0; T != 4; ++T)
    Writers.emplace_back([&] {
      for (int I = 0; I != 200; ++I)
        Held << Line;
    });
  Held.release();
  for (std::thread &W : Writers)
    W.join();
  size_t Bytes = 0;
  for (const std::string &Call : Out.Calls) {
    EXPECT_EQ(Call.size() % Line.size(), 0u);
    Bytes += Call.size();
  }
  EXPECT_EQ(Bytes, 4 * 200 * Line.size());
}

} // namespace
