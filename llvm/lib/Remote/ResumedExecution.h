//===- ResumedExecution.h - Execute, resumed after a broken stream -*- C++
//-*-===//
//
// An Execute call is a stream that lasts as long as its action. When the
// stream breaks (a proxy's idle limit, a load balancer's restart, a dropped
// network path), the action goes on running on the farm, and sending it
// again would run it twice. REAPI names the operation in the stream's first
// message and lets a client wait for it by that name (WaitExecution), as
// Bazel does; only a server that no longer knows the operation gets the
// action again.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LIB_REMOTE_RESUMEDEXECUTION_H
#define ULTO_LIB_REMOTE_RESUMEDEXECUTION_H

#include "build/bazel/remote/execution/v2/remote_execution.grpc.pb.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <grpcpp/grpcpp.h>

namespace ulto {

namespace reapi = build::bazel::remote::execution::v2;

/// Calls Execute with \p Request and follows its operation to the end,
/// resuming a stream that breaks with WaitExecution on the operation's name,
/// at most \p MaxResumes times. \p Prepare sets up each call's context. On
/// success \p Last is the operation, done. A server that no longer knows the
/// operation yields UNAVAILABLE, so that the caller's next attempt sends the
/// action again.
grpc::Status
executeToEnd(reapi::Execution::StubInterface &Execution,
             const reapi::ExecuteRequest &Request,
             llvm::function_ref<void(grpc::ClientContext &)> Prepare,
             unsigned MaxResumes, google::longrunning::Operation &Last);

} // namespace ulto

#endif // ULTO_LIB_REMOTE_RESUMEDEXECUTION_H
