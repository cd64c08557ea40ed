//===- RemoteDecisionTest.cpp - Every case of the remote's next step ------===//
//
// decideRemoteStep over every kind of attempt, every gRPC status, attempts
// below and beyond the retries, the remote lost or not, and local fallback
// on or off: the rules hold in each combination, and the named cases give
// the step the user sees.
//
//===----------------------------------------------------------------------===//

#include "RemoteDecision.h"

#include "gtest/gtest.h"

using namespace ulto;
using grpc::StatusCode;

namespace {

RemoteAttempt callFailed(StatusCode Status, unsigned Attempts,
                         bool ActionFailed = false) {
  RemoteAttempt A;
  A.Kind = RemoteAttempt::CallFailed;
  A.Status = Status;
  A.Attempts = Attempts;
  A.ActionFailed = ActionFailed;
  return A;
}

RemoteAttempt ran(int ExitCode) {
  RemoteAttempt A;
  A.Kind = RemoteAttempt::Ran;
  A.ExitCode = ExitCode;
  A.Attempts = 1;
  return A;
}

constexpr RemotePolicy Fallback{/*Retries=*/3, /*LocalFallback=*/true};
constexpr RemotePolicy NoFallback{/*Retries=*/3, /*LocalFallback=*/false};

TEST(RemoteDecisionTest, FirstAttemptUnlessTheRemoteIsLost) {
  EXPECT_EQ(decideRemoteStep({}, false, Fallback).Step, RemoteStep::Attempt);
  RemoteDecision Lost = decideRemoteStep({}, true, Fallback);
  EXPECT_EQ(Lost.Step, RemoteStep::RunLocally);
  EXPECT_EQ(Lost.Fallback, FallbackKind::AfterRemoteLost);
  RemoteDecision Never = decideRemoteStep({}, true, NoFallback);
  EXPECT_EQ(Never.Step, RemoteStep::Fail);
  EXPECT_EQ(Never.Exit, ExitKind::NotStarted);
}

TEST(RemoteDecisionTest, AnActionThatRan) {
  EXPECT_EQ(decideRemoteStep(ran(0), false, Fallback).Step, RemoteStep::Done);
  EXPECT_EQ(decideRemoteStep(ran(0), true, NoFallback).Step, RemoteStep::Done);
  RemoteDecision Here = decideRemoteStep(ran(1), false, Fallback);
  EXPECT_EQ(Here.Step, RemoteStep::RunLocally);
  EXPECT_EQ(Here.Fallback, FallbackKind::FailedRemotely);
  RemoteDecision Failed = decideRemoteStep(ran(2), false, NoFallback);
  EXPECT_EQ(Failed.Step, RemoteStep::Fail);
  EXPECT_EQ(Failed.Exit, ExitKind::Exited);
}

TEST(RemoteDecisionTest, AJobTheRemoteCannotTake) {
  RemoteAttempt NotPrepared;
  NotPrepared.Kind = RemoteAttempt::NotPrepared;
  RemoteDecision Here = decideRemoteStep(NotPrepared, false, Fallback);
  EXPECT_EQ(Here.Step, RemoteStep::RunLocally);
  EXPECT_EQ(Here.Fallback, FallbackKind::JobUnfit);
  EXPECT_FALSE(Here.LoseRemote);
  RemoteDecision Failed = decideRemoteStep(NotPrepared, false, NoFallback);
  EXPECT_EQ(Failed.Step, RemoteStep::Fail);
  EXPECT_EQ(Failed.Exit, ExitKind::NotStarted);
}

TEST(RemoteDecisionTest, NamedCases) {
  // A server that stops answering is retried, then lost for the link.
  EXPECT_EQ(
      decideRemoteStep(callFailed(StatusCode::UNAVAILABLE, 1), false, Fallback)
          .Step,
      RemoteStep::Attempt);
  RemoteDecision Gone =
      decideRemoteStep(callFailed(StatusCode::UNAVAILABLE, 4), false, Fallback);
  EXPECT_EQ(Gone.Step, RemoteStep::RunLocally);
  EXPECT_EQ(Gone.Fallback, FallbackKind::RemoteLost);
  EXPECT_TRUE(Gone.LoseRemote);
  // An action that outlives its time: run here, the remote stays.
  RemoteDecision Slow = decideRemoteStep(
      callFailed(StatusCode::DEADLINE_EXCEEDED, 4, /*ActionFailed=*/true),
      false, Fallback);
  EXPECT_EQ(Slow.Step, RemoteStep::RunLocally);
  EXPECT_EQ(Slow.Fallback, FallbackKind::JobUnfit);
  EXPECT_FALSE(Slow.LoseRemote);
  RemoteDecision TimedOut = decideRemoteStep(
      callFailed(StatusCode::DEADLINE_EXCEEDED, 4, /*ActionFailed=*/true),
      false, NoFallback);
  EXPECT_EQ(TimedOut.Step, RemoteStep::Fail);
  EXPECT_EQ(TimedOut.Exit, ExitKind::TimedOut);
  // Lost inputs are sent again.
  EXPECT_EQ(decideRemoteStep(callFailed(StatusCode::FAILED_PRECONDITION, 2),
                             false, NoFallback)
                .Step,
            RemoteStep::Attempt);
  // A refusal does not pass by trying again.
  RemoteDecision Denied = decideRemoteStep(
      callFailed(StatusCode::PERMISSION_DENIED, 1), false, Fallback);
  EXPECT_EQ(Denied.Step, RemoteStep::RunLocally);
  EXPECT_EQ(Denied.Fallback, FallbackKind::JobUnfit);
}

// Every status code, attempt count, loss state and policy.
TEST(RemoteDecisionTest, RulesHoldInEveryCase) {
  for (int Code = 1; Code <= int(StatusCode::UNAUTHENTICATED); ++Code)
    for (unsigned Attempts : {1u, 3u, 4u, 9u})
      for (bool ActionFailed : {false, true})
        for (bool Lost : {false, true})
          for (RemotePolicy Policy : {Fallback, NoFallback}) {
            StatusCode Status = StatusCode(Code);
            RemoteAttempt A = callFailed(Status, Attempts, ActionFailed);
            RemoteDecision D = decideRemoteStep(A, Lost, Policy);
            SCOPED_TRACE(testing::Message()
                         << "status " << Code << ", attempt " << Attempts
                         << ", action failed " << ActionFailed << ", lost "
                         << Lost << ", fallback " << Policy.LocalFallback);
            bool MayPass = isTransient(Status) ||
                           Status == StatusCode::FAILED_PRECONDITION;
            // Retries: only for what may pass, within the count, while the
            // remote is there.
            EXPECT_EQ(D.Step == RemoteStep::Attempt,
                      MayPass && Attempts <= Policy.Retries && !Lost);
            // A failed call is never done.
            EXPECT_NE(D.Step, RemoteStep::Done);
            // Without fallback nothing runs here; with it nothing fails.
            EXPECT_NE(D.Step, Policy.LocalFallback ? RemoteStep::Fail
                                                   : RemoteStep::RunLocally);
            // Only an unreachable server, not an action, is lost, and only
            // once.
            EXPECT_EQ(D.LoseRemote, D.Step != RemoteStep::Attempt &&
                                        isTransient(Status) && !ActionFailed &&
                                        !Lost);
            if (D.Step == RemoteStep::RunLocally) {
              EXPECT_NE(D.Fallback, FallbackKind::None);
              EXPECT_NE(D.Fallback, FallbackKind::FailedRemotely);
              EXPECT_EQ(D.Fallback == FallbackKind::RemoteLost, D.LoseRemote);
              if (Lost) {
                EXPECT_EQ(D.Fallback, FallbackKind::AfterRemoteLost);
              }
            }
            if (D.Step == RemoteStep::Fail) {
              EXPECT_EQ(D.Exit,
                        ActionFailed && Status == StatusCode::DEADLINE_EXCEEDED
                            ? ExitKind::TimedOut
                            : ExitKind::NotStarted);
            }
          }
}

TEST(RemoteDecisionTest, TransientCodes) {
  for (StatusCode Code :
       {StatusCode::UNAVAILABLE, StatusCode::DEADLINE_EXCEEDED,
        StatusCode::RESOURCE_EXHAUSTED, StatusCode::ABORTED,
        StatusCode::INTERNAL, StatusCode::UNKNOWN, StatusCode::DATA_LOSS})
    EXPECT_TRUE(isTransient(Code)) << Code;
  for (StatusCode Code :
       {StatusCode::OK, StatusCode::NOT_FOUND, StatusCode::INVALID_ARGUMENT,
        StatusCode::PERMISSION_DENIED, StatusCode::UNAUTHENTICATED,
        StatusCode::FAILED_PRECONDITION, StatusCode::UNIMPLEMENTED})
    EXPECT_FALSE(isTransient(Code)) << Code;
}

} // namespace
