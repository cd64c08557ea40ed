//===- CacheKeyTest.cpp - Keys name content, not paths --------------------===//
//
// normaliseArgs on hand-made jobs; computeBackendKey on links written to
// disk with index shards from LLVM's own bitcode writer: the same link under
// other names is the same key as long as the module paths sort alike, the
// same modules in another order are another key, and each input's bytes and
// the shard's CFI lists change it.
//
//===----------------------------------------------------------------------===//

#include "ulto/Distributor/CacheKey.h"
#include "ulto/LocalExecution/VersionProbe.h"
#include "ulto/Support/AtomicFile.h"

#include "Common/ErrorText.h"
#include "Common/TestJobs.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <thread>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

class CacheKeyTest : public ::testing::Test {
protected:
  // A new directory for each link: the digests are memoised by path.
  StringRef dir() {
    Dirs.push_back(std::make_unique<unittest::TempDir>("key", /*Unique=*/true));
    return Dirs.back()->path();
  }

  std::string key(const JobList &List, StringRef Compiler = "clang-22 id") {
    Expected<std::string> K =
        computeBackendKey(List, List.Jobs[0], Compiler, Digests);
    EXPECT_EQ(errorText(K), "");
    return K ? *K : "";
  }

  FileDigests Digests;
  std::vector<std::unique_ptr<unittest::TempDir>> Dirs;
};

TEST_F(CacheKeyTest, ArgsNameRolesNotPaths) {
  JobList List = jobList("/build/one", "lib.a(m.o at 8).4.1A2B.o", "b.o");
  EXPECT_EQ(normaliseArgs(List, List.Jobs[0]),
            (std::vector<std::string>{
                "-c", "-O2", "-fprofile-sample-use=%common0", "%module",
                "-fthinlto-index=%shard", "-o", "%output"}));
  JobList Other = jobList("/elsewhere", "m.o", "b.o");
  EXPECT_EQ(normaliseArgs(List, List.Jobs[0]),
            normaliseArgs(Other, Other.Jobs[0]));
}

TEST_F(CacheKeyTest, PathsDoNotCountTheirOrderDoes) {
  // The import sorts before the module in both links.
  JobList A = writeLink(dir(), "m.o", "b.o", "import v1");
  JobList B = writeLink(dir(), "lib.a(m.o at 8).3.F00.o", "a.o", "import v1");
  std::string KeyA = key(A);
  EXPECT_EQ(KeyA.size(), 64u);
  EXPECT_EQ(KeyA, key(B));

  // The same bytes, but the import sorts after the module: the backend
  // imports in another order, so this is other work.
  JobList Reversed = writeLink(dir(), "m.o", "z.o", "import v1");
  EXPECT_NE(KeyA, key(Reversed));
}

TEST_F(CacheKeyTest, EachInputChangesTheKey) {
  JobList A = writeLink(dir(), "m.o", "b.o", "import v1");
  std::string KeyA = key(A);
  EXPECT_NE(KeyA, key(A, "clang-23 id"));
  JobList O3 = A;
  O3.CommonArgs[2] = "-O3";
  EXPECT_NE(KeyA, key(O3));

  EXPECT_NE(KeyA, key(writeLink(dir(), "m.o", "b.o", "import v2")));
  JobList Module = writeLink(dir(), "m.o", "b.o", "import v1");
  writeFile(Module.Jobs[0].module(), "other module bytes");
  EXPECT_NE(KeyA, key(Module));
  JobList Profile = writeLink(dir(), "m.o", "b.o", "import v1");
  writeFile(Profile.CommonInputs[0], "other profile");
  EXPECT_NE(KeyA, key(Profile));
  JobList Shard = writeLink(dir(), "m.o", "b.o", "import v1");
  writeFile(Shard.Jobs[0].indexShard(),
            shard(Shard.Jobs[0].module(), Shard.Jobs[0].imports()[0], 100,
                  /*ImportHash=*/2, /*Declaration=*/true));
  EXPECT_NE(KeyA, key(Shard));
}

TEST_F(CacheKeyTest, CfiListsChangeTheKey) {
  // The lists name functions the shard's summaries only reference, which
  // LLVM's writer alone would not write again.
  auto WithCfi = [&](bool F2IsDef) {
    JobList List = writeLink(dir(), "main.o", "lib.o", "import");
    const BackendJob &Job = List.Jobs[0];
    writeFile(Job.indexShard(),
              shardWithCfi(Job.module(), Job.imports()[0], F2IsDef));
    return key(List);
  };
  std::string Decls = WithCfi(/*F2IsDef=*/false);
  EXPECT_EQ(Decls, WithCfi(/*F2IsDef=*/false));
  EXPECT_NE(Decls, WithCfi(/*F2IsDef=*/true));
  EXPECT_NE(Decls, key(writeLink(dir(), "main.o", "lib.o", "import")));
}

TEST_F(CacheKeyTest, ShardNamingAStrangerIsAnError) {
  JobList List = writeLink(dir(), "m.o", "b.o", "import");
  writeFile(List.Jobs[0].indexShard(),
            shard(List.Jobs[0].module(), "elsewhere.o", 100));
  EXPECT_EQ(errorText(computeBackendKey(List, List.Jobs[0], "id", Digests)),
            List.Jobs[0].indexShard().str() +
                ": names module 'elsewhere.o', which is not among the job's "
                "inputs");
  writeFile(List.Jobs[0].indexShard(), "not bitcode");
  EXPECT_NE(errorText(computeBackendKey(List, List.Jobs[0], "id", Digests)),
            "");
}

TEST_F(CacheKeyTest, MissingInputIsAnError) {
  JobList List = jobList("/nonexistent", "m.o", "b.o");
  EXPECT_NE(errorText(computeBackendKey(List, List.Jobs[0], "id", Digests)),
            "");
}

// A shell script as the compiler; its --version answers \p Version after
// running \p Before, which may start processes and write their IDs to
// "pids" beside it.
std::string writeCompiler(StringRef Dir, StringRef Before, StringRef Version) {
  std::string Path = (Dir + "/cc").str();
  writeFile(Path, ("#!/bin/sh\ncd '" + Dir + "'\n" + Before + "\necho '" +
                   Version + "'\n")
                      .str());
  sys::fs::setPermissions(Path, sys::fs::all_read | sys::fs::all_exe |
                                    sys::fs::owner_write);
  return Path;
}

// Whether process \p Pid still runs a second later (a zombie does not):
// SIGKILL takes a moment.
bool runs(StringRef Pid) {
  for (int I = 0; I != 100; ++I) {
    // Sizeless, as /proc files are: read as a stream.
    ErrorOr<std::unique_ptr<MemoryBuffer>> Stat =
        MemoryBuffer::getFileAsStream("/proc/" + Pid + "/stat");
    if (!Stat)
      return false;
    StringRef Text = (*Stat)->getBuffer();
    if (Text.substr(Text.rfind(')')).starts_with(") Z"))
      return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

std::vector<std::string> pidsIn(StringRef Dir) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> File =
      MemoryBuffer::getFile(Dir + "/pids", /*IsText=*/true);
  std::vector<std::string> Pids;
  if (File)
    for (StringRef Line : split((*File)->getBuffer().trim(), '\n'))
      Pids.push_back(Line.str());
  return Pids;
}

// A compiler that hangs in --version is stopped at the time limit with what
// it started; what it leaves running after it answers is stopped too.
TEST_F(CacheKeyTest, VersionProbeLeavesNoProcess) {
  StringRef Dir = dir();
  std::string Hangs = writeCompiler(
      Dir, "sleep 600 & echo $$ >> pids; echo $! >> pids; wait", "cc 1");
  auto Start = std::chrono::steady_clock::now();
  EXPECT_EQ(errorText(computeCompilerIdentity(
                Hangs, processVersionProbe(std::chrono::seconds(1)))),
            "compiler '" + Hangs + "' did not answer --version within 1 s");
  EXPECT_LT(std::chrono::steady_clock::now() - Start, std::chrono::seconds(5));
  std::vector<std::string> Pids = pidsIn(Dir);
  EXPECT_EQ(Pids.size(), 2u);
  for (const std::string &Pid : Pids)
    EXPECT_FALSE(runs(Pid)) << Pid;

  sys::fs::remove(Dir + "/pids");
  std::string Leaves =
      writeCompiler(Dir, "sleep 600 >/dev/null & echo $! >> pids", "cc 1");
  EXPECT_EQ(errorText(computeCompilerIdentity(Leaves, processVersionProbe())),
            "");
  Pids = pidsIn(Dir);
  ASSERT_EQ(Pids.size(), 1u);
  EXPECT_FALSE(runs(Pids[0]));
}

// Another probe (the fork server's) gives the identity a process gives when
// it prints the same text.
TEST_F(CacheKeyTest, IdentityFromAnotherProbe) {
  StringRef Dir = dir();
  std::string Compiler = writeCompiler(Dir, "", "cc 1");
  auto Prints = [](std::string Text) {
    return [Text](const std::string &, StringRef OutputFile) {
      return writeAtomically(OutputFile, Text);
    };
  };
  Expected<std::string> ByProcess =
      computeCompilerIdentity(Compiler, processVersionProbe());
  ASSERT_EQ(errorText(ByProcess), "");
  EXPECT_EQ(errorText(computeCompilerIdentity(Compiler, Prints("cc 1\n"))), "");
  EXPECT_EQ(*computeCompilerIdentity(Compiler, Prints("cc 1\n")), *ByProcess);
  EXPECT_NE(*computeCompilerIdentity(Compiler, Prints("cc 2\n")), *ByProcess);
  EXPECT_EQ(
      errorText(computeCompilerIdentity(Compiler,
                                        [](const std::string &, StringRef) {
                                          return createStringError("no answer");
                                        })),
      "no answer");
}

TEST_F(CacheKeyTest, VersionProbeThatFailsIsAnError) {
  StringRef Dir = dir();
  std::string Fails = writeCompiler(Dir, "exit 3", "");
  EXPECT_EQ(errorText(computeCompilerIdentity(Fails, processVersionProbe())),
            "cannot run '" + Fails + " --version': it exited with status 3");
}

} // namespace
