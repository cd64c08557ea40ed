//===- RemoteExecutor.cpp - Backend jobs on a REAPI build farm ------------===//

#include "ulto/Remote/RemoteExecutor.h"

#include "Connection.h"
#include "ContentStore.h"
#include "RemoteAction.h"
#include "RemoteDecision.h"
#include "ResumedExecution.h"

#include "ulto/Distributor/ObjectCheck.h"
#include "ulto/LocalExecution/CrashReport.h"
#include "ulto/Remote/Capabilities.h"
#include "ulto/Support/Message.h"
#include "ulto/Support/Semaphore.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/TimeProfiler.h"
#include "llvm/Support/raw_ostream.h"

#include <random>
#include <thread>

using namespace llvm;

namespace ulto {

namespace {

/// The most of a job's stdout or stderr shown from the farm.
constexpr int64_t MaxOutputBytes = 1 << 20;

/// How one remote attempt ended, when it got an answer.
struct Outcome {
  reapi::ActionResult Result;
  bool CacheHit = false;
  std::unique_ptr<MemoryBuffer> Object;
  /// The failure is the action's (it timed out, say), not the server's.
  bool ActionFailed = false;
};

/// One job's way through the remote: its action and what came of it.
struct RemoteJob {
  RemoteJob(const JobList &List, const BackendJob &Job)
      : List(List), Job(Job) {}

  const JobList &List;
  const BackendJob &Job;
  RemoteAttempt Attempt;
  std::optional<RemoteAction> A;
  Outcome Out;
  /// What went wrong remotely, in the remote's words.
  std::string Why;
};

} // namespace

struct RemoteExecutor::Impl {
  Impl(RemoteExecutorOptions Options, Executor &Local, Connection Server,
       RemoteCapabilities Capabilities)
      : Options(std::move(Options)), Local(Local),
        Capabilities(std::move(Capabilities)), Server(std::move(Server)),
        Store(this->Server, this->Capabilities.MaxBatchTotalSizeBytes),
        ActionCache(reapi::ActionCache::NewStub(this->Server.channel())),
        Execution(reapi::Execution::NewStub(this->Server.channel())),
        LocalSlots(hardware_concurrency(this->Options.LocalJobs)
                       .compute_thread_count()),
        Actions(this->Options, this->Capabilities.OutputPaths) {}

  grpc::Status attempt(RemoteAction &A, Outcome &Out);
  grpc::Status execute(RemoteAction &A, Outcome &Out, bool SkipCache);
  std::string fetchOutput(const reapi::ActionResult &Result, RemoteAction &A);
  std::string remoteCommand(const RemoteAction &A) const;
  ExecutionResult runLocally(const JobList &List, const BackendJob &Job);
  ExecutionResult checkedObject(RemoteJob &R);
  RemoteDecision decide(const RemoteAttempt &Attempt);
  void attemptOnce(RemoteJob &R);
  ExecutionResult finish(const RemoteDecision &D, RemoteJob &R);

  RemoteExecutorOptions Options;
  Executor &Local;
  RemoteCapabilities Capabilities;
  Connection Server;
  ContentStore Store;
  std::unique_ptr<reapi::ActionCache::Stub> ActionCache;
  std::unique_ptr<reapi::Execution::Stub> Execution;
  Semaphore LocalSlots;
  ActionBuilder Actions;

  std::atomic<bool> Down{false};
  std::atomic<unsigned> Executed{0}, CacheHits{0}, RanLocally{0};
  std::atomic<unsigned> InFlight{0}, MostInFlight{0};
  std::atomic<uint64_t> InputBytes{0};
};

static grpc::Status fromRPCStatus(const google::rpc::Status &S) {
  return grpc::Status(static_cast<grpc::StatusCode>(S.code()), S.message());
}

grpc::Status RemoteExecutor::Impl::execute(RemoteAction &A, Outcome &Out,
                                           bool SkipCache) {
  std::vector<const Blob *> Blobs;
  for (const Blob &B : A.Blobs)
    Blobs.push_back(&B);
  {
    TimeTraceScope Scope("upload");
    if (grpc::Status S = Store.upload(Blobs, A.Digest.hash()); !S.ok())
      return S;
  }

  reapi::ExecuteRequest Request;
  Request.set_instance_name(Server.config().Instance);
  *Request.mutable_action_digest() = A.Digest;
  Request.set_skip_cache_lookup(SkipCache);
  TimeTraceScope Scope("remote execution");
  google::longrunning::Operation Last;
  grpc::Status Status = executeToEnd(
      *Execution, Request,
      [&](grpc::ClientContext &Context) {
        Server.prepare(Context, A.Digest.hash(),
                       Options.Timeout + std::chrono::minutes(1));
      },
      /*MaxResumes=*/Options.Retries + 1, Last);
  if (!Status.ok())
    return Status;
  Out.ActionFailed = true;
  if (Last.has_error())
    return fromRPCStatus(Last.error());
  reapi::ExecuteResponse Response;
  if (!Last.response().UnpackTo(&Response))
    return grpc::Status(grpc::StatusCode::INTERNAL,
                        "Execute answered no ExecuteResponse");
  if (Response.status().code() != 0) {
    // FAILED_PRECONDITION: the server lost inputs; send them again.
    if (Response.status().code() == grpc::StatusCode::FAILED_PRECONDITION)
      Store.forget(Blobs);
    return fromRPCStatus(Response.status());
  }
  Out.ActionFailed = false;
  Out.Result = Response.result();
  Out.CacheHit = Response.cached_result();
  return grpc::Status::OK;
}

// One attempt; \p Out starts empty.
grpc::Status RemoteExecutor::Impl::attempt(RemoteAction &A, Outcome &Out) {
  // The action cache first: a hit needs no uploads at all.
  reapi::GetActionResultRequest Request;
  Request.set_instance_name(Server.config().Instance);
  *Request.mutable_action_digest() = A.Digest;
  reapi::ActionResult Cached;
  grpc::Status Status;
  {
    TimeTraceScope Scope("remote cache lookup");
    grpc::ClientContext Context;
    Server.prepare(Context, A.Digest.hash(), std::chrono::seconds(60));
    Status = ActionCache->GetActionResult(&Context, Request, &Cached);
  }
  bool Hit = Status.ok() && Cached.exit_code() == 0;
  if (!Status.ok() && Status.error_code() != grpc::StatusCode::NOT_FOUND)
    return Status;
  if (Hit) {
    Out.Result = Cached;
    Out.CacheHit = true;
  } else if (grpc::Status S = execute(A, Out, /*SkipCache=*/false); !S.ok()) {
    return S;
  }
  if (Out.Result.exit_code() != 0)
    return grpc::Status::OK;

  auto Read = [&]() -> grpc::Status {
    TimeTraceScope Scope("download");
    for (const reapi::OutputFile &File : Out.Result.output_files())
      if (File.path() == A.Job.OutputPath) {
        Expected<BlobDownload> Download =
            BlobDownload::start(Options.DownloadDirectory, File.digest());
        if (!Download)
          return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                              toString(Download.takeError()));
        grpc::Status S = Store.read(File.digest(), *Download, A.Digest.hash());
        if (S.ok() || S.error_code() == grpc::StatusCode::DATA_LOSS)
          S = Download->finish("blob " + File.digest().hash(), Out.Object);
        return S;
      }
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        "the action exited 0 but returned no " +
                            A.Job.OutputPath);
  };
  Status = Read();
  // A cached result whose object the server has since dropped: run again.
  if (Status.error_code() == grpc::StatusCode::NOT_FOUND && Out.CacheHit) {
    if (grpc::Status S = execute(A, Out, /*SkipCache=*/true); !S.ok())
      return S;
    if (Out.Result.exit_code() != 0)
      return grpc::Status::OK;
    Status = Read();
  }
  return Status;
}

// The action's stdout and stderr, for a job that failed.
std::string RemoteExecutor::Impl::fetchOutput(const reapi::ActionResult &R,
                                              RemoteAction &A) {
  std::string Output = R.stdout_raw() + R.stderr_raw();
  for (const reapi::Digest *D : {&R.stdout_digest(), &R.stderr_digest()}) {
    // What a person reads: the farm may name gigabytes.
    if (D->size_bytes() > MaxOutputBytes) {
      Output += "[" + formatBytes(D->size_bytes()) + " of output not shown]\n";
      continue;
    }
    std::string Bytes;
    if (D->size_bytes() && Store.read(*D, Bytes, A.Digest.hash()).ok())
      Output += Bytes;
  }
  return withoutControls(Output);
}

// The command as the worker ran it, quoted for a shell.
std::string RemoteExecutor::Impl::remoteCommand(const RemoteAction &A) const {
  std::string Command;
  raw_string_ostream OS(Command);
  OS << A.Compiler;
  for (const std::string &Arg : A.Job.Args) {
    OS << ' ';
    sys::printArg(OS, Arg, /*Quote=*/false);
  }
  return Command;
}

// The farm's object, checked as the link checks every object (digest, ELF,
// target); one unfit to link runs the job here, when the remote may fall
// back, and the link checks that one.
ExecutionResult RemoteExecutor::Impl::checkedObject(RemoteJob &R) {
  ExecutionResult Result;
  Result.Remote = true;
  Result.RemoteCacheHit = R.Out.CacheHit;
  Result.Object = std::move(R.Out.Object);
  Error Unfit = Error::success();
  if (Options.LocalFallback) {
    Expected<Triple> Target = readModuleTriple(R.Job.module());
    Unfit = Target
                ? checkBackendObject(MemoryBufferRef(Result.Object->getBuffer(),
                                                     R.Job.output()),
                                     *Target)
                : Target.takeError();
  }
  if (!Unfit) {
    (R.Out.CacheHit ? CacheHits : Executed) += 1;
    return Result;
  }
  ExecutionResult Local = runLocally(R.List, R.Job);
  Local.Fallback = FallbackKind::JobUnfit;
  Local.FallbackReason = "the remote's object " + toString(std::move(Unfit));
  return Local;
}

ExecutionResult RemoteExecutor::Impl::runLocally(const JobList &List,
                                                 const BackendJob &Job) {
  TimeTraceScope Scope("local fallback");
  LocalSlots.acquire();
  ExecutionResult Result = Local.run(List, Job);
  LocalSlots.release();
  ++RanLocally;
  return Result;
}

// The next step, with the link's knowledge of the remote: whoever records
// the remote's loss first says so; the others were late.
RemoteDecision RemoteExecutor::Impl::decide(const RemoteAttempt &Attempt) {
  RemotePolicy Policy{Options.Retries, Options.LocalFallback};
  RemoteDecision D = decideRemoteStep(Attempt, Down, Policy);
  if (D.LoseRemote && Down.exchange(true))
    D = decideRemoteStep(Attempt, /*RemoteLost=*/true, Policy);
  return D;
}

// Prepares the action the first time, backs off before a retry, then calls.
void RemoteExecutor::Impl::attemptOnce(RemoteJob &R) {
  if (!R.A) {
    Expected<RemoteAction> Prepared = Actions.build(R.List, R.Job);
    if (!Prepared) {
      R.Attempt.Kind = RemoteAttempt::NotPrepared;
      R.Why = toString(Prepared.takeError());
      return;
    }
    R.A = std::move(*Prepared);
    InputBytes += R.A->InputBytes;
  } else {
    // Exponential backoff, with jitter so that jobs do not retry in step.
    std::mt19937 Jitter(std::hash<std::string>()(R.A->Digest.hash()) +
                        R.Attempt.Attempts);
    auto Delay =
        Options.Backoff * (1u << std::min(R.Attempt.Attempts - 1, 10u));
    std::this_thread::sleep_for(
        Delay / 2 + std::chrono::milliseconds(Jitter() % (Delay.count() + 1)));
  }

  unsigned Now = ++InFlight;
  unsigned Most = MostInFlight;
  while (Now > Most && !MostInFlight.compare_exchange_weak(Most, Now))
    ;
  R.Out = Outcome();
  grpc::Status Status = attempt(*R.A, R.Out);
  --InFlight;
  RemoteAttempt &A = R.Attempt;
  ++A.Attempts;
  A.Kind = Status.ok() ? RemoteAttempt::Ran : RemoteAttempt::CallFailed;
  A.Status = Status.error_code();
  A.ActionFailed = R.Out.ActionFailed;
  A.ExitCode = R.Out.Result.exit_code();
  if (!Status.ok())
    R.Why = Server.describe("running the job", Status) + " (" +
            std::to_string(A.Attempts) +
            (A.Attempts == 1 ? " attempt)" : " attempts)");
}

// Carries out a decision other than another attempt.
ExecutionResult RemoteExecutor::Impl::finish(const RemoteDecision &D,
                                             RemoteJob &R) {
  ExecutionResult Result;
  if (D.Step == RemoteStep::Done)
    return checkedObject(R);
  // An action that ran and failed tells its story in its output, which
  // says, too, whether clang-22 caught a crash of its job. The reproducers
  // it names are on the remote.
  std::string RemoteOutput;
  ExecutionResult Ran = ExecutionResult::exited(R.Attempt.ExitCode);
  if (R.Attempt.Kind == RemoteAttempt::Ran) {
    std::string Output = fetchOutput(R.Out.Result, *R.A);
    Ran = exitedAsReported(R.Attempt.ExitCode, readCrashReport(Output));
    RemoteOutput = "remote command: " + remoteCommand(*R.A) + "\n" + Output;
  }
  if (D.Step == RemoteStep::RunLocally) {
    Result = runLocally(R.List, R.Job);
    Result.Fallback = D.Fallback;
    Result.FallbackReason = std::move(R.Why);
    if (D.Fallback == FallbackKind::FailedRemotely) {
      Result.FallbackReason = describeExecution(Ran);
      Result.RemoteOutput = std::move(RemoteOutput);
    }
    return Result;
  }
  assert(D.Step == RemoteStep::Fail && "not a decision to carry out");
  if (D.Exit == ExitKind::Exited) {
    ++Executed;
    Result = std::move(Ran);
    Result.Output = std::move(RemoteOutput);
  } else {
    Result =
        ExecutionResult::ended(D.Exit, R.Attempt.Kind == RemoteAttempt::None
                                           ? "the remote failed earlier"
                                           : std::move(R.Why));
  }
  Result.Remote = true;
  return Result;
}

RemoteExecutor::RemoteExecutor(std::unique_ptr<Impl> I) : I(std::move(I)) {}
RemoteExecutor::~RemoteExecutor() = default;

Expected<std::unique_ptr<RemoteExecutor>>
RemoteExecutor::connect(RemoteExecutorOptions Options, Executor &Local) {
  Connection Server(Options.Server);
  Expected<RemoteCapabilities> Capabilities =
      fetchCapabilities(Server, std::chrono::seconds(10));
  if (!Capabilities)
    return Capabilities.takeError();
  std::string URL = Options.Server.URL;
  if (!is_contained(Capabilities->DigestFunctions, "SHA256"))
    return createStringError("remote %s: it hashes with %s; ulto needs SHA256",
                             URL.c_str(),
                             join(Capabilities->DigestFunctions, "/").c_str());
  if (!Capabilities->ExecutionEnabled)
    return createStringError("remote %s: it does not execute actions",
                             URL.c_str());
  return std::unique_ptr<RemoteExecutor>(new RemoteExecutor(
      std::make_unique<Impl>(std::move(Options), Local, std::move(Server),
                             std::move(*Capabilities))));
}

std::string RemoteExecutor::name() const {
  return "remote " + I->Options.Server.URL;
}

ExecutionResult RemoteExecutor::run(const JobList &List,
                                    const BackendJob &Job) {
  RemoteJob R(List, Job);
  while (true) {
    RemoteDecision D = I->decide(R.Attempt);
    if (D.Step != RemoteStep::Attempt)
      return I->finish(D, R);
    I->attemptOnce(R);
  }
}

std::string RemoteExecutor::report() const {
  std::string S;
  raw_string_ostream OS(S);
  unsigned Hits = I->CacheHits;
  OS << I->Executed << " run remotely, " << Hits << " remote cache "
     << (Hits == 1 ? "hit" : "hits") << ", " << I->RanLocally
     << " run locally; sent " << formatBytes(I->Store.bytesSent()) << " for "
     << formatBytes(I->InputBytes) << " of inputs; " << I->MostInFlight
     << " in flight at most";
  return S;
}

} // namespace ulto
