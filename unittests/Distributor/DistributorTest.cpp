//===- DistributorTest.cpp - The distributor with a fake executor ---------===//
//
// runBackends over a two-job link whose modules, shards and objects are real
// (bitcode with a triple, shards from LLVM's writer, ELF headers), with an
// executor that only records which jobs it was asked for and plays a part,
// as ninja's build_test.cc does with FakeCommandRunner: which jobs ran,
// what the cache saved, what a failure removed, what the summary counts.
//
//===----------------------------------------------------------------------===//

#include "ulto/Distributor/Distributor.h"
#include "ulto/Distributor/ExplainRun.h"
#include "ulto/LocalExecution/VersionProbe.h"

#include "Common/ErrorText.h"
#include "Common/TestJobs.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <thread>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

/// Runs nothing: records the jobs it is asked for and answers with Play.
class FakeExecutor final : public Executor {
public:
  std::string name() const override { return "fake"; }
  ExecutionResult run(const JobList &, const BackendJob &Job) override {
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Ran.push_back(sys::path::filename(Job.module()).str());
    }
    return Play(Job);
  }

  std::function<ExecutionResult(const BackendJob &)> Play;
  std::vector<std::string> Ran;
  std::mutex Mutex;
};

/// A remote cache in memory: objects by module file name; what was stored.
class FakeRemoteCache final : public RemoteCache {
public:
  std::string name() const override { return "remote cache fake"; }
  RemoteLookup lookup(const JobList &, const BackendJob &Job) override {
    std::lock_guard<std::mutex> Lock(Mutex);
    RemoteLookup Found;
    auto It = Objects.find(sys::path::filename(Job.module()).str());
    if (It != Objects.end())
      Found.Object = MemoryBuffer::getMemBufferCopy(It->second);
    return Found;
  }
  void rejected(const BackendJob &Job) override {
    std::lock_guard<std::mutex> Lock(Mutex);
    Rejected.push_back(sys::path::filename(Job.module()).str());
  }
  void store(const JobList &, const BackendJob &Job,
             std::string Object) override {
    std::lock_guard<std::mutex> Lock(Mutex);
    Stored[sys::path::filename(Job.module()).str()] = std::move(Object);
  }
  std::vector<std::string> finish() override { return {}; }
  RemoteCacheCounts counts() const override { return {}; }

  std::map<std::string, std::string> Objects, Stored;
  std::vector<std::string> Rejected;
  std::mutex Mutex;
};

/// Keeps what the distributor says.
class RecordingStatus final : public StatusSink {
public:
  void jobFailed(StringRef Module, StringRef What, ArrayRef<std::string>,
                 StringRef) override {
    Failures.push_back((sys::path::filename(Module) + ": " + What).str());
  }
  void warning(StringRef Message) override {
    Warnings.push_back(Message.str());
  }
  void reproducers(ArrayRef<std::string> Files, unsigned Jobs) override {
    Reproducers.push_back(std::to_string(Jobs) + " jobs: " + join(Files, " "));
  }
  void explain(StringRef Module, StringRef) override {
    Explained.push_back(sys::path::filename(Module).str());
  }
  std::vector<std::string> Failures, Warnings, Reproducers, Explained;
};

const std::string Object = elfObject("ET_REL", "EM_X86_64");

// A job that writes a good object where the linker expects it.
ExecutionResult writesObject(const BackendJob &Job) {
  writeFile(Job.output(), Object);
  return ExecutionResult::exited(0);
}

std::string readFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  return Buffer ? (*Buffer)->getBuffer().str() : "<none>";
}

class DistributorTest : public testing::Test {
protected:
  DistributorTest() : Dir("distributor", /*Unique=*/true) {
    Opts.AskVersion = processVersionProbe();
    // Two modules, each importing from the other.
    auto In = [&](StringRef Name) { return (Dir.path() + "/" + Name).str(); };
    List.LinkerOutput = In("app");
    List.CommonArgs = {"true", "-c", "-O2"};
    for (auto [Name, Import, GUID] :
         {std::tuple("a.o", "b.o", 100), std::tuple("b.o", "a.o", 200)}) {
      BackendJob Job;
      Job.Inputs = {In(Name), In(Name) + ".thinlto.bc", In(Import)};
      Job.Outputs = {In(Name) + ".native.o"};
      Job.Args = {Job.Inputs[0], "-fthinlto-index=" + Job.Inputs[1], "-o",
                  Job.Outputs[0]};
      writeModule(Job.module());
      writeFile(Job.indexShard(), shard(Job.module(), In(Import), GUID));
      List.Jobs.push_back(Job);
    }
    Expected<std::unique_ptr<BackendCache>> Opened =
        BackendCache::open(In("cache"));
    EXPECT_TRUE(bool(Opened));
    if (Opened)
      Cache = std::move(*Opened);
    Opts.Parallelism = 1;
    Opts.Cache = Cache.get();
    Exec.Play = writesObject;
  }

  static void writeModule(StringRef Path) {
    LLVMContext Ctx;
    Module M(Path, Ctx);
    M.setTargetTriple(Triple("x86_64-unknown-linux-gnu"));
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    ASSERT_FALSE(EC);
    WriteBitcodeToFile(M, OS);
  }

  // A link of the jobs, sharing them with concurrent links, whose a.o runs
  // until \p Release; returns once a.o is running.
  std::future<DistSummary> startLinkHoldingA(std::shared_future<void> Release) {
    std::string Warning;
    Expected<std::optional<RunningJobs>> Opened =
        RunningJobs::open(Cache->directory(), std::nullopt, Warning);
    EXPECT_EQ(errorText(Opened), "");
    if (!Opened || !*Opened)
      return {};
    Running.emplace(std::move(**Opened));
    Opts.Running = &*Running;
    auto AStarted = std::make_shared<std::promise<void>>();
    std::future<void> Started = AStarted->get_future();
    Exec.Play = [AStarted, Release](const BackendJob &Job) {
      if (sys::path::filename(Job.module()) == "a.o") {
        AStarted->set_value();
        Release.wait();
      }
      return writesObject(Job);
    };
    std::future<DistSummary> Link = std::async(std::launch::async, [this] {
      return runBackends(List, Exec, Opts, Status);
    });
    Started.wait();
    return Link;
  }

  DistSummary run() {
    Exec.Ran.clear();
    Status = RecordingStatus();
    return runBackends(List, Exec, Opts, Status);
  }

  unittest::TempDir Dir;
  JobList List;
  std::unique_ptr<BackendCache> Cache;
  DistOptions Opts;
  FakeExecutor Exec;
  RecordingStatus Status;
  std::optional<RunningJobs> Running;
};

TEST_F(DistributorTest, CacheHitsSkipTheExecutor) {
  DistSummary First = run();
  EXPECT_EQ(First.Executed, 2u);
  EXPECT_EQ(First.CacheHits, 0u);
  EXPECT_EQ(Exec.Ran.size(), 2u);

  for (const BackendJob &Job : List.Jobs)
    ASSERT_FALSE(sys::fs::remove(Job.output()));
  DistSummary Second = run();
  EXPECT_TRUE(Exec.Ran.empty());
  EXPECT_EQ(Second.CacheHits, 2u);
  EXPECT_EQ(Second.Executed, 0u);
  EXPECT_EQ(Second.Failed, 0u);
  for (const BackendJob &Job : List.Jobs)
    EXPECT_EQ(readFile(Job.output()), Object);
  EXPECT_TRUE(Status.Failures.empty());
  EXPECT_TRUE(Status.Warnings.empty());
}

// The remote cache is asked after the local cache: a fit object is the
// job's and goes in the local cache, with the job's record, without running
// or explaining the job;
// an unfit one is rejected, said, and the job runs; objects of jobs that
// ran go up.
TEST_F(DistributorTest, RemoteCacheAfterTheLocalOne) {
  FakeRemoteCache Remote;
  Remote.Objects["a.o"] = Object;
  Remote.Objects["b.o"] = elfObject("ET_REL", "EM_AARCH64");
  Opts.Remote = &Remote;
  Opts.Explain = true;
  DistSummary First = run();
  EXPECT_EQ(First.RemoteHits, 1u);
  EXPECT_EQ(First.Executed, 1u);
  EXPECT_EQ(First.Failed, 0u);
  EXPECT_EQ(Exec.Ran, std::vector<std::string>{"b.o"});
  EXPECT_EQ(Status.Explained, std::vector<std::string>{"b.o"});
  EXPECT_EQ(Remote.Rejected, std::vector<std::string>{"b.o"});
  ASSERT_EQ(Status.Warnings.size(), 1u);
  EXPECT_NE(Status.Warnings[0].find("remote cache fake: its object for '"),
            std::string::npos)
      << Status.Warnings[0];
  EXPECT_EQ(Remote.Stored.size(), 1u);
  EXPECT_EQ(Remote.Stored["b.o"], Object);
  EXPECT_EQ(readFile(List.Jobs[0].output()), Object);
  EXPECT_NE(First.format("local").find("1 from the remote cache, "),
            std::string::npos);
  // Both leave what their keys were made of, for the next link to explain.
  ExplainRecords Records(Cache->directory().str());
  for (const BackendJob &Job : List.Jobs)
    EXPECT_TRUE(Records.load(List.LinkerOutput, Job.module()))
        << Job.module().str();

  // Both are in the local cache now: the remote is not asked again.
  Remote.Objects.clear();
  Remote.Stored.clear();
  for (const BackendJob &Job : List.Jobs)
    ASSERT_FALSE(sys::fs::remove(Job.output()));
  DistSummary Second = run();
  EXPECT_EQ(Second.CacheHits, 2u);
  EXPECT_EQ(Second.RemoteHits, 0u);
  EXPECT_TRUE(Exec.Ran.empty());
  EXPECT_TRUE(Remote.Stored.empty());
}

// The compiler's --version is asked for once a link, on a thread of its own
// (while the shards are read), and its answer keys the cache as before.
TEST_F(DistributorTest, CompilerIsAskedOnceBesideTheShards) {
  std::mutex AskedMutex;
  std::vector<std::thread::id> AskedOn;
  Opts.AskVersion = [&](const std::string &, StringRef OutputFile) {
    std::lock_guard<std::mutex> Lock(AskedMutex);
    AskedOn.push_back(std::this_thread::get_id());
    writeFile(OutputFile, "true version 1\n");
    return Error::success();
  };
  Opts.CompleteShards = true;
  DistSummary First = run();
  EXPECT_EQ(First.Executed, 2u);
  for (const BackendJob &Job : List.Jobs)
    ASSERT_FALSE(sys::fs::remove(Job.output()));
  DistSummary Second = run();
  EXPECT_EQ(Second.CacheHits, 2u);
  EXPECT_TRUE(Exec.Ran.empty());
  ASSERT_EQ(AskedOn.size(), 2u);
  for (std::thread::id Thread : AskedOn)
    EXPECT_NE(Thread, std::this_thread::get_id());
  EXPECT_TRUE(Status.Failures.empty());
  EXPECT_TRUE(Status.Warnings.empty());
}

TEST_F(DistributorTest, DamagedEntryIsCountedAndRebuilt) {
  run();
  // Damage one entry: flip a byte of its object. The cache directory also
  // holds the timestamp, the lock and the explain records.
  std::string Entry;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Cache->directory(), EC), End;
       It != End && !EC && Entry.empty(); It.increment(EC))
    if (sys::path::filename(It->path()).starts_with("llvmcache-"))
      Entry = It->path();
  ASSERT_FALSE(Entry.empty());
  std::string Bytes = readFile(Entry);
  Bytes[0] ^= 1;
  writeFile(Entry, Bytes);

  DistSummary Summary = run();
  EXPECT_EQ(Summary.DamagedEntries, 1u);
  EXPECT_EQ(Summary.CacheHits, 1u);
  EXPECT_EQ(Summary.Executed, 1u);
  EXPECT_EQ(Exec.Ran.size(), 1u);
  EXPECT_EQ(Summary.Failed, 0u);
  // Rebuilt: the next link hits both.
  EXPECT_EQ(run().CacheHits, 2u);
}

TEST_F(DistributorTest, FailedJobRemovesOnlyItsOwnOutput) {
  Opts.Cache = nullptr;
  std::string Bystander = (Dir.path() + "/a.o.native.o.keep").str();
  writeFile(Bystander, "not ours");
  Exec.Play = [](const BackendJob &Job) {
    if (sys::path::filename(Job.module()) != "a.o")
      return writesObject(Job);
    writeFile(Job.output(), "half an object");
    ExecutionResult R = ExecutionResult::exited(1);
    R.Output = "error: out of luck";
    return R;
  };
  DistSummary Summary = run();
  EXPECT_EQ(Summary.Failed, 1u);
  EXPECT_EQ(Summary.Executed, 2u);
  EXPECT_EQ(Status.Failures,
            std::vector<std::string>{"a.o: exited with status 1"});
  EXPECT_FALSE(sys::fs::exists(List.Jobs[0].output()));
  EXPECT_EQ(readFile(List.Jobs[1].output()), Object);
  // Its inputs and anything else stay.
  for (const std::string &Input : List.Jobs[0].Inputs)
    EXPECT_TRUE(sys::fs::exists(Input)) << Input;
  EXPECT_EQ(readFile(Bystander), "not ours");
}

// clang's reproducers are named once, after the jobs, in sorted order.
TEST_F(DistributorTest, CrashReproducersAreNamedOnce) {
  Opts.Cache = nullptr;
  Opts.Parallelism = 2;
  Exec.Play = [](const BackendJob &Job) {
    std::string Stem = sys::path::stem(Job.module()).str();
    ExecutionResult R =
        ExecutionResult::ended(ExitKind::Signalled, "Segmentation fault");
    R.Reproducers = {"/tmp/" + Stem + "-1.sh", "/tmp/" + Stem + "-1.o"};
    return R;
  };
  DistSummary Summary = run();
  EXPECT_EQ(Summary.Failed, 2u);
  EXPECT_EQ(Status.Reproducers,
            std::vector<std::string>{
                "2 jobs: /tmp/a-1.o /tmp/a-1.sh /tmp/b-1.o /tmp/b-1.sh"});

  // None when no job left any.
  Exec.Play = writesObject;
  run();
  EXPECT_TRUE(Status.Reproducers.empty());
}

TEST_F(DistributorTest, SummaryCountsWhatHappened) {
  Opts.Cache = nullptr;
  Exec.Play = [](const BackendJob &Job) {
    if (sys::path::filename(Job.module()) == "a.o")
      return ExecutionResult::ended(ExitKind::NotStarted, "no compiler");
    writeFile(Job.output(), "garbage");
    return ExecutionResult::exited(0);
  };
  DistSummary Summary = run();
  EXPECT_EQ(Summary.Jobs, 2u);
  EXPECT_EQ(Summary.Executed, 1u); // a.o never started.
  EXPECT_EQ(Summary.Failed, 2u);
  EXPECT_EQ(Summary.CacheHits, 0u);
  ASSERT_EQ(Status.Failures.size(), 2u);
  llvm::sort(Status.Failures);
  EXPECT_EQ(Status.Failures[0], "a.o: could not be started: no compiler");
  EXPECT_EQ(Status.Failures[1].rfind("b.o: exited 0 but its output '", 0), 0u)
      << Status.Failures[1];
  EXPECT_NE(Status.Failures[1].find("' is not an object file: "),
            std::string::npos)
      << Status.Failures[1];
  EXPECT_FALSE(sys::fs::exists(List.Jobs[1].output()));
  EXPECT_EQ(Summary.format("fake").rfind(
                "2 jobs: 0 cached, 1 executed, 2 failed (fake, 1 at once); "
                "wall ",
                0),
            0u)
      << Summary.format("fake");
}

// The same jobs with their objects elsewhere, as a concurrent link of
// another binary over the same library has them.
JobList elsewhere(const JobList &List) {
  JobList Other = List;
  for (BackendJob &Job : Other.Jobs) {
    std::string Output = Job.Outputs[0] + ".other";
    llvm::replace(Job.Args, Job.Outputs[0], Output);
    Job.Outputs[0] = Output;
  }
  return Other;
}

// Concurrent links: the first runs a.o until the second has set it aside
// and run b.o; then each takes the other's object from the cache.
TEST_F(DistributorTest, ConcurrentLinksRunEachJobOnce) {
  std::promise<void> BRan;
  std::future<DistSummary> First = startLinkHoldingA(BRan.get_future().share());
  ASSERT_TRUE(Running);

  JobList Other = elsewhere(List);
  FakeExecutor OtherExec;
  OtherExec.Play = [&](const BackendJob &Job) {
    BRan.set_value(); // Only b.o runs here: a.o was set aside.
    return writesObject(Job);
  };
  RecordingStatus OtherStatus;
  DistSummary Second = runBackends(Other, OtherExec, Opts, OtherStatus);
  DistSummary FirstSummary = First.get();

  EXPECT_EQ(Exec.Ran, std::vector<std::string>{"a.o"});
  EXPECT_EQ(OtherExec.Ran, std::vector<std::string>{"b.o"});
  EXPECT_EQ(Second.FromOtherLinks, 1u);
  EXPECT_EQ(Second.Executed, 1u);
  EXPECT_EQ(FirstSummary.CacheHits + FirstSummary.FromOtherLinks, 1u);
  for (const JobList *L : {&List, &Other})
    for (const BackendJob &Job : L->Jobs)
      EXPECT_EQ(readFile(Job.output()), Object) << Job.output().str();
  EXPECT_TRUE(Status.Failures.empty() && OtherStatus.Failures.empty());
  EXPECT_TRUE(Status.Warnings.empty() && OtherStatus.Warnings.empty());
  EXPECT_EQ(Second.format("fake").rfind("2 jobs: 0 cached, 1 waited on "
                                        "another link, 1 executed, 0 failed",
                                        0),
            0u)
      << Second.format("fake");
  // The claims leave no file but the one whose bytes they lock (beside the
  // entries and the explain records of the jobs that ran).
  std::error_code EC;
  for (sys::fs::directory_iterator
           It(sys::path::parent_path(Running->path()), EC),
       End;
       It != End && !EC; It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    EXPECT_TRUE(Name == sys::path::filename(Running->path()) ||
                Name.starts_with("llvmcache") || Name.starts_with("explain-"))
        << Name.str();
  }
}

TEST_F(DistributorTest, AWaitPastTheLimitRunsTheJobHere) {
  std::promise<void> SecondDone;
  std::future<DistSummary> First =
      startLinkHoldingA(SecondDone.get_future().share());
  ASSERT_TRUE(Running);

  JobList Other = elsewhere(List);
  FakeExecutor OtherExec;
  OtherExec.Play = writesObject;
  RecordingStatus OtherStatus;
  DistOptions Impatient = Opts;
  Impatient.WaitLimit = std::chrono::seconds(0);
  DistSummary Second = runBackends(Other, OtherExec, Impatient, OtherStatus);
  SecondDone.set_value();
  First.get();

  EXPECT_EQ(Second.Executed, 2u);
  EXPECT_EQ(Second.Failed, 0u);
  ASSERT_EQ(OtherStatus.Warnings.size(), 1u);
  EXPECT_EQ(OtherStatus.Warnings[0],
            ("waited 0s for another link running the backend for '" +
             List.Jobs[0].module() + "'; running it here")
                .str());
}

// An object the executor hands over (a farm's) is written where the linker
// expects it.
TEST_F(DistributorTest, AnExecutorsObjectIsWrittenForTheLinker) {
  Opts.Cache = nullptr;
  Exec.Play = [](const BackendJob &) {
    ExecutionResult R;
    R.Remote = true;
    R.Object = MemoryBuffer::getMemBufferCopy(Object);
    return R;
  };
  EXPECT_EQ(run().Failed, 0u);
  for (const BackendJob &Job : List.Jobs)
    EXPECT_EQ(readFile(Job.output()), Object);
}

// A job the executor ran elsewhere than asked says why, once.
TEST_F(DistributorTest, AFallbackIsSaid) {
  Exec.Play = [](const BackendJob &Job) {
    ExecutionResult R = writesObject(Job);
    R.Fallback = FallbackKind::JobUnfit;
    R.FallbackReason = "the remote's object is not an object file";
    return R;
  };
  EXPECT_EQ(run().Failed, 0u);
  ASSERT_EQ(Status.Warnings.size(), 2u);
  EXPECT_NE(Status.Warnings[0].find("' ran locally: the remote's object is "
                                    "not an object file"),
            std::string::npos)
      << Status.Warnings[0];
}

// A job the link's interrupt stopped is not reported (the interrupt says so,
// once) but counts as failed: no link may take its output.
TEST_F(DistributorTest, AnInterruptedJobIsNotReported) {
  Exec.Play = [](const BackendJob &) {
    return ExecutionResult::ended(ExitKind::Interrupted, "");
  };
  DistSummary Summary = run();
  EXPECT_EQ(Summary.Failed, 2u);
  EXPECT_TRUE(Status.Failures.empty());
}

TEST_F(DistributorTest, RemoteObjectWithoutFallbackFails) {
  Opts.Cache = nullptr;
  Exec.Play = [](const BackendJob &) {
    ExecutionResult R;
    R.Remote = true;
    R.Object = MemoryBuffer::getMemBufferCopy("");
    return R;
  };
  DistSummary Summary = run();
  EXPECT_EQ(Summary.Failed, 2u);
  ASSERT_EQ(Status.Failures.size(), 2u);
  EXPECT_NE(Status.Failures[0].find(": exited 0 on the remote but its output "),
            std::string::npos)
      << Status.Failures[0];
  EXPECT_NE(Status.Failures[0].find("' is empty"), std::string::npos);
}

TEST(DescribeExecutionTest, OneSentencePerOutcome) {
  EXPECT_EQ(describeExecution(ExecutionResult::exited(3)),
            "exited with status 3");
  ExecutionResult Crash =
      ExecutionResult::ended(ExitKind::Signalled, "Segmentation fault");
  EXPECT_EQ(describeExecution(Crash), "crashed: Segmentation fault");
  EXPECT_EQ(describeExecution(
                ExecutionResult::ended(ExitKind::NotStarted, "no compiler")),
            "could not be started: no compiler");
  ExecutionResult Remote = ExecutionResult::exited(2);
  Remote.Remote = true;
  EXPECT_EQ(describeExecution(Remote), "exited with status 2 on the remote");
  ExecutionResult Unreachable =
      ExecutionResult::ended(ExitKind::NotStarted, "server gone");
  Unreachable.Remote = true;
  EXPECT_EQ(describeExecution(Unreachable),
            "could not run remotely: server gone");
  ExecutionResult Slow = ExecutionResult::ended(ExitKind::TimedOut, "600 s");
  Slow.Remote = true;
  EXPECT_EQ(describeExecution(Slow), "timed out on the remote: 600 s");
}

} // namespace
