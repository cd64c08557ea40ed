//===- ForkServerTest.cpp - Jobs as forks of a server ---------------------===//

#include "ulto/LocalExecution/ForkServer.h"

#include "Common/ErrorText.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <chrono>
#include <csignal>
#include <cstring>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

// A stand-in compiler: prints its arguments; "fail N" exits N, "crash"
// aborts.
int fakeMain(ArrayRef<const char *> Argv) {
  for (const char *Arg : Argv.drop_front())
    outs() << Arg << "\n";
  outs().flush();
  errs() << "on stderr\n";
  if (Argv.size() == 3 && StringRef(Argv[1]) == "fail")
    return std::atoi(Argv[2]);
  if (Argv.size() == 2 && StringRef(Argv[1]) == "crash")
    std::abort();
  return 0;
}

struct Ended {
  ForkServer::Status Status;
  std::string Output;
};

Ended run(ForkServer &Server, std::vector<std::string> Argv) {
  SmallString<128> OutputFile;
  EXPECT_FALSE(sys::fs::createTemporaryFile("forkserver", "txt", OutputFile));
  FileRemover Remover(OutputFile);
  Ended Result = {Server.run(Argv, OutputFile), ""};
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> Output =
          MemoryBuffer::getFile(OutputFile, /*IsText=*/true))
    Result.Output = (*Output)->getBuffer().str();
  return Result;
}

TEST(ForkServerTest, RunsJobsAndReportsHowTheyEnded) {
  Expected<std::unique_ptr<ForkServer>> Server = ForkServer::start(fakeMain);
  ASSERT_EQ(errorText(Server), "");

  Ended Ok = run(**Server, {"cc", "a b", "c"});
  EXPECT_EQ(Ok.Status.Kind, ForkServer::Status::Exited);
  EXPECT_EQ(Ok.Status.Code, 0);
  EXPECT_EQ(Ok.Output, "a b\nc\non stderr\n");

  Ended Failed = run(**Server, {"cc", "fail", "3"});
  EXPECT_EQ(Failed.Status.Kind, ForkServer::Status::Exited);
  EXPECT_EQ(Failed.Status.Code, 3);
  EXPECT_EQ(Failed.Output, "fail\n3\non stderr\n");

  Ended Crashed = run(**Server, {"cc", "crash"});
  EXPECT_EQ(Crashed.Status.Kind, ForkServer::Status::Signalled);
  EXPECT_EQ(Crashed.Status.Code, SIGABRT);
}

// Prints what an LLVM stack dump of the child would name (its pretty stack
// trace, innermost first); "crash" then ends it as a caught SIGSEGV would.
int printsStackTrace(ArrayRef<const char *> Argv) {
  for (auto *Entry =
           static_cast<const PrettyStackTraceEntry *>(SavePrettyStackState());
       Entry; Entry = Entry->getNextEntry())
    Entry->print(outs());
  if (Argv.size() == 2 && StringRef(Argv[1]) == "crash")
    ForkServer::endChildBySignal(SIGSEGV);
  return 0;
}

// A child is its job: its stack dump names the job's command line, not the
// server's; a crash its main function caught is reported as the signal.
TEST(ForkServerTest, ChildIsTheJobWhenItCrashes) {
  const char *DistArgv[] = {"ulto", "dist", "jobs.json"};
  PrettyStackTraceProgram Dist(3, DistArgv);
  Expected<std::unique_ptr<ForkServer>> Server =
      ForkServer::start(printsStackTrace);
  ASSERT_EQ(errorText(Server), "");

  Ended Ok = run(**Server, {"cc", "-c", "a.o"});
  EXPECT_EQ(Ok.Status.Kind, ForkServer::Status::Exited);
  EXPECT_EQ(Ok.Output, "Program arguments: cc -c a.o\n");

  Ended Crashed = run(**Server, {"cc", "crash"});
  EXPECT_EQ(Crashed.Status.Kind, ForkServer::Status::Signalled);
  EXPECT_EQ(Crashed.Status.Code, SIGSEGV);
  EXPECT_EQ(Crashed.Output, "Program arguments: cc crash\n");
}

TEST(ForkServerTest, ManyJobsAtOnce) {
  Expected<std::unique_ptr<ForkServer>> Server = ForkServer::start(fakeMain);
  ASSERT_EQ(errorText(Server), "");
  std::vector<Ended> Results(16);
  std::vector<std::thread> Threads;
  for (size_t I = 0; I != Results.size(); ++I)
    Threads.emplace_back([&, I] {
      Results[I] = run(**Server, {"cc", "fail", std::to_string(I)});
    });
  for (std::thread &T : Threads)
    T.join();
  for (size_t I = 0; I != Results.size(); ++I) {
    EXPECT_EQ(Results[I].Output,
              "fail\n" + std::to_string(I) + "\non stderr\n");
    EXPECT_EQ(Results[I].Status.Kind, ForkServer::Status::Exited);
    EXPECT_EQ(Results[I].Status.Code, int(I));
  }
}

// A stand-in compiler that prints the process it runs in; "fail" exits 1,
// "crash" aborts.
int printsProcess(ArrayRef<const char *> Argv) {
  outs() << getpid() << "\n";
  outs().flush();
  if (Argv.size() == 2 && StringRef(Argv[1]) == "fail")
    return 1;
  if (Argv.size() == 2 && StringRef(Argv[1]) == "crash")
    std::abort();
  return 0;
}

// The processes that ran \p Jobs, one after another (the first line of
// their output: a crash adds its stack dump).
std::vector<std::string> processes(ForkServer &Server,
                                   ArrayRef<std::string> Jobs) {
  std::vector<std::string> Processes;
  for (const std::string &Job : Jobs)
    Processes.push_back(
        StringRef(run(Server, {"cc", Job}).Output).split('\n').first.str());
  return Processes;
}

// The processes that ran \p Jobs, one after another, on a server started
// with \p Opts.
std::vector<std::string> processesWith(const ForkServer::Options &Opts,
                                       ArrayRef<std::string> Jobs) {
  Expected<std::unique_ptr<ForkServer>> Server =
      ForkServer::start(printsProcess, Opts);
  EXPECT_EQ(errorText(Server), "");
  if (!Server)
    return std::vector<std::string>(Jobs.size());
  return processes(**Server, Jobs);
}

// Jobs run one after another in one worker, as long as they succeed.
TEST(ForkServerTest, JobsShareAWorker) {
  Expected<std::unique_ptr<ForkServer>> Server =
      ForkServer::start(printsProcess);
  ASSERT_EQ(errorText(Server), "");
  std::vector<std::string> P = processes(**Server, {"a", "b", "c"});
  EXPECT_NE(P[0], "");
  EXPECT_NE(P[0], std::to_string(getpid()));
  EXPECT_EQ(P[1], P[0]);
  EXPECT_EQ(P[2], P[0]);
}

// A failed or crashed job takes its worker with it; the next job gets a new
// one and runs.
TEST(ForkServerTest, AFailedJobRetiresItsWorker) {
  Expected<std::unique_ptr<ForkServer>> Server =
      ForkServer::start(printsProcess);
  ASSERT_EQ(errorText(Server), "");
  std::vector<std::string> P =
      processes(**Server, {"a", "fail", "b", "crash", "c", "d"});
  EXPECT_EQ(P[1], P[0]);
  EXPECT_NE(P[2], P[1]);
  EXPECT_EQ(P[3], P[2]);
  EXPECT_NE(P[4], P[3]);
  EXPECT_EQ(P[5], P[4]);

  Ended Crashed = run(**Server, {"cc", "crash"});
  EXPECT_EQ(Crashed.Status.Kind, ForkServer::Status::Signalled);
  EXPECT_EQ(Crashed.Status.Code, SIGABRT);
  Ended Next = run(**Server, {"cc", "e"});
  EXPECT_EQ(Next.Status.Kind, ForkServer::Status::Exited);
  EXPECT_EQ(Next.Status.Code, 0);
}

TEST(ForkServerTest, AWorkerRetiresAfterItsJobs) {
  ForkServer::Options Opts;
  Opts.JobsPerWorker = 2;
  std::vector<std::string> P = processesWith(Opts, {"a", "b", "c", "d", "e"});
  EXPECT_EQ(P[1], P[0]);
  EXPECT_NE(P[2], P[1]);
  EXPECT_EQ(P[3], P[2]);
  EXPECT_NE(P[4], P[3]);
}

TEST(ForkServerTest, OneJobPerWorker) {
  ForkServer::Options Opts;
  Opts.JobsPerWorker = 1;
  std::vector<std::string> P = processesWith(Opts, {"a", "b"});
  EXPECT_NE(P[1], P[0]);
}

TEST(ForkServerTest, AWorkerRetiresAtItsMemoryLimit) {
  ForkServer::Options Opts;
  Opts.WorkerMemory = 1;
  std::vector<std::string> P = processesWith(Opts, {"a", "b"});
  EXPECT_NE(P[1], P[0]);
}

// Resident pages of process \p Pid, or -1.
long residentPages(const std::string &Pid) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Statm =
      MemoryBuffer::getFileAsStream("/proc/" + Pid + "/statm");
  long Pages = -1;
  if (Statm)
    (*Statm)->getBuffer().split(' ').second.split(' ').first.getAsInteger(
        10, Pages);
  return Pages;
}

// A stand-in compiler with a heap to match a backend's: 16 MiB in blocks of
// 1 MiB, written and freed. Prints the page faults that took.
int allocatesAndPrintsFaults(ArrayRef<const char *>) {
  struct rusage Before, After;
  getrusage(RUSAGE_SELF, &Before);
  std::vector<char *> Blocks;
  for (int I = 0; I != 16; ++I) {
    Blocks.push_back(static_cast<char *>(std::malloc(1 << 20)));
    std::memset(Blocks.back(), 1, 1 << 20);
  }
  for (char *Block : Blocks)
    std::free(Block);
  getrusage(RUSAGE_SELF, &After);
  // Then the pages it keeps resident as it ends.
  outs() << (After.ru_minflt - Before.ru_minflt) << " "
         << residentPages(std::to_string(getpid())) << "\n";
  return 0;
}

// The page faults of the next job of \p Server's worker, and the pages it
// left resident.
std::pair<long, long> nextJob(ForkServer &Server) {
  long Faults = -1, Resident = -1;
  auto [F, R] = StringRef(run(Server, {"cc"}).Output).trim().split(' ');
  F.getAsInteger(10, Faults);
  R.getAsInteger(10, Resident);
  return {Faults, Resident};
}
long nextJobFaults(ForkServer &Server) { return nextJob(Server).first; }

// The memory a job freed serves the next job of its worker: it faults in
// 16 MiB (4096 pages) once, not for every job.
TEST(ForkServerTest, AWorkerKeepsItsHeapForItsNextJob) {
  Expected<std::unique_ptr<ForkServer>> Server =
      ForkServer::start(allocatesAndPrintsFaults);
  ASSERT_EQ(errorText(Server), "");
  std::vector<long> Faults;
  for (int I = 0; I != 3; ++I)
    Faults.push_back(nextJobFaults(**Server));
  EXPECT_GE(Faults[0], 4096);
  // Without it, each job faults in its 4096 pages again.
  EXPECT_LT(Faults[1], 1024);
  EXPECT_LT(Faults[2], 1024);
}

// A server of allocatesAndPrintsFaults whose idle workers keep their memory
// for \p KeepMemory.
Expected<std::unique_ptr<ForkServer>>
serverKeepingMemory(std::chrono::milliseconds KeepMemory) {
  ForkServer::Options Opts;
  Opts.KeepMemoryWhileIdle = KeepMemory;
  return ForkServer::start(allocatesAndPrintsFaults, Opts);
}

// An idle worker keeps the memory for its next job for
// Opts.KeepMemoryWhileIdle: a service's workers wait between links.
TEST(ForkServerTest, AnIdleWorkerKeepsTheMemoryForAWhile) {
  Expected<std::unique_ptr<ForkServer>> Server =
      serverKeepingMemory(std::chrono::hours(1));
  ASSERT_EQ(errorText(Server), "");
  EXPECT_GE(nextJobFaults(**Server), 4096);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_LT(nextJobFaults(**Server), 1024);
}

std::vector<std::string> childrenOf(pid_t Parent);

// Then it gives it back: waited for until the worker's resident set shrinks
// (no time window), after which its next job faults its heap in again.
TEST(ForkServerTest, AnIdleWorkerThenGivesTheMemoryBack) {
  Expected<std::unique_ptr<ForkServer>> Server =
      serverKeepingMemory(std::chrono::milliseconds(1));
  ASSERT_EQ(errorText(Server), "");
  auto [Faults, Resident] = nextJob(**Server);
  EXPECT_GE(Faults, 4096);
  std::vector<std::string> Workers = childrenOf((*Server)->process());
  ASSERT_EQ(Workers.size(), 1u);
  // The 16 MiB it freed, 4096 pages, go back.
  auto Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (residentPages(Workers[0]) + 3072 > Resident &&
         std::chrono::steady_clock::now() < Deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_LT(std::chrono::steady_clock::now(), Deadline)
      << "the worker kept its memory";
  EXPECT_GE(nextJobFaults(**Server), 3072);
}

// The processes whose parent is \p Parent.
std::vector<std::string> childrenOf(pid_t Parent) {
  std::vector<std::string> Children;
  std::error_code EC;
  for (sys::fs::directory_iterator It("/proc", EC), End; It != End && !EC;
       It.increment(EC)) {
    // Read to its end: /proc's files say they are empty.
    ErrorOr<std::unique_ptr<MemoryBuffer>> Stat =
        MemoryBuffer::getFileAsStream(It->path() + "/stat");
    if (!Stat)
      continue;
    // The parent's ID is the second field after the command's ")".
    StringRef Fields = (*Stat)->getBuffer();
    Fields = Fields.drop_front(Fields.rfind(')') + 2);
    SmallVector<StringRef, 4> Parts;
    Fields.split(Parts, ' ', /*MaxSplit=*/3);
    if (Parts.size() > 1 && Parts[1] == std::to_string(Parent))
      Children.push_back(sys::path::filename(It->path()).str());
  }
  return Children;
}

// Idle workers wait for the first jobs, which run in them.
TEST(ForkServerTest, IdleWorkersTakeTheFirstJobs) {
  ForkServer::Options Opts;
  Opts.IdleWorkers = 2;
  Expected<std::unique_ptr<ForkServer>> Server =
      ForkServer::start(printsProcess, Opts);
  ASSERT_EQ(errorText(Server), "");
  std::vector<std::string> Idle;
  for (int Waited = 0; Waited < 5000 && Idle.size() < 2; Waited += 10) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    Idle = childrenOf((*Server)->process());
  }
  ASSERT_EQ(Idle.size(), 2u);
  std::vector<std::string> P = processes(**Server, {"a", "b"});
  EXPECT_TRUE(is_contained(Idle, P[0])) << P[0];
  EXPECT_TRUE(is_contained(Idle, P[1])) << P[1];
}

// A job that would leave state behind for later jobs runs in a worker of its
// own; the others still share theirs.
TEST(ForkServerTest, JobsThatChangeStateRunAlone) {
  ForkServer::Options Opts;
  Opts.MayShareWorker = [](ArrayRef<const char *> Argv) {
    return StringRef(Argv.back()) != "stateful";
  };
  std::vector<std::string> P =
      processesWith(Opts, {"a", "stateful", "b", "stateful"});
  EXPECT_NE(P[1], P[0]);
  EXPECT_EQ(P[2], P[0]);
  EXPECT_NE(P[3], P[1]);
  EXPECT_NE(P[3], P[0]);
}

// SIGTERM, which the server gets when `ulto dist` dies or is interrupted,
// stops the running jobs with SIGTERM (clang removes its temporary output on
// it) and ends the server.
TEST(ForkServerTest, SigtermStopsTheJobsAndTheServer) {
  int Started[2];
  ASSERT_EQ(pipe(Started), 0);
  Expected<std::unique_ptr<ForkServer>> Server =
      ForkServer::start([&](ArrayRef<const char *>) {
        char Byte = 0;
        (void)!write(Started[1], &Byte, 1);
        for (;;)
          pause();
        return 0;
      });
  ASSERT_EQ(errorText(Server), "");
  Ended Stopped;
  std::thread Job([&] { Stopped = run(**Server, {"cc"}); });
  char Byte;
  EXPECT_EQ(read(Started[0], &Byte, 1), 1);
  kill((*Server)->process(), SIGTERM);
  Job.join();
  EXPECT_EQ(Stopped.Status.Kind, ForkServer::Status::Signalled);
  EXPECT_EQ(Stopped.Status.Code, SIGTERM);
  // Nothing runs any more.
  EXPECT_EQ(run(**Server, {"cc"}).Status.Kind, ForkServer::Status::NotForked);
  close(Started[0]);
  close(Started[1]);
}

} // namespace
