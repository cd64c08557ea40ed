//===- HeldStreamTest.cpp -------------------------------------------------===//

#include "ulto/Support/HeldStream.h"
#include "gtest/gtest.h"

#include <string>
#include <thread>
#include <vector>

using namespace llvm;
using namespace ulto;

namespace {

// An unbuffered stream that records each write it is given, as stderr's
// write(2) calls.
class Writes final : public raw_ostream {
public:
  explicit Writes(bool Colors = false) : raw_ostream(/*Unbuffered=*/true) {
    enable_colors(Colors);
  }
  bool has_colors() const override { return colors_enabled(); }
  std::vector<std::string> Calls;

private:
  void write_impl(const char *Ptr, size_t Size) override {
    Calls.emplace_back(Ptr, Size);
  }
  uint64_t current_pos() const override { return 0; }
};

TEST(HeldStreamTest, HoldsUntilReleasedThenPassesThrough) {
  Writes Out;
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
  Writes Out;
  HeldStream Held(Out);
  Held << "held\n";
  Held.discard();
  Held << "after\n";
  Held.release(); // Too late: dropped it stays.
  Held << "later\n";
  EXPECT_TRUE(Out.Calls.empty());
}

TEST(HeldStreamTest, TheDestructorReleases) {
  Writes Out;
  {
    HeldStream Held(Out);
    Held << "held\n";
  }
  EXPECT_EQ(Out.Calls, std::vector<std::string>{"held\n"});
}

TEST(HeldStreamTest, NothingHeldWritesNothing) {
  Writes Out;
  HeldStream(Out).release();
  EXPECT_TRUE(Out.Calls.empty());
}

TEST(HeldStreamTest, ColorsAreTheStreams) {
  Writes Plain, Colored(/*Colors=*/true);
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

// Writes from lld's threads while the check's thread releases: every byte
// arrives, each write whole.
TEST(HeldStreamTest, ConcurrentWritesAreKeptWhole) {
  Writes Out;
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
