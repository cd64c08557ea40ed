//===- GrpcCacheTransport.cpp - A remote cache over REAPI -----------------===//

#include "CacheTransport.h"

#include "Connection.h"

using namespace llvm;

namespace ulto {

CacheTransport::~CacheTransport() = default;

namespace {

class GrpcTransport final : public CacheTransport {
public:
  GrpcTransport(const RemoteConfig &Config,
                const RemoteCapabilities &Capabilities,
                std::chrono::milliseconds Timeout)
      : Server(Config), Timeout(Timeout),
        Store(Server, Capabilities.MaxBatchTotalSizeBytes, Timeout),
        ActionCache(reapi::ActionCache::NewStub(Server.channel())) {}

  grpc::Status getActionResult(const reapi::Digest &Action,
                               reapi::ActionResult &Result) override {
    reapi::GetActionResultRequest Request;
    Request.set_instance_name(Server.config().Instance);
    *Request.mutable_action_digest() = Action;
    grpc::ClientContext Context;
    Server.prepare(Context, Action.hash(), Timeout);
    return ActionCache->GetActionResult(&Context, Request, &Result);
  }

  grpc::Status readBlob(const reapi::Digest &Digest,
                        BlobDownload &Into) override {
    grpc::Status S = Store.read(Digest, Into, "");
    if (S.ok())
      BytesDown += Into.size();
    return S;
  }

  // An object just made: no FindMissingBlobs round trip first.
  grpc::Status writeBlob(const Blob &B, const std::atomic<bool> &) override {
    const Blob *Blobs[] = {&B};
    return Store.send(Blobs, "");
  }

  grpc::Status updateActionResult(const reapi::Digest &Action,
                                  const reapi::ActionResult &Result,
                                  const std::atomic<bool> &Stop) override {
    if (Stop)
      return grpc::Status(grpc::StatusCode::CANCELLED, "the link ended");
    reapi::UpdateActionResultRequest Request;
    Request.set_instance_name(Server.config().Instance);
    *Request.mutable_action_digest() = Action;
    *Request.mutable_action_result() = Result;
    reapi::ActionResult Stored;
    grpc::ClientContext Context;
    Server.prepare(Context, Action.hash(), Timeout);
    return ActionCache->UpdateActionResult(&Context, Request, &Stored);
  }

  uint64_t bytesDown() const override { return BytesDown; }
  uint64_t bytesUp() const override { return Store.bytesSent(); }

private:
  Connection Server;
  std::chrono::milliseconds Timeout;
  ContentStore Store;
  std::unique_ptr<reapi::ActionCache::Stub> ActionCache;
  std::atomic<uint64_t> BytesDown{0};
};

} // namespace

std::unique_ptr<CacheTransport>
makeGrpcTransport(const RemoteConfig &Config,
                  const RemoteCapabilities &Capabilities,
                  std::chrono::milliseconds Timeout) {
  return std::make_unique<GrpcTransport>(Config, Capabilities, Timeout);
}

} // namespace ulto
