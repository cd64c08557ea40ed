//===- ResumedExecutionTest.cpp - Execute, resumed after a broken stream --===//
//
// An execution service in this process, on loopback, whose Execute stream
// breaks after naming its operation, as a dropped connection breaks it, while
// the action goes on. The client waits for the operation by its name and the
// action runs once; a server that no longer knows the operation makes the
// call UNAVAILABLE, for the caller's next attempt to send the action again.
//
//===----------------------------------------------------------------------===//

#include "ResumedExecution.h"

#include "Common/LoopbackServer.h"

#include "gtest/gtest.h"

#include <atomic>

using namespace ulto;
namespace lr = google::longrunning;

namespace {

class FakeExecution final : public reapi::Execution::Service {
public:
  // How many Execute streams break after naming the operation, and whether
  // the server still knows the operation afterwards.
  int BreakExecute = 1;
  bool Forgets = false;
  std::atomic<int> Executions{0}, Waits{0};

  grpc::Status Execute(grpc::ServerContext *, const reapi::ExecuteRequest *,
                       grpc::ServerWriter<lr::Operation> *Writer) override {
    ++Executions;
    Writer->Write(named());
    if (BreakExecute-- > 0)
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "connection reset");
    Writer->Write(finished());
    return grpc::Status::OK;
  }

  grpc::Status
  WaitExecution(grpc::ServerContext *,
                const reapi::WaitExecutionRequest *Request,
                grpc::ServerWriter<lr::Operation> *Writer) override {
    ++Waits;
    if (Forgets || Request->name() != "operations/1")
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "no such operation");
    Writer->Write(finished());
    return grpc::Status::OK;
  }

private:
  static lr::Operation named() {
    lr::Operation Op;
    Op.set_name("operations/1");
    return Op;
  }
  static lr::Operation finished() {
    lr::Operation Op = named();
    Op.set_done(true);
    reapi::ExecuteResponse Response;
    Response.mutable_result()->set_exit_code(0);
    Op.mutable_response()->PackFrom(Response);
    return Op;
  }
};

class ResumedExecutionTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string Address;
    Server = test::startLoopbackServer({&Service}, Address);
    ASSERT_TRUE(Server);
    Stub = reapi::Execution::NewStub(
        grpc::CreateChannel(Address, grpc::InsecureChannelCredentials()));
  }
  void TearDown() override { Server->Shutdown(); }

  grpc::Status run(unsigned MaxResumes) {
    reapi::ExecuteRequest Request;
    return executeToEnd(
        *Stub, Request, [](grpc::ClientContext &) {}, MaxResumes, Last);
  }

  FakeExecution Service;
  std::unique_ptr<grpc::Server> Server;
  std::unique_ptr<reapi::Execution::Stub> Stub;
  lr::Operation Last;
};

TEST_F(ResumedExecutionTest, AnUnbrokenStreamEndsTheOperation) {
  Service.BreakExecute = 0;
  ASSERT_TRUE(run(3).ok());
  EXPECT_TRUE(Last.done());
  EXPECT_EQ(Service.Executions, 1);
  EXPECT_EQ(Service.Waits, 0);
}

TEST_F(ResumedExecutionTest, ABrokenStreamIsResumedByName) {
  grpc::Status Status = run(3);
  ASSERT_TRUE(Status.ok()) << Status.error_message();
  EXPECT_TRUE(Last.done());
  EXPECT_EQ(Service.Executions, 1);
  EXPECT_EQ(Service.Waits, 1);
}

TEST_F(ResumedExecutionTest, AForgottenOperationIsForTheNextAttempt) {
  Service.Forgets = true;
  grpc::Status Status = run(3);
  EXPECT_EQ(Status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(Status.error_message().find("no longer knows"), std::string::npos)
      << Status.error_message();
  EXPECT_EQ(Service.Executions, 1);
  EXPECT_EQ(Service.Waits, 1);
}

TEST_F(ResumedExecutionTest, WithoutResumesTheBrokenStreamFails) {
  grpc::Status Status = run(0);
  EXPECT_EQ(Status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_FALSE(Last.done());
  EXPECT_EQ(Service.Waits, 0);
}

} // namespace
