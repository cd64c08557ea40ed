//===- ResumedExecution.cpp - Execute, resumed after a broken stream ------===//

#include "ResumedExecution.h"
#include "RemoteDecision.h"

using namespace llvm;

namespace ulto {

using OperationReader =
    grpc::ClientReaderInterface<google::longrunning::Operation>;

// Reads the stream \p Call opens to its end: \p Name gets the operation's
// name as soon as the server gives it, \p Last the operation once done.
static grpc::Status readOperations(
    function_ref<std::unique_ptr<OperationReader>(grpc::ClientContext &)> Call,
    function_ref<void(grpc::ClientContext &)> Prepare, std::string &Name,
    google::longrunning::Operation &Last) {
  grpc::ClientContext Context;
  Prepare(Context);
  std::unique_ptr<OperationReader> Reader = Call(Context);
  google::longrunning::Operation Operation;
  while (Reader->Read(&Operation)) {
    if (!Operation.name().empty())
      Name = Operation.name();
    if (Operation.done())
      Last = Operation;
  }
  return Reader->Finish();
}

grpc::Status executeToEnd(reapi::Execution::StubInterface &Execution,
                          const reapi::ExecuteRequest &Request,
                          function_ref<void(grpc::ClientContext &)> Prepare,
                          unsigned MaxResumes,
                          google::longrunning::Operation &Last) {
  std::string Name;
  grpc::Status Status = readOperations(
      [&](grpc::ClientContext &Context) {
        return Execution.Execute(&Context, Request);
      },
      Prepare, Name, Last);
  for (unsigned Resumes = 0;
       !Last.done() && !Name.empty() && Resumes < MaxResumes &&
       (Status.ok() || isTransient(Status.error_code()));
       ++Resumes) {
    reapi::WaitExecutionRequest Wait;
    Wait.set_name(Name);
    Status = readOperations(
        [&](grpc::ClientContext &Context) {
          return Execution.WaitExecution(&Context, Wait);
        },
        Prepare, Name, Last);
    if (Status.error_code() == grpc::StatusCode::NOT_FOUND)
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "the stream of operation " + Name +
                              " broke and the server no longer knows it");
  }
  if (!Status.ok())
    return Status;
  if (!Last.done())
    return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                        "Execute ended before the action did");
  return grpc::Status::OK;
}

} // namespace ulto
