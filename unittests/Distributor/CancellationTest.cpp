//===- CancellationTest.cpp - What a killed linker leaves -----------------===//

#include "ulto/Distributor/Cancellation.h"

#include "gtest/gtest.h"

#include <chrono>
#include <csignal>

using namespace llvm;
using namespace ulto;

namespace {

using Files = std::vector<std::string>;

// A job as lld-22 writes it: module, shard, imports; the object.
BackendJob job(std::string Module, std::string Shard,
               std::vector<std::string> Imports, std::string Object) {
  BackendJob Job;
  Job.Inputs = {std::move(Module), std::move(Shard)};
  Job.Inputs.insert(Job.Inputs.end(), Imports.begin(), Imports.end());
  Job.Outputs = {std::move(Object)};
  return Job;
}

// The names of a real link: `ld.lld m.o libl.a -o out/app` as process 13890
// (3642 in hex); main.o imports from two members of libl.a.
JobList realLink() {
  JobList List;
  List.LinkerOutput = "out/app";
  List.CommonArgs = {"clang"};
  List.Jobs = {
      job("m.o", "out/m.1.13890.native.o.thinlto.bc",
          {"out/libl.a(l1.o at 160).2.3642.o",
           "out/libl.a(l2.o at 11340).3.3642.o"},
          "out/m.1.13890.native.o"),
      job("out/libl.a(l1.o at 160).2.3642.o",
          "out/libl.a(l1.o at 160).2.3642.2.13890.native.o.thinlto.bc", {},
          "out/libl.a(l1.o at 160).2.3642.2.13890.native.o"),
      job("out/libl.a(l2.o at 11340).3.3642.o",
          "out/libl.a(l2.o at 11340).3.3642.3.13890.native.o.thinlto.bc", {},
          "out/libl.a(l2.o at 11340).3.3642.3.13890.native.o"),
  };
  return List;
}

TEST(CancellationTest, TheLinkersFilesAreTheJobListShardsObjectsAndMembers) {
  EXPECT_EQ(
      linkerTemporaries(realLink(), "out/app.13890.dist-file.json", 13890),
      (Files{
          "out/app.13890.dist-file.json",
          "out/libl.a(l1.o at 160).2.3642.2.13890.native.o",
          "out/libl.a(l1.o at 160).2.3642.2.13890.native.o.thinlto.bc",
          "out/libl.a(l1.o at 160).2.3642.o",
          "out/libl.a(l2.o at 11340).3.3642.3.13890.native.o",
          "out/libl.a(l2.o at 11340).3.3642.3.13890.native.o.thinlto.bc",
          "out/libl.a(l2.o at 11340).3.3642.o",
          "out/m.1.13890.native.o",
          "out/m.1.13890.native.o.thinlto.bc",
      }));
}

TEST(CancellationTest, AnotherProcesssFilesAreNotTheLinkers) {
  EXPECT_EQ(
      linkerTemporaries(realLink(), "out/app.13890.dist-file.json", 13891),
      Files());
}

TEST(CancellationTest, AJobListOfAnotherNameNamesNothing) {
  // A copy, as tests and users make of --save-temps job lists.
  EXPECT_EQ(linkerTemporaries(realLink(), "jobs.json", 13890), Files());
  EXPECT_EQ(linkerTemporaries(realLink(), "app.13890.dist-file.json", 13890),
            Files());
  JobList Other = realLink();
  Other.LinkerOutput = "out/other";
  EXPECT_EQ(linkerTemporaries(Other, "out/app.13890.dist-file.json", 13890),
            Files());
}

TEST(CancellationTest, UsersFilesAreNeverTheLinkers) {
  JobList List;
  List.LinkerOutput = "out/app";
  List.CommonArgs = {"clang"};
  List.Jobs = {
      // Modules and imports the user gave: plain objects, a thin archive's
      // member, files in the output's directory.
      job("out/m.o", "out/m.1.13890.native.o.thinlto.bc",
          {"lib/l1.o", "out/l2.o", "out/l3.1.13890.native.o"},
          "out/m.1.13890.native.o"),
      // Named like members, but of another process, in lower case, without a
      // sequence number, in another directory, or with no member name.
      job("out/libl.a(l1.o at 160).2.3643.o", "out/x.thinlto.bc",
          {"out/libl.a(l1.o at 160).2.3642a.o",
           "out/libl.a(l1.o at 160).3642.o", "lib/libl.a(l1.o at 160).2.3642.o",
           "out/.2.3642.o", "out/libl.a(l1.o at 160).x.3642.o"},
          "out/y.o"),
  };
  EXPECT_EQ(linkerTemporaries(List, "out/app.13890.dist-file.json", 13890),
            (Files{"out/app.13890.dist-file.json", "out/m.1.13890.native.o",
                   "out/m.1.13890.native.o.thinlto.bc"}));
}

TEST(CancellationTest, ObjectsAndShardsHaveExactNames) {
  JobList List;
  List.LinkerOutput = "out/app";
  List.CommonArgs = {"clang"};
  List.Jobs = {
      // Not in the output's directory.
      job("a.o", "a.1.13890.native.o.thinlto.bc", {}, "a.1.13890.native.o"),
      // Not named after the module.
      job("b.o", "out/c.2.13890.native.o.thinlto.bc", {},
          "out/c.2.13890.native.o"),
      // A task that is not a number.
      job("d.o", "out/d.x.13890.native.o.thinlto.bc", {},
          "out/d.x.13890.native.o"),
      // The object is lld's; a shard not named after it is not.
      job("e.o", "out/e.thinlto.bc", {}, "out/e.5.13890.native.o"),
  };
  EXPECT_EQ(linkerTemporaries(List, "out/app.13890.dist-file.json", 13890),
            (Files{"out/app.13890.dist-file.json", "out/e.5.13890.native.o"}));
}

TEST(CancellationTest, AnOutputInTheCurrentDirectory) {
  JobList List;
  List.LinkerOutput = "app.exe";
  List.CommonArgs = {"clang"};
  List.Jobs = {job("libl.a(l1.o at 160).1.2A.o",
                   "libl.a(l1.o at 160).1.2A.1.42.native.o.thinlto.bc", {},
                   "libl.a(l1.o at 160).1.2A.1.42.native.o")};
  EXPECT_EQ(
      linkerTemporaries(List, "app.42.dist-file.json", 42),
      (Files{"app.42.dist-file.json", "libl.a(l1.o at 160).1.2A.1.42.native.o",
             "libl.a(l1.o at 160).1.2A.1.42.native.o.thinlto.bc",
             "libl.a(l1.o at 160).1.2A.o"}));
}

// A job that a crash ended, or ended before anything watches the link, is
// no interrupt's, and that is known at once: only an interrupt of the link
// is waited for.
TEST(CancellationTest, OnlyAnInterruptIsAwaited) {
  auto Start = std::chrono::steady_clock::now();
  EXPECT_FALSE(endedByLinkInterrupt(SIGSEGV));
  EXPECT_FALSE(endedByLinkInterrupt(SIGKILL));
  EXPECT_FALSE(endedByLinkInterrupt(SIGINT)); // Nothing watches a link here.
  EXPECT_FALSE(linkInterrupted());
  EXPECT_LT(std::chrono::steady_clock::now() - Start,
            std::chrono::milliseconds(500));
}

} // namespace
