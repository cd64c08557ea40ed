//===- WorkerServiceTest.cpp - Backend workers that outlive a link --------===//
//
// The services here are forks of the test, serving a stand-in compiler under
// a name of the test's own.
//
//===----------------------------------------------------------------------===//

#include "ulto/LocalExecution/WorkerService.h"
#include "ulto/Distributor/JobList.h"
#include "ulto/LocalExecution/LocalExecutor.h"

#include "Common/ErrorText.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

// A stand-in compiler: "where" prints its process, directory and $PWD;
// "sleep" prints its process, then sleeps.
int fakeMain(ArrayRef<const char *> Argv) {
  SmallString<256> Directory;
  sys::fs::current_path(Directory);
  outs() << getpid() << "\n";
  if (Argv.size() == 2 && StringRef(Argv[1]) == "sleep") {
    outs().flush();
    sleep(60);
    return 1;
  }
  const char *Pwd = getenv("PWD");
  outs() << Directory << "\n" << (Pwd ? Pwd : "(none)") << "\n";
  return 0;
}

std::string uniqueName() {
  static int Count = 0;
  return "ulto-test-" + std::to_string(getpid()) + "-" +
         std::to_string(Count++);
}

// A service forked from the test, in "/", as a started one would be.
struct Service {
  std::string Name = uniqueName();
  pid_t Pid = -1;

  explicit Service(
      std::chrono::milliseconds IdleLimit = std::chrono::seconds(30),
      const ForkServer::MainFn &Main = fakeMain) {
    Expected<int> Listening = listenAsWorkerService(Name);
    EXPECT_EQ(errorText(Listening), "");
    if (!Listening)
      return;
    Pid = fork();
    if (Pid == 0) {
      if (chdir("/") != 0)
        _exit(1);
      ForkServer::Options Opts;
      Opts.IdleWorkers = 1;
      ForkServer::serve(*Listening, Main, Opts, IdleLimit);
    }
    close(*Listening);
  }
  ~Service() {
    if (Pid > 0) {
      kill(Pid, SIGKILL);
      waitpid(Pid, nullptr, 0);
    }
  }
  // How it ended, within \p Seconds; -1 if it has not.
  int waitStatus(int Seconds) {
    for (int Waited = 0; Waited < Seconds * 100; ++Waited) {
      int Status;
      if (waitpid(Pid, &Status, WNOHANG) == Pid) {
        Pid = -1;
        return Status;
      }
      usleep(10000);
    }
    return -1;
  }
};

std::unique_ptr<ForkServer> connect(const Service &S) {
  Expected<std::unique_ptr<ForkServer>> Link = connectToWorkerService(S.Name);
  EXPECT_EQ(errorText(Link), "");
  if (!Link)
    return nullptr;
  EXPECT_TRUE(*Link);
  return std::move(*Link);
}

struct Ended {
  ForkServer::Status Status;
  std::vector<std::string> Lines;
};

// \p Text as the whole of \p Path, written to a new file renamed over it,
// as a build or a package upgrade writes a library.
std::error_code writeFileAtomically(StringRef Path, StringRef Text) {
  std::string Temporary = (Path + ".tmp").str();
  {
    std::error_code EC;
    raw_fd_ostream OS(Temporary, EC);
    if (EC)
      return EC;
    OS << Text;
  }
  return sys::fs::rename(Temporary, Path);
}

Ended run(ForkServer &Link, std::vector<std::string> Argv) {
  SmallString<128> OutputFile;
  EXPECT_FALSE(sys::fs::createTemporaryFile("service", "txt", OutputFile));
  FileRemover Remover(OutputFile);
  Ended Result = {Link.run(Argv, OutputFile), {}};
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> Output =
          MemoryBuffer::getFile(OutputFile, /*IsText=*/true)) {
    SmallVector<StringRef, 4> Lines;
    (*Output)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef Line : Lines)
      Result.Lines.push_back(Line.str());
  }
  return Result;
}

// Runs the rest of the test in \p Directory, with $PWD naming it.
struct InDirectory {
  SmallString<256> Before;
  std::optional<std::string> Pwd;
  explicit InDirectory(StringRef Directory) {
    sys::fs::current_path(Before);
    if (const char *Old = getenv("PWD"))
      Pwd = Old;
    EXPECT_FALSE(sys::fs::set_current_path(Directory));
    setenv("PWD", Directory.str().c_str(), 1);
  }
  ~InDirectory() {
    EXPECT_FALSE(sys::fs::set_current_path(Before));
    if (Pwd)
      setenv("PWD", Pwd->c_str(), 1);
    else
      unsetenv("PWD");
  }
};

TEST(WorkerServiceTest, TheNameFollowsWhatJobsInherit) {
  ForkServer::Options Opts;
  std::string Name = workerServiceName("clang", {"/no/ulto"}, Opts);
  EXPECT_TRUE(StringRef(Name).starts_with("ulto-workers-" +
                                          std::to_string(geteuid()) + "-"));
  EXPECT_EQ(workerServiceName("clang", {"/no/ulto"}, Opts), Name);
  // What the jobs read.
  setenv("ULTO_TEST_VARIABLE", "1", 1);
  EXPECT_NE(workerServiceName("clang", {"/no/ulto"}, Opts), Name);
  unsetenv("ULTO_TEST_VARIABLE");
  mode_t Mask = umask(077);
  EXPECT_NE(workerServiceName("clang", {"/no/ulto"}, Opts), Name);
  umask(Mask);
  EXPECT_NE(workerServiceName("other", {"/no/ulto"}, Opts), Name);
  EXPECT_NE(workerServiceName("clang", {"/other/ulto"}, Opts), Name);
  // A library rebuilt or upgraded.
  unittest::TempDir Dir("name", /*Unique=*/true);
  std::string Library = (Dir.path() + "/libclang-cpp.so").str();
  ASSERT_FALSE(writeFileAtomically(Library, "old"));
  std::string Before = workerServiceName("clang", {"/no/ulto", Library}, Opts);
  EXPECT_EQ(workerServiceName("clang", {"/no/ulto", Library}, Opts), Before);
  ASSERT_FALSE(writeFileAtomically(Library, "new"));
  EXPECT_NE(workerServiceName("clang", {"/no/ulto", Library}, Opts), Before);
  ForkServer::Options OneJobEach;
  OneJobEach.JobsPerWorker = 1;
  EXPECT_NE(workerServiceName("clang", {"/no/ulto"}, OneJobEach), Name);
  // What names the caller's shell, or comes with each job.
  const char *Pwd = getenv("PWD");
  std::string Saved = Pwd ? Pwd : "";
  setenv("PWD", "/elsewhere", 1);
  setenv("SHLVL", "7", 1);
  EXPECT_EQ(workerServiceName("clang", {"/no/ulto"}, Opts), Name);
  if (Pwd)
    setenv("PWD", Saved.c_str(), 1);
  else
    unsetenv("PWD");
  EXPECT_EQ(workerServiceName("clang", {"/no/ulto"}, Opts), Name);
}

// The listening sockets of this user's services, not their connections,
// nor another user's services, nor names another user made with this user's
// ID but without the user's secret.
TEST(WorkerServiceTest, CountsTheUsersListeningServices) {
  std::string Mine = "@" + workerServicePrefix();
  std::string Forged = "@ulto-workers-" + std::to_string(geteuid()) + "-";
  std::string Other = "@ulto-workers-" + std::to_string(geteuid() + 1) + "-";
  ASSERT_NE(Mine, Forged);
  std::string Table =
      "Num       RefCount Protocol Flags    Type St Inode Path\n"
      "0000000000000001: 00000002 00000000 00010000 0005 01 11 " +
      Mine + "aa\n" +
      "0000000000000002: 00000003 00000000 00000000 0005 03 12 " + Mine +
      "aa\n" + "0000000000000003: 00000002 00000000 00010000 0005 01 13 " +
      Mine + "bb\n" +
      "0000000000000004: 00000002 00000000 00010000 0005 01 14 " + Other +
      "cc\n" + "0000000000000005: 00000002 00000000 00010000 0005 01 15 " +
      Forged + "dd\n" +
      "0000000000000006: 00000002 00000000 00010000 0001 01 16 "
      "/run/other.sock\n"
      "0000000000000007: 00000003 00000000 00000000 0001 03 17\n";
  EXPECT_EQ(countWorkerServices(Table, [](StringRef) { return true; }), 2u);
  // A name of the user's another user listens at does not count.
  EXPECT_EQ(countWorkerServices(
                Table, [&](StringRef Name) { return !Name.ends_with("bb"); }),
            1u);
  // And live: the machine may run others.
  std::vector<int> Held;
  for (int I = 0; I != 2; ++I) {
    Expected<int> Listening = listenAsWorkerService(
        workerServicePrefix() + "test-" + std::to_string(getpid()) + "-" +
        std::to_string(I));
    ASSERT_EQ(errorText(Listening), "");
    Held.push_back(*Listening);
  }
  EXPECT_GE(countWorkerServices(), 2u);
  for (int Socket : Held)
    close(Socket);
}

// Another user reads the user's names, secret and all, in /proc/net/unix,
// and listens at names like them: they do not count toward --service-limit.
TEST(WorkerServiceTest, AnotherUsersListenersDoNotCount) {
  if (geteuid() != 0)
    GTEST_SKIP() << "needs root to listen as another user";
  int Ready[2];
  ASSERT_EQ(pipe(Ready), 0);
  pid_t Child = fork();
  if (Child == 0) {
    close(Ready[0]);
    std::string Name =
        workerServicePrefix() + "forged-" + std::to_string(getpid());
    if (setresgid(65534, 65534, 65534) != 0 ||
        setresuid(65534, 65534, 65534) != 0)
      _exit(1);
    Expected<int> Listening = listenAsWorkerService(Name);
    if (!Listening)
      _exit(2);
    (void)!write(Ready[1], "x", 1);
    pause();
    _exit(0);
  }
  close(Ready[1]);
  char Byte;
  ASSERT_EQ(read(Ready[0], &Byte, 1), 1);
  close(Ready[0]);
  // The forged listener's line of the table: there, and not counted.
  std::string Forged = "forged-" + std::to_string(Child);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Table =
      MemoryBuffer::getFileAsStream("/proc/net/unix");
  ASSERT_TRUE(bool(Table));
  std::string Lines;
  for (StringRef Line : split((*Table)->getBuffer(), '\n'))
    if (Line.contains(Forged))
      Lines += Line.str() + "\n";
  EXPECT_EQ(countWorkerServices(Lines, [](StringRef) { return true; }), 1u);
  EXPECT_EQ(countWorkerServices(Lines), 0u);
  kill(Child, SIGKILL);
  waitpid(Child, nullptr, 0);
}

TEST(WorkerServiceTest, TheSecretIsMadeOnceAndKept) {
  unittest::TempDir Dir("secret", /*Unique=*/true);
  std::string Private(Dir.path("services"));
  std::string Secret = serviceSecret(Private);
  EXPECT_EQ(Secret.size(), 16u);
  EXPECT_TRUE(llvm::all_of(Secret, [](char C) { return isHexDigit(C); }));
  EXPECT_EQ(serviceSecret(Private), Secret);
  // A half-made one is made again.
  ASSERT_FALSE(writeFileAtomically(Private + "/secret", "12"));
  std::string Again = serviceSecret(Private);
  EXPECT_EQ(Again.size(), 16u);
}

TEST(WorkerServiceTest, TheSecondLinkOfAnEnvironmentStartsItsService) {
  unittest::TempDir Dir("visits", /*Unique=*/true);
  std::string Visits = (Dir.path() + "/visits").str();
  auto Visit = [&](StringRef Name) {
    return visitStartsWorkerService(Visits, Name, std::chrono::seconds(60));
  };
  EXPECT_FALSE(Visit("a")); // Alone so far: leaves nothing running.
  EXPECT_FALSE(Visit("b"));
  EXPECT_TRUE(Visit("a"));
  // Started within the minute: it ended early, and is not started again.
  EXPECT_FALSE(Visit("a"));
  EXPECT_FALSE(Visit("a"));
  // A minute later the records are old: a visit is a first one again.
  for (StringRef Name : {"a", "b"}) {
    Expected<sys::fs::file_t> Record =
        sys::fs::openNativeFileForRead(Visits + "/" + Name);
    ASSERT_TRUE(bool(Record));
    EXPECT_FALSE(sys::fs::setLastAccessAndModificationTime(
        *Record, std::chrono::system_clock::now() - std::chrono::minutes(2)));
    sys::fs::closeFile(*Record);
  }
  EXPECT_FALSE(Visit("a"));
  EXPECT_TRUE(Visit("a"));
  EXPECT_FALSE(Visit("b"));
  EXPECT_TRUE(Visit("b"));
}

TEST(WorkerServiceTest, WithoutARecordOfVisitsNoLinkStartsAService) {
  unittest::TempDir Dir("visits", /*Unique=*/true);
  std::string NotADirectory = (Dir.path() + "/file").str();
  ASSERT_FALSE(writeFileAtomically(NotADirectory, ""));
  EXPECT_FALSE(
      visitStartsWorkerService(NotADirectory, "a", std::chrono::seconds(60)));
  EXPECT_FALSE(
      visitStartsWorkerService(NotADirectory, "a", std::chrono::seconds(60)));
}

TEST(WorkerServiceTest, NoneServesAnUnknownName) {
  Expected<std::unique_ptr<ForkServer>> Link =
      connectToWorkerService(uniqueName());
  ASSERT_EQ(errorText(Link), "");
  EXPECT_FALSE(*Link);
}

TEST(WorkerServiceTest, OneServiceListensUnderAName) {
  std::string Name = uniqueName();
  Expected<int> First = listenAsWorkerService(Name);
  ASSERT_EQ(errorText(First), "");
  ASSERT_GE(*First, 0);
  Expected<int> Second = listenAsWorkerService(Name);
  ASSERT_EQ(errorText(Second), "");
  EXPECT_EQ(*Second, -1);
  close(*First);
}

// Each link's jobs run in its directory, with its $PWD, in warm workers that
// outlive the link.
TEST(WorkerServiceTest, JobsRunInTheirLinksDirectoryInWarmWorkers) {
  Service S;
  unittest::TempDir Dir("service", /*Unique=*/true);
  SmallString<256> Real;
  ASSERT_FALSE(sys::fs::real_path(Dir.path(), Real));
  InDirectory In(Real);

  std::unique_ptr<ForkServer> First = connect(S);
  ASSERT_TRUE(First);
  EXPECT_TRUE(First->isService());
  EXPECT_EQ(First->process(), S.Pid);
  Ended A = run(*First, {"cc", "where"});
  EXPECT_EQ(A.Status.Kind, ForkServer::Status::Exited);
  EXPECT_EQ(A.Status.Code, 0);
  ASSERT_EQ(A.Lines.size(), 3u);
  EXPECT_EQ(A.Lines[1], Real.str());
  EXPECT_EQ(A.Lines[2], Real.str());
  First.reset();

  std::unique_ptr<ForkServer> Second = connect(S);
  ASSERT_TRUE(Second);
  Ended B = run(*Second, {"cc", "where"});
  ASSERT_EQ(B.Lines.size(), 3u);
  EXPECT_EQ(B.Lines[0], A.Lines[0]); // The same worker.
  EXPECT_NE(B.Lines[0], std::to_string(S.Pid));
}

TEST(WorkerServiceTest, AnIdleServiceEnds) {
  Service S(std::chrono::milliseconds(100));
  {
    std::unique_ptr<ForkServer> Link = connect(S);
    ASSERT_TRUE(Link);
    EXPECT_EQ(run(*Link, {"cc", "where"}).Status.Code, 0);
  }
  int Status = S.waitStatus(/*Seconds=*/10);
  ASSERT_NE(Status, -1);
  EXPECT_TRUE(WIFEXITED(Status));
  EXPECT_EQ(WEXITSTATUS(Status), 0);
}

// A link that dies while its job runs has it stopped; the service goes on.
TEST(WorkerServiceTest, ALinkThatHangsUpHasItsJobsStopped) {
  Service S;
  SmallString<128> OutputFile;
  ASSERT_FALSE(sys::fs::createTemporaryFile("service", "txt", OutputFile));
  FileRemover Remover(OutputFile);
  pid_t Link = fork();
  if (Link == 0) {
    Expected<std::unique_ptr<ForkServer>> Connected =
        connectToWorkerService(S.Name);
    if (Connected && *Connected)
      (*Connected)->run({"cc", "sleep"}, OutputFile);
    _exit(0);
  }
  pid_t Job = 0;
  for (int Waited = 0; Waited < 1000 && !Job; ++Waited) {
    usleep(10000);
    ErrorOr<std::unique_ptr<MemoryBuffer>> Output =
        MemoryBuffer::getFile(OutputFile);
    if (Output)
      StringRef((*Output)->getBuffer()).trim().getAsInteger(10, Job);
  }
  ASSERT_GT(Job, 0);
  kill(Link, SIGKILL);
  waitpid(Link, nullptr, 0);
  bool Stopped = false;
  for (int Waited = 0; Waited < 500 && !Stopped; ++Waited) {
    usleep(10000);
    Stopped = kill(Job, 0) != 0;
  }
  EXPECT_TRUE(Stopped);
  std::unique_ptr<ForkServer> Next = connect(S);
  ASSERT_TRUE(Next);
  EXPECT_EQ(run(*Next, {"cc", "where"}).Status.Code, 0);
}

// The link runs its jobs itself then (LocalExecutor).
TEST(WorkerServiceTest, AServiceThatEndedStartsNoJob) {
  Service S;
  std::unique_ptr<ForkServer> Link = connect(S);
  ASSERT_TRUE(Link);
  kill(S.Pid, SIGKILL);
  ASSERT_NE(S.waitStatus(/*Seconds=*/10), -1);
  EXPECT_EQ(run(*Link, {"cc", "where"}).Status.Kind,
            ForkServer::Status::NotForked);
}

// A worker that sees its service end under it mid-job.
int endServiceMidJob(ArrayRef<const char *>) {
  kill(getppid(), SIGKILL);
  sleep(60);
  return 1;
}

// The link reruns here the job of a service that ended mid-job.
TEST(WorkerServiceTest, AJobWhoseServiceEndedRunsHere) {
  unittest::TempDir Dir("rerun", /*Unique=*/true);
  std::string Compiler(Dir.path("cc")), Shard(Dir.path("m.o.thinlto.bc"));
  std::string Object(Dir.path("m.native.o"));
  // The job's compiler here: it writes its object if it can read its shard.
  ASSERT_FALSE(writeFileAtomically(Compiler, R"(#!/bin/sh
for a; do
  case $a in -fthinlto-index=*) cat "${a#-fthinlto-index=}" >/dev/null || exit 1 ;; esac
  [ "$prev" = -o ] && out=$a
  prev=$a
done
echo object > "$out"
)"));
  ASSERT_EQ(chmod(Compiler.c_str(), 0755), 0);
  ASSERT_FALSE(writeFileAtomically(Shard, "the shard"));
  JobList List;
  List.LinkerOutput = std::string(Dir.path("app"));
  List.CommonArgs = {Compiler};
  BackendJob Job;
  Job.Inputs = {std::string(Dir.path("m.o")), Shard};
  Job.Outputs = {Object};
  Job.Args = {Job.Inputs[0], "-fthinlto-index=" + Shard, "-o", Object};
  List.Jobs.push_back(Job);

  Service S(std::chrono::seconds(30), endServiceMidJob);
  std::unique_ptr<ForkServer> Link = connect(S);
  ASSERT_TRUE(Link);
  LocalExecutor Local(Link.get());
  ExecutionResult R = Local.run(List, List.Jobs[0]);
  EXPECT_TRUE(R.succeeded()) << describeExecution(R) << R.Output;
  EXPECT_TRUE(sys::fs::exists(Object));
  EXPECT_NE(Local.report().find("1 job ran here"), std::string::npos)
      << Local.report();
}

} // namespace
