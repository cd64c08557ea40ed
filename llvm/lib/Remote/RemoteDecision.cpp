//===- RemoteDecision.cpp - What to do after a remote attempt -------------===//

#include "RemoteDecision.h"

namespace ulto {

bool isTransient(grpc::StatusCode Code) {
  switch (Code) {
  case grpc::StatusCode::UNAVAILABLE:
  case grpc::StatusCode::DEADLINE_EXCEEDED:
  case grpc::StatusCode::RESOURCE_EXHAUSTED:
  case grpc::StatusCode::ABORTED:
  case grpc::StatusCode::INTERNAL:
  case grpc::StatusCode::UNKNOWN:
  case grpc::StatusCode::DATA_LOSS:
    return true;
  default:
    return false;
  }
}

RemoteDecision decideRemoteStep(const RemoteAttempt &A, bool RemoteLost,
                                const RemotePolicy &Policy) {
  auto Step = [](RemoteStep S) { return RemoteDecision{S}; };
  auto Local = [](FallbackKind Why) {
    return RemoteDecision{RemoteStep::RunLocally, Why};
  };
  auto Fail = [](ExitKind Exit) {
    return RemoteDecision{RemoteStep::Fail, FallbackKind::None, Exit};
  };
  // The remote cannot run this job, though it may run others.
  auto Unfit = [&](ExitKind Exit) {
    return Policy.LocalFallback ? Local(FallbackKind::JobUnfit) : Fail(Exit);
  };

  switch (A.Kind) {
  case RemoteAttempt::None:
    if (!RemoteLost)
      return Step(RemoteStep::Attempt);
    return Policy.LocalFallback ? Local(FallbackKind::AfterRemoteLost)
                                : Fail(ExitKind::NotStarted);
  case RemoteAttempt::NotPrepared:
    return Unfit(ExitKind::NotStarted);
  case RemoteAttempt::Ran:
    if (A.ExitCode == 0)
      return Step(RemoteStep::Done);
    return Policy.LocalFallback ? Local(FallbackKind::FailedRemotely)
                                : Fail(ExitKind::Exited);
  case RemoteAttempt::CallFailed:
    break;
  }

  bool Transient = isTransient(A.Status);
  // FAILED_PRECONDITION: the server lost inputs, which are sent again.
  bool MayPass = Transient || A.Status == grpc::StatusCode::FAILED_PRECONDITION;
  if (MayPass && A.Attempts <= Policy.Retries && !RemoteLost)
    return Step(RemoteStep::Attempt);
  // A server that stays unreachable is gone for the rest of the link.
  if (Transient && !A.ActionFailed && !RemoteLost) {
    RemoteDecision D = Policy.LocalFallback ? Local(FallbackKind::RemoteLost)
                                            : Fail(ExitKind::NotStarted);
    D.LoseRemote = true;
    return D;
  }
  if (RemoteLost && Policy.LocalFallback)
    return Local(FallbackKind::AfterRemoteLost);
  bool TimedOut =
      A.ActionFailed && A.Status == grpc::StatusCode::DEADLINE_EXCEEDED;
  return Unfit(TimedOut ? ExitKind::TimedOut : ExitKind::NotStarted);
}

} // namespace ulto
