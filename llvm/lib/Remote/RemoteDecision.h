//===- RemoteDecision.h - What to do after a remote attempt -----*- C++ -*-===//
//
// Running a job remotely is a short loop: attempt, then decide whether the
// job is done, is tried again, runs on this machine, or fails. The decision
// is a pure function of what the attempts came to, the link's shared
// knowledge that the remote is lost, and the user's policy, so that every
// case is unit-tested (RemoteDecisionTest); the executor only makes the
// calls and carries the decision out.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LIB_REMOTE_REMOTEDECISION_H
#define ULTO_LIB_REMOTE_REMOTEDECISION_H

#include "ulto/Distributor/Executor.h"

#include <grpcpp/support/status.h>

namespace ulto {

/// What the attempts at running one job remotely have come to so far.
struct RemoteAttempt {
  enum KindType {
    None,        ///< Nothing tried yet.
    NotPrepared, ///< The action could not be made from the job's files.
    CallFailed,  ///< A call failed with Status.
    Ran,         ///< The action ran and exited with ExitCode.
  };
  KindType Kind = None;
  grpc::StatusCode Status = grpc::StatusCode::OK;
  /// For CallFailed: the farm ran the action and the action failed (it ran
  /// out of time, say); the server itself is fine.
  bool ActionFailed = false;
  int ExitCode = 0;
  /// Attempts made.
  unsigned Attempts = 0;
};

struct RemotePolicy {
  /// Attempts after the first, for failures that may pass.
  unsigned Retries = 3;
  /// Run a job here when the remote cannot; false: fail it.
  bool LocalFallback = true;
};

enum class RemoteStep {
  Attempt,    ///< Make an attempt (after a backoff, if one was made).
  Done,       ///< The action exited 0: take its object.
  RunLocally, ///< Run the job on this machine, for Fallback.
  Fail,       ///< The job fails, as Exit says.
};

struct RemoteDecision {
  RemoteStep Step;
  FallbackKind Fallback = FallbackKind::None;
  ExitKind Exit = ExitKind::Exited;
  /// The server is gone: every remaining job of the link runs here (or
  /// fails). The caller records it; whoever records it first says so.
  bool LoseRemote = false;
};

/// Whether a call that ended with \p Code may succeed if made again.
bool isTransient(grpc::StatusCode Code);

/// The next step for a job whose attempts came to \p A, when the link
/// already knows the remote is lost (\p RemoteLost) or not.
RemoteDecision decideRemoteStep(const RemoteAttempt &A, bool RemoteLost,
                                const RemotePolicy &Policy);

} // namespace ulto

#endif // ULTO_LIB_REMOTE_REMOTEDECISION_H
