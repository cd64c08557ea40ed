//===- ContentStoreTest.cpp - Uploads and downloads against a CAS ---------===//
//
// A content-addressable storage service in this process, on loopback, that
// keeps blobs in memory and counts what it is sent. Uploads ask first and
// send only what is missing, once however many jobs need a blob at once;
// batches stay under the server's limit and larger blobs are streamed;
// downloads fall back to ByteStream when batch reads are unimplemented, and
// a blob that arrives damaged is an error.
//
//===----------------------------------------------------------------------===//

#include "ContentStore.h"

#include "Common/LoopbackServer.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <thread>

using namespace llvm;
using namespace ulto;
namespace bs = google::bytestream;

namespace {

class FakeStorage final : public reapi::ContentAddressableStorage::Service,
                          public bs::ByteStream::Service {
public:
  std::mutex Mutex;
  std::map<std::string, std::string> Blobs; // By hash.
  int FindCalls = 0, BatchUploads = 0, StreamUploads = 0, BlobsUploaded = 0;
  int64_t LargestBatch = 0;
  bool BatchReads = true;
  bool Damage = false;
  bool Endless = false; ///< Read streams until the client gives up.

  /// The metadata of the last FindMissingBlobs call, by name.
  std::map<std::string, std::string> Metadata;

  grpc::Status
  FindMissingBlobs(grpc::ServerContext *Context,
                   const reapi::FindMissingBlobsRequest *Request,
                   reapi::FindMissingBlobsResponse *Reply) override {
    std::lock_guard<std::mutex> Lock(Mutex);
    ++FindCalls;
    Metadata.clear();
    for (const auto &[Name, Value] : Context->client_metadata())
      Metadata[std::string(Name.data(), Name.size())] =
          std::string(Value.data(), Value.size());
    for (const reapi::Digest &D : Request->blob_digests())
      if (!Blobs.count(D.hash()))
        *Reply->add_missing_blob_digests() = D;
    return grpc::Status::OK;
  }
  grpc::Status
  BatchUpdateBlobs(grpc::ServerContext *,
                   const reapi::BatchUpdateBlobsRequest *Request,
                   reapi::BatchUpdateBlobsResponse *Reply) override {
    std::lock_guard<std::mutex> Lock(Mutex);
    ++BatchUploads;
    int64_t Bytes = 0;
    for (const auto &Entry : Request->requests()) {
      Blobs[Entry.digest().hash()] = Entry.data();
      Bytes += Entry.data().size();
      ++BlobsUploaded;
      auto *R = Reply->add_responses();
      *R->mutable_digest() = Entry.digest();
    }
    LargestBatch = std::max(LargestBatch, Bytes);
    return grpc::Status::OK;
  }
  grpc::Status BatchReadBlobs(grpc::ServerContext *,
                              const reapi::BatchReadBlobsRequest *Request,
                              reapi::BatchReadBlobsResponse *Reply) override {
    if (!BatchReads)
      return grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "no batch reads");
    std::lock_guard<std::mutex> Lock(Mutex);
    for (const reapi::Digest &D : Request->digests()) {
      auto *R = Reply->add_responses();
      *R->mutable_digest() = D;
      R->set_data(Damage ? "damaged" : Blobs[D.hash()]);
    }
    return grpc::Status::OK;
  }
  grpc::Status Write(grpc::ServerContext *,
                     grpc::ServerReader<bs::WriteRequest> *Reader,
                     bs::WriteResponse *Reply) override {
    bs::WriteRequest Request;
    std::string Name, Data;
    while (Reader->Read(&Request)) {
      if (!Request.resource_name().empty())
        Name = Request.resource_name();
      Data += Request.data();
    }
    // .../uploads/<uuid>/blobs/<hash>/<size>
    StringRef Hash = StringRef(Name).rsplit('/').first.rsplit('/').second;
    std::lock_guard<std::mutex> Lock(Mutex);
    Blobs[Hash.str()] = Data;
    ++StreamUploads;
    ++BlobsUploaded;
    Reply->set_committed_size(Data.size());
    return grpc::Status::OK;
  }
  grpc::Status Read(grpc::ServerContext *, const bs::ReadRequest *Request,
                    grpc::ServerWriter<bs::ReadResponse> *Writer) override {
    StringRef Hash = StringRef(Request->resource_name())
                         .rsplit('/')
                         .first.rsplit('/')
                         .second;
    std::string Data;
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      auto It = Blobs.find(Hash.str());
      if (It == Blobs.end())
        return grpc::Status(grpc::StatusCode::NOT_FOUND, "no such blob");
      Data = It->second;
    }
    for (size_t At = 0; At < Data.size(); At += 1000) {
      bs::ReadResponse Chunk;
      Chunk.set_data(Data.substr(At, 1000));
      Writer->Write(Chunk);
    }
    bs::ReadResponse More;
    More.set_data(std::string(1000, 'x'));
    while (Endless && Writer->Write(More))
      ;
    return grpc::Status::OK;
  }
};

class ContentStoreTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string Address;
    Server = test::startLoopbackServer(
        {static_cast<reapi::ContentAddressableStorage::Service *>(&Storage),
         static_cast<bs::ByteStream::Service *>(&Storage)},
        Address);
    ASSERT_TRUE(Server);
    Config.URL = "grpc://" + Address;
    Config.Target = Address;
    Remote = std::make_unique<Connection>(Config);
  }
  void TearDown() override { Server->Shutdown(); }

  static Blob blob(std::string Bytes) {
    Blob B;
    B.Digest = digestOf(Bytes);
    B.Bytes = std::move(Bytes);
    return B;
  }

  FakeStorage Storage;
  std::unique_ptr<grpc::Server> Server;
  RemoteConfig Config;
  std::unique_ptr<Connection> Remote;
};

TEST_F(ContentStoreTest, SendsOnlyWhatIsMissingAndOnlyOnce) {
  ContentStore Store(*Remote, /*MaxBatchBytes=*/1 << 20);
  Blob Shared = blob("imported by every job"), Present = blob("already there");
  Storage.Blobs[Present.Digest.hash()] = Present.Bytes;

  // Eight jobs at once, each with its own blob, the shared one and the one
  // the server has.
  std::vector<Blob> Own;
  for (int I = 0; I != 8; ++I)
    Own.push_back(blob("job " + std::to_string(I)));
  std::vector<std::thread> Jobs;
  std::atomic<int> Failures{0};
  for (int I = 0; I != 8; ++I)
    Jobs.emplace_back([&, I] {
      if (!Store.upload({&Own[I], &Shared, &Present}, "action").ok())
        ++Failures;
    });
  for (std::thread &T : Jobs)
    T.join();
  EXPECT_EQ(Failures, 0);
  EXPECT_EQ(Storage.BlobsUploaded, 9); // Eight own blobs, the shared once.
  EXPECT_EQ(Store.blobsSent(), 9u);

  // Known present: not even asked about again.
  int Asked = Storage.FindCalls;
  EXPECT_TRUE(Store.upload({&Shared, &Present}, "action").ok());
  EXPECT_EQ(Storage.FindCalls, Asked);
  // Unless the server lost it.
  Store.forget({&Shared});
  Storage.Blobs.erase(Shared.Digest.hash());
  EXPECT_TRUE(Store.upload({&Shared}, "action").ok());
  EXPECT_EQ(Storage.Blobs.count(Shared.Digest.hash()), 1u);
}

TEST_F(ContentStoreTest, CallsNameTheToolTheBuildAndTheHeaders) {
  // --remote-build-id (or $ULTO_BUILD_ID) and --remote-header.
  Config.BuildId = "ci-4711";
  Config.ToolVersion = "1.2.3";
  Config.Headers = {{"x-team", "compilers"}};
  Connection WithBuild(Config);
  ContentStore Store(WithBuild, /*MaxBatchBytes=*/1 << 20);
  Blob B = blob("bytes");
  ASSERT_TRUE(Store.upload({&B}, "0123abcd").ok());

  EXPECT_EQ(Storage.Metadata["x-team"], "compilers");
  reapi::RequestMetadata Sent;
  ASSERT_TRUE(Sent.ParseFromString(
      Storage.Metadata["build.bazel.remote.execution.v2.requestmetadata-bin"]));
  EXPECT_EQ(Sent.tool_details().tool_name(), "ulto");
  EXPECT_EQ(Sent.tool_details().tool_version(), "1.2.3");
  EXPECT_EQ(Sent.correlated_invocations_id(), "ci-4711");
  EXPECT_EQ(Sent.action_id(), "0123abcd");
  EXPECT_EQ(Sent.action_mnemonic(), "ThinLTOBackend");
  // One invocation: every call of the link says the same.
  EXPECT_FALSE(Sent.tool_invocation_id().empty());
}

TEST_F(ContentStoreTest, BatchesUnderTheLimitAndStreamsLargeBlobs) {
  ContentStore Store(*Remote, /*MaxBatchBytes=*/4096);
  std::vector<Blob> Small;
  for (int I = 0; I != 10; ++I)
    Small.push_back(blob(std::string(1000, 'a' + I)));
  Blob Large = blob(std::string(3 << 20, 'L')); // Three 1 MiB chunks.
  std::vector<const Blob *> All;
  for (const Blob &B : Small)
    All.push_back(&B);
  All.push_back(&Large);
  ASSERT_TRUE(Store.upload(All, "action").ok());
  EXPECT_LE(Storage.LargestBatch, 4096);
  EXPECT_GE(Storage.BatchUploads, 3);
  EXPECT_EQ(Storage.StreamUploads, 1);
  EXPECT_EQ(Storage.Blobs[Large.Digest.hash()], Large.Bytes);
  EXPECT_EQ(Store.bytesSent(), 10 * 1000u + (3u << 20));
}

TEST_F(ContentStoreTest, FileBlobsAreReadWhenSent) {
  unittest::TempDir Dir("cas", /*Unique=*/true);
  SmallString<128> Path(Dir.path());
  sys::path::append(Path, "module.o");
  {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    OS << "module bytes";
  }
  Blob File;
  File.Digest = digestOf("module bytes");
  File.Path = std::string(Path);
  ContentStore Store(*Remote, 1 << 20);
  ASSERT_TRUE(Store.upload({&File}, "action").ok());
  EXPECT_EQ(Storage.Blobs[File.Digest.hash()], "module bytes");

  Blob Gone;
  Gone.Digest = digestOf("x");
  Gone.Path = std::string(Path) + ".missing";
  grpc::Status S = Store.upload({&Gone}, "action");
  EXPECT_EQ(S.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(S.error_message().find("cannot read"), std::string::npos);
}

TEST_F(ContentStoreTest, ReadsFallBackToByteStreamAndCheckDigests) {
  Blob B = blob(std::string(2500, 'r'));
  Storage.Blobs[B.Digest.hash()] = B.Bytes;
  ContentStore Store(*Remote, 1 << 20);
  std::string Bytes;
  ASSERT_TRUE(Store.read(B.Digest, Bytes, "action").ok());
  EXPECT_EQ(Bytes, B.Bytes);

  Storage.BatchReads = false;
  Bytes.clear();
  ASSERT_TRUE(Store.read(B.Digest, Bytes, "action").ok());
  EXPECT_EQ(Bytes, B.Bytes);

  Storage.BatchReads = true;
  Storage.Damage = true;
  ContentStore Fresh(*Remote, 1 << 20);
  grpc::Status S = Fresh.read(B.Digest, Bytes, "action");
  EXPECT_EQ(S.error_code(), grpc::StatusCode::DATA_LOSS);

  Blob Missing = blob("never sent");
  S = Store.read(Missing.Digest, Bytes, "action");
  EXPECT_EQ(S.error_code(), grpc::StatusCode::NOT_FOUND);
}

// A hostile or broken server: a result that names a 2^40-byte blob, and a
// stream that never ends for a small one. Neither is read past what the
// digest (and MaxBlobBytes) allows.
TEST_F(ContentStoreTest, ReadsNoMoreThanTheDigestSays) {
  ContentStore Store(*Remote, 1 << 20);
  std::string Bytes;
  reapi::Digest Huge = digestOf("small");
  Huge.set_size_bytes(int64_t(1) << 40);
  EXPECT_EQ(Store.read(Huge, Bytes, "action").error_code(),
            grpc::StatusCode::OUT_OF_RANGE);

  Blob B = blob(std::string(1700, 'b'));
  Storage.Blobs[B.Digest.hash()] = B.Bytes;
  Storage.BatchReads = false;
  Storage.Endless = true;
  grpc::Status S = Store.read(B.Digest, Bytes, "action");
  EXPECT_EQ(S.error_code(), grpc::StatusCode::DATA_LOSS);
  EXPECT_LE(Bytes.size(), B.Bytes.size());
}

// An object goes to a download as it arrives, batched or streamed: the
// digest's bytes come back mapped; an endless stream stops at the digest's
// size, DATA_LOSS.
TEST_F(ContentStoreTest, ObjectsArriveIntoADownload) {
  unittest::TempDir Dir("content-store", /*Unique=*/true);
  Blob B = blob(std::string(70000, 'd'));
  Storage.Blobs[B.Digest.hash()] = B.Bytes;
  ContentStore Store(*Remote, 1 << 20);
  for (bool Batch : {true, false}) {
    Storage.BatchReads = Batch;
    Expected<BlobDownload> D = BlobDownload::start(Dir.path(), B.Digest);
    ASSERT_TRUE(bool(D));
    ASSERT_TRUE(Store.read(B.Digest, *D, "action").ok());
    std::unique_ptr<MemoryBuffer> Object;
    ASSERT_TRUE(D->finish("blob", Object).ok());
    EXPECT_EQ(Object->getBuffer(), B.Bytes);
  }
  Storage.Endless = true;
  Expected<BlobDownload> D = BlobDownload::start(Dir.path(), B.Digest);
  ASSERT_TRUE(bool(D));
  EXPECT_EQ(Store.read(B.Digest, *D, "action").error_code(),
            grpc::StatusCode::DATA_LOSS);
  EXPECT_EQ(D->size(), B.Bytes.size());
}

// Every failure a REAPI server reports is shown without its escape
// sequences (--check-remote, a farm's link, the remote cache's warning).
TEST_F(ContentStoreTest, AServersMessageIsShownWithoutControls) {
  EXPECT_EQ(Remote->describe("reading", grpc::Status(grpc::StatusCode::INTERNAL,
                                                     "no\x1b[31m\x07")),
            "remote " + Config.URL + ": reading failed: no\\x1b[31m\\x07");
}

} // namespace
