//===- PrivateObjectsTest.cpp - Where backend jobs write their objects ----===//

#include "ulto/Distributor/PrivateObjects.h"

#include "Common/ErrorText.h"
#include "Common/Files.h"
#include "Common/TestJobs.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <sys/stat.h>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

BackendJob job(StringRef Module, StringRef Output,
               std::vector<std::string> Extra = {}) {
  BackendJob Job;
  Job.Inputs = {Module.str(), (Output + ".thinlto.bc").str()};
  Job.Outputs = {Output.str()};
  Job.Args = {Module.str(), "-fthinlto-index=" + Job.Inputs[1], "-o",
              Output.str()};
  llvm::append_range(Job.Args, Extra);
  return Job;
}

JobList listIn(StringRef Dir, std::vector<BackendJob> Jobs) {
  JobList List;
  List.LinkerOutput = (Dir + "/app").str();
  List.CommonArgs = {"clang", "-c"};
  List.Jobs = std::move(Jobs);
  return List;
}

TEST(PrivateObjectsTest, ADirectoryOnlyTheUserCanEnterBesideTheOutput) {
  unittest::TempDir Dir("private-objects", /*Unique=*/true);
  std::string Out(Dir.path("main.1.7.native.o"));
  JobList List = listIn(Dir.path(), {job("main.o", Out)});
  std::string Directory;
  {
    std::optional<PrivateObjects> Private = PrivateObjects::create(List);
    ASSERT_TRUE(Private);
    Directory = Private->directory().str();
    EXPECT_EQ(sys::path::parent_path(Directory), Dir.path());
    struct stat Status;
    ASSERT_EQ(::lstat(Directory.c_str(), &Status), 0);
    EXPECT_EQ(Status.st_mode & 07777, 0700u);
    // The object keeps its name, which the compiler's messages show.
    EXPECT_EQ(Private->objectPath(0),
              (Directory + "/main.1.7.native.o").c_str());
    writeFile(Private->objectPath(0), "left behind");
  }
  EXPECT_FALSE(sys::fs::exists(Directory));
}

TEST(PrivateObjectsTest, NoDirectoryWhereTheOutputsDirectoryIsNot) {
  unittest::TempDir Dir("private-objects", /*Unique=*/true);
  EXPECT_FALSE(PrivateObjects::create(
      listIn(Dir.path("missing"), {job("main.o", "main.native.o")})));
}

TEST(PrivateObjectsTest, JobsWritingBesideTheirObjectWriteInPlace) {
  unittest::TempDir Dir("private-objects", /*Unique=*/true);
  BackendJob SplitDwarf = job("a.o", Dir.path("a.native.o"), {"-gsplit-dwarf"});
  BackendJob NoOwnO = job("b.o", Dir.path("b.native.o"));
  NoOwnO.Args.resize(2); // Its -o among the common arguments.
  JobList List = listIn(Dir.path(), {SplitDwarf, NoOwnO});
  List.CommonArgs.insert(List.CommonArgs.end(), {"-o", NoOwnO.output().str()});
  std::optional<PrivateObjects> Private = PrivateObjects::create(List);
  ASSERT_TRUE(Private);
  EXPECT_EQ(Private->objectPath(0), SplitDwarf.output());
  EXPECT_EQ(Private->objectPath(1), NoOwnO.output());
  EXPECT_TRUE(writesBesideObject(List, SplitDwarf));
  EXPECT_FALSE(writesBesideObject(List, job("c.o", "c.native.o")));
}

TEST(PrivateObjectsTest, ObjectsOfOneNameAreToldApartByTheirJobs) {
  unittest::TempDir Dir("private-objects", /*Unique=*/true);
  JobList List = listIn(Dir.path(), {job("a.o", Dir.path("x/m.o")),
                                     job("b.o", Dir.path("y/m.o"))});
  std::optional<PrivateObjects> Private = PrivateObjects::create(List);
  ASSERT_TRUE(Private);
  EXPECT_EQ(sys::path::filename(Private->objectPath(0)), "0-m.o");
  EXPECT_EQ(sys::path::filename(Private->objectPath(1)), "1-m.o");
}

TEST(PrivateObjectsTest, TheLastOIsReplaced) {
  BackendJob Separate = withOutput(job("a.o", "a.native.o"), "p/a.native.o");
  EXPECT_EQ(Separate.Args, (std::vector<std::string>{
                               "a.o", "-fthinlto-index=a.native.o.thinlto.bc",
                               "-o", "p/a.native.o"}));
  EXPECT_EQ(Separate.output(), "p/a.native.o");
  BackendJob JoinedJob = job("a.o", "a.native.o");
  JoinedJob.Args = {"a.o", "-oa.native.o"};
  EXPECT_EQ(withOutput(JoinedJob, "p/a.native.o").Args,
            (std::vector<std::string>{"a.o", "-op/a.native.o"}));
}

TEST(PrivateObjectsTest, PublishingReplacesALinkNeverFollowsIt) {
  unittest::TempDir Dir("private-objects", /*Unique=*/true);
  std::string Victim(Dir.path("victim")), Out(Dir.path("out.o")),
      From(Dir.path("object"));
  writeFile(Victim, "mine");
  ASSERT_FALSE(sys::fs::create_link(Victim, Out));
  writeFile(From, "object");
  EXPECT_EQ(errorText(publishObject(From, Out, "object")), "");
  EXPECT_EQ(readFile(Out), "object");
  EXPECT_EQ(readFile(Victim), "mine");
  EXPECT_FALSE(sys::fs::exists(From));
}

// In a sticky directory another user's file at an object's name cannot be
// replaced: the error says whose it is and what to do.
TEST(PrivateObjectsTest, AnotherUsersFileInTheWayIsNamed) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "needs root to make another user's file";
  unittest::TempDir Dir("private-objects", /*Unique=*/true);
  std::string Out(Dir.path("main.1.7.native.o"));
  writeFile(Out, "planted");
  ASSERT_EQ(::chown(Out.c_str(), 65534, 65534), 0);
  EXPECT_EQ(toString(objectNotWritten(
                Out, createStringError(std::errc::operation_not_permitted,
                                       "denied"))),
            "'" + Out +
                "': a file of user 65534 is in the way; link into a directory "
                "of your own, or with ld.ulto");
  std::string Mine(Dir.path("mine.o"));
  writeFile(Mine, "mine");
  EXPECT_EQ(toString(objectNotWritten(Mine, createStringError("denied"))),
            "denied");
}

} // namespace
