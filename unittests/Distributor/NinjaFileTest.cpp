//===- NinjaFileTest.cpp - Backend jobs as a ninja file -------------------===//

#include "ulto/Distributor/NinjaFile.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;

namespace {

TEST(NinjaFileTest, EscapesPaths) {
  EXPECT_EQ(escapeNinjaPath("a.o"), "a.o");
  EXPECT_EQ(escapeNinjaPath("libx.a(y.o at 88).3.1A.o"),
            "libx.a(y.o$ at$ 88).3.1A.o");
  EXPECT_EQ(escapeNinjaPath("c:$x"), "c$:$$x");
}

TEST(NinjaFileTest, QuotesForTheShell) {
  JobList List;
  List.CommonArgs = {"cc"};
  BackendJob Job;
  Job.Args = {"it's `x` $y.o", ""};
  Job.Inputs = {"m.o", "s.bc"};
  Job.Outputs = {"o"};
  List.Jobs = {Job};
  std::string Text;
  raw_string_ostream OS(Text);
  writeNinjaFile(List, OS);
  EXPECT_NE(Text.find("  command = cc 'it'\\''s `x` $$y.o' ''\n"),
            std::string::npos)
      << Text;
}

TEST(NinjaFileTest, OneEdgePerJob) {
  JobList List;
  List.LinkerOutput = "app";
  List.CommonArgs = {"/usr/bin/clang", "-c", "-O2"};
  BackendJob Job;
  Job.Args = {"lib.a(m.o at 8).o", "-fthinlto-index=s.bc", "-o", "m.native.o"};
  Job.Inputs = {"lib.a(m.o at 8).o", "s.bc", "b.o"};
  Job.Outputs = {"m.native.o"};
  List.Jobs = {Job};

  std::string Text;
  raw_string_ostream OS(Text);
  writeNinjaFile(List, OS);
  EXPECT_NE(Text.find("rule thinlto-backend\n  command = $command\n"),
            std::string::npos)
      << Text;
  EXPECT_NE(Text.find("\nbuild m.native.o: thinlto-backend "
                      "lib.a(m.o$ at$ 8).o s.bc b.o\n"
                      "  command = /usr/bin/clang -c -O2 "
                      "'lib.a(m.o at 8).o' -fthinlto-index=s.bc -o "
                      "m.native.o\n"
                      "  module = lib.a(m.o at 8).o\n"),
            std::string::npos)
      << Text;
}

} // namespace
