//===- Capabilities.cpp - What a REAPI server offers ----------------------===//

#include "ulto/Remote/Capabilities.h"

#include "Connection.h"

#include "build/bazel/remote/execution/v2/remote_execution.grpc.pb.h"

using namespace llvm;
namespace reapi = build::bazel::remote::execution::v2;

namespace ulto {

static std::string version(const build::bazel::semver::SemVer &V) {
  return std::to_string(V.major()) + "." + std::to_string(V.minor());
}

Expected<RemoteCapabilities>
fetchCapabilities(const Connection &Server,
                  std::chrono::milliseconds Deadline) {
  std::unique_ptr<reapi::Capabilities::Stub> Stub =
      reapi::Capabilities::NewStub(Server.channel());
  reapi::GetCapabilitiesRequest Request;
  Request.set_instance_name(Server.config().Instance);
  reapi::ServerCapabilities Reply;
  // The first call also connects; the second is the round trip.
  RemoteCapabilities Result;
  for (int Call = 0; Call != 2; ++Call) {
    grpc::ClientContext Context;
    Server.prepare(Context, /*ActionId=*/"", Deadline);
    auto Start = std::chrono::steady_clock::now();
    grpc::Status Status = Stub->GetCapabilities(&Context, Request, &Reply);
    Result.RoundTripMilliseconds = std::chrono::duration<double, std::milli>(
                                       std::chrono::steady_clock::now() - Start)
                                       .count();
    if (!Status.ok())
      return Server.error("GetCapabilities", Status);
  }

  const reapi::CacheCapabilities &Cache = Reply.cache_capabilities();
  for (int Function : Cache.digest_function())
    Result.DigestFunctions.push_back(reapi::DigestFunction::Value_Name(
        static_cast<reapi::DigestFunction::Value>(Function)));
  Result.MaxBatchTotalSizeBytes = Cache.max_batch_total_size_bytes();
  Result.ExecutionEnabled = Reply.execution_capabilities().exec_enabled();
  Result.ActionCacheUpdates =
      Cache.action_cache_update_capabilities().update_enabled();
  Result.LowAPIVersion = version(Reply.low_api_version());
  Result.HighAPIVersion = version(Reply.high_api_version());
  const build::bazel::semver::SemVer &High = Reply.high_api_version();
  Result.OutputPaths =
      High.major() > 2 || (High.major() == 2 && High.minor() >= 1);
  return Result;
}

Expected<RemoteCapabilities>
fetchCapabilities(const RemoteConfig &Config,
                  std::chrono::milliseconds Deadline) {
  return fetchCapabilities(Connection(Config), Deadline);
}

} // namespace ulto
