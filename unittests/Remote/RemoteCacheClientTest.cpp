//===- RemoteCacheClientTest.cpp - A team's cache on a fake server --------===//
//
// The remote cache client over an in-memory transport: a miss is uploaded
// (the object, then an ActionResult naming it) and is another client's
// hit; a read-only client uploads nothing; a failing server is one warning
// and no more calls; a damaged entry is a miss with a warning; a server
// that takes no results from clients is read only.
//
//===----------------------------------------------------------------------===//

#include "CacheTransport.h"

#include "Common/TestJobs.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <map>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

struct FakeServer {
  std::mutex Mutex;
  std::map<std::string, reapi::ActionResult> Actions; // By hash.
  std::map<std::string, std::string> Blobs;           // By hash.
  int Calls = 0;
  grpc::StatusCode Failure = grpc::StatusCode::OK; ///< Every call's.
  std::string FailureMessage = "the server is gone";
  bool Damage = false; ///< Blobs read wrong.
};

class FakeTransport final : public CacheTransport {
public:
  explicit FakeTransport(FakeServer &S) : S(S) {}

  grpc::Status getActionResult(const reapi::Digest &Action,
                               reapi::ActionResult &Result) override {
    std::lock_guard<std::mutex> Lock(S.Mutex);
    if (grpc::Status F = failure(); !F.ok())
      return F;
    auto It = S.Actions.find(Action.hash());
    if (It == S.Actions.end())
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "");
    Result = It->second;
    return grpc::Status::OK;
  }
  grpc::Status readBlob(const reapi::Digest &Digest,
                        BlobDownload &Into) override {
    std::lock_guard<std::mutex> Lock(S.Mutex);
    if (grpc::Status F = failure(); !F.ok())
      return F;
    auto It = S.Blobs.find(Digest.hash());
    if (It == S.Blobs.end())
      return grpc::Status(grpc::StatusCode::NOT_FOUND, "");
    // Sent in pieces, as a transport receives them.
    StringRef Bytes = S.Damage ? StringRef("other bytes") : It->second;
    for (size_t At = 0; At < Bytes.size(); At += 3)
      if (!Into.append(Bytes.substr(At, 3)))
        return grpc::Status(grpc::StatusCode::DATA_LOSS, "too long");
    return grpc::Status::OK;
  }
  grpc::Status writeBlob(const Blob &B, const std::atomic<bool> &) override {
    std::lock_guard<std::mutex> Lock(S.Mutex);
    if (grpc::Status F = failure(); !F.ok())
      return F;
    S.Blobs[B.Digest.hash()] = B.Bytes;
    return grpc::Status::OK;
  }
  grpc::Status updateActionResult(const reapi::Digest &Action,
                                  const reapi::ActionResult &Result,
                                  const std::atomic<bool> &) override {
    std::lock_guard<std::mutex> Lock(S.Mutex);
    if (grpc::Status F = failure(); !F.ok())
      return F;
    S.Actions[Action.hash()] = Result;
    return grpc::Status::OK;
  }
  uint64_t bytesDown() const override { return 0; }
  uint64_t bytesUp() const override { return 0; }

private:
  grpc::Status failure() {
    ++S.Calls;
    return S.Failure == grpc::StatusCode::OK
               ? grpc::Status::OK
               : grpc::Status(S.Failure, S.FailureMessage);
  }
  FakeServer &S;
};

std::unique_ptr<RemoteCache> client(FakeServer &S, bool ReadOnly = false,
                                    bool Writable = true,
                                    VersionProbe AskVersion = nullptr) {
  RemoteCacheOptions Options;
  Options.Remote.Server.URL = "grpc://cache:1";
  Options.Remote.AskVersion = std::move(AskVersion);
  Options.ReadOnly = ReadOnly;
  return makeRemoteCache(std::move(Options), std::make_unique<FakeTransport>(S),
                         /*OutputPaths=*/true, Writable);
}

class RemoteCacheClientTest : public ::testing::Test {
protected:
  unittest::TempDir Dir{"remote-cache", /*Unique=*/true};
  JobList List = writeLink(Dir.path(), "m.o", "i.o", "import");
  const BackendJob &Job = List.Jobs[0];
  FakeServer Server;
};

TEST_F(RemoteCacheClientTest, AMissIsUploadedAndIsAnotherClientsHit) {
  std::unique_ptr<RemoteCache> CI = client(Server);
  RemoteLookup Miss = CI->lookup(List, Job);
  EXPECT_FALSE(Miss.Object);
  EXPECT_EQ(Miss.Warning, "");
  CI->store(List, Job, "object bytes");
  EXPECT_TRUE(CI->finish().empty());
  RemoteCacheCounts C = CI->counts();
  EXPECT_EQ(C.Misses, 1u);
  EXPECT_EQ(C.Uploaded, 1u);
  ASSERT_EQ(Server.Actions.size(), 1u);
  const reapi::ActionResult &Result = Server.Actions.begin()->second;
  ASSERT_EQ(Result.output_files_size(), 1);
  EXPECT_EQ(Result.output_files(0).path(), "backend.o");
  EXPECT_EQ(Server.Blobs[Result.output_files(0).digest().hash()],
            "object bytes");

  std::unique_ptr<RemoteCache> Developer = client(Server, /*ReadOnly=*/true);
  RemoteLookup Hit = Developer->lookup(List, Job);
  ASSERT_TRUE(Hit.Object);
  EXPECT_EQ(Hit.Object->getBuffer(), "object bytes");
  EXPECT_EQ(Developer->counts().Hits, 1u);
  // The distributor found it unfit to link: a bad entry, not a hit.
  Developer->rejected(Job);
  C = Developer->counts();
  EXPECT_EQ(C.Hits, 0u);
  EXPECT_EQ(C.BadEntries, 1u);
}

TEST_F(RemoteCacheClientTest, ReadOnlyUploadsNothing) {
  std::unique_ptr<RemoteCache> Developer = client(Server, /*ReadOnly=*/true);
  EXPECT_FALSE(Developer->lookup(List, Job).Object);
  Developer->store(List, Job, "object bytes");
  EXPECT_TRUE(Developer->finish().empty());
  EXPECT_TRUE(Server.Actions.empty());
  EXPECT_TRUE(Server.Blobs.empty());
  EXPECT_EQ(Developer->counts().Uploaded, 0u);
}

TEST_F(RemoteCacheClientTest, AFailingServerIsOneWarningAndNoMoreCalls) {
  Server.Failure = grpc::StatusCode::UNAVAILABLE;
  std::unique_ptr<RemoteCache> CI = client(Server);
  RemoteLookup First = CI->lookup(List, Job);
  EXPECT_FALSE(First.Object);
  EXPECT_EQ(First.Warning, "remote cache grpc://cache:1: the server is gone; "
                           "this link goes on without it");
  EXPECT_EQ(CI->lookup(List, Job).Warning, "");
  CI->store(List, Job, "object bytes");
  EXPECT_TRUE(CI->finish().empty());
  EXPECT_EQ(Server.Calls, 1);
  EXPECT_EQ(CI->counts().Misses, 2u);
}

// The server's words reach the terminal without its escape sequences.
TEST_F(RemoteCacheClientTest, AServersMessageIsShownWithoutControls) {
  Server.Failure = grpc::StatusCode::UNAVAILABLE;
  Server.FailureMessage = "gone\x1b]0;title\x07\x1b[2J";
  EXPECT_EQ(client(Server)->lookup(List, Job).Warning,
            "remote cache grpc://cache:1: gone\\x1b]0;title\\x07\\x1b[2J; "
            "this link goes on without it");
}

TEST_F(RemoteCacheClientTest, AServerGoneWhileUploadingIsAskedNoMore) {
  std::unique_ptr<RemoteCache> CI = client(Server);
  CI->lookup(List, Job);
  Server.Failure = grpc::StatusCode::UNAVAILABLE;
  CI->store(List, Job, "object bytes");
  std::vector<std::string> Warnings = CI->finish();
  ASSERT_EQ(Warnings.size(), 1u);
  EXPECT_EQ(Warnings[0], "remote cache grpc://cache:1: 1 of its uploads "
                         "failed: the server is gone");
  int Calls = Server.Calls;
  EXPECT_EQ(CI->lookup(List, Job).Warning, "");
  EXPECT_EQ(Server.Calls, Calls);
}

TEST_F(RemoteCacheClientTest, ADamagedEntryIsAMissWithAWarning) {
  client(Server)->store(List, Job, "never asked for");
  EXPECT_TRUE(Server.Actions.empty()); // Only jobs that missed go up.
  std::unique_ptr<RemoteCache> CI = client(Server);
  CI->lookup(List, Job);
  CI->store(List, Job, "object bytes");
  CI->finish();
  Server.Damage = true;
  RemoteLookup Damaged = client(Server)->lookup(List, Job);
  EXPECT_FALSE(Damaged.Object);
  EXPECT_NE(Damaged.Warning.find("its entry for '" + Job.module().str() +
                                 "' is damaged (cas/"),
            std::string::npos)
      << Damaged.Warning;
  EXPECT_NE(Damaged.Warning.find(" holds other bytes); running the "
                                 "job"),
            std::string::npos)
      << Damaged.Warning;
}

// An entry the distributor rejects (another target's object) is replaced
// by the object of the job that then runs here.
TEST_F(RemoteCacheClientTest, ARejectedEntryIsReplaced) {
  std::unique_ptr<RemoteCache> CI = client(Server);
  CI->lookup(List, Job);
  CI->store(List, Job, "another target's object");
  CI->finish();
  std::unique_ptr<RemoteCache> Next = client(Server);
  ASSERT_TRUE(Next->lookup(List, Job).Object);
  Next->rejected(Job);
  Next->store(List, Job, "object bytes");
  EXPECT_TRUE(Next->finish().empty());
  EXPECT_EQ(Next->counts().Uploaded, 1u);
  RemoteLookup Hit = client(Server)->lookup(List, Job);
  ASSERT_TRUE(Hit.Object);
  EXPECT_EQ(Hit.Object->getBuffer(), "object bytes");
}

TEST_F(RemoteCacheClientTest, AFailedRunIsNoHit) {
  std::unique_ptr<RemoteCache> CI = client(Server);
  CI->lookup(List, Job);
  CI->store(List, Job, "object bytes");
  CI->finish();
  Server.Actions.begin()->second.set_exit_code(1);
  EXPECT_FALSE(client(Server)->lookup(List, Job).Object);
}

TEST_F(RemoteCacheClientTest, AServerThatTakesNoResultsIsReadOnly) {
  std::unique_ptr<RemoteCache> CI =
      client(Server, /*ReadOnly=*/false, /*Writable=*/false);
  EXPECT_EQ(CI->lookup(List, Job).Warning,
            "remote cache grpc://cache:1: the server takes no results from "
            "clients; this link only reads it");
  CI->store(List, Job, "object bytes");
  CI->finish();
  EXPECT_TRUE(Server.Actions.empty());
}

// The action names the compiler's identity: another build of the compiler
// at the same path makes other entries, not wrong ones.
TEST_F(RemoteCacheClientTest, AnotherCompilerAtTheSamePathIsAnotherEntry) {
  List.CommonArgs[0] = "/bin/sh";
  auto Says = [](std::string Version) -> VersionProbe {
    return [Version](const std::string &, StringRef File) -> Error {
      writeFile(File, Version);
      return Error::success();
    };
  };
  std::unique_ptr<RemoteCache> CI =
      client(Server, false, true, Says("clang version 22.1.8"));
  CI->lookup(List, Job);
  CI->store(List, Job, "object bytes");
  CI->finish();
  ASSERT_EQ(Server.Actions.size(), 1u);
  EXPECT_FALSE(client(Server, true, true, Says("clang version 22.1.9"))
                   ->lookup(List, Job)
                   .Object);
  EXPECT_FALSE(client(Server, true, true)->lookup(List, Job).Object);
  EXPECT_TRUE(client(Server, true, true, Says("clang version 22.1.8"))
                  ->lookup(List, Job)
                  .Object);
}

} // namespace
