//===- Capabilities.cpp - What a REAPI server offers ----------------------===//

#include "ulto/Remote/Capabilities.h"

#include "build/bazel/remote/execution/v2/remote_execution.grpc.pb.h"

#include <grpcpp/grpcpp.h>

using namespace llvm;
namespace reapi = build::bazel::remote::execution::v2;

namespace ulto {

static std::string version(const build::bazel::semver::SemVer &V) {
  return std::to_string(V.major()) + "." + std::to_string(V.minor());
}

Expected<RemoteCapabilities>
fetchCapabilities(const RemoteConfig &Config, StringRef ToolVersion,
                  std::chrono::milliseconds Deadline) {
  std::shared_ptr<grpc::ChannelCredentials> Credentials =
      Config.TLS ? grpc::SslCredentials(grpc::SslCredentialsOptions())
                 : grpc::InsecureChannelCredentials();
  std::unique_ptr<reapi::Capabilities::Stub> Stub =
      reapi::Capabilities::NewStub(
          grpc::CreateChannel(Config.Target, Credentials));

  // Servers may require the request metadata (Bazel's RemoteWorker does).
  reapi::RequestMetadata Metadata;
  Metadata.mutable_tool_details()->set_tool_name("ulto");
  Metadata.mutable_tool_details()->set_tool_version(ToolVersion.str());
  std::string MetadataBytes = Metadata.SerializeAsString();

  reapi::GetCapabilitiesRequest Request;
  Request.set_instance_name(Config.Instance);
  reapi::ServerCapabilities Reply;
  auto Ask = [&](double &Milliseconds) {
    grpc::ClientContext Context;
    Context.AddMetadata("build.bazel.remote.execution.v2.requestmetadata-bin",
                        MetadataBytes);
    Context.set_deadline(std::chrono::system_clock::now() + Deadline);
    auto Start = std::chrono::steady_clock::now();
    grpc::Status Status = Stub->GetCapabilities(&Context, Request, &Reply);
    Milliseconds = std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - Start)
                       .count();
    return Status;
  };
  // The first call also connects; the second is the round trip.
  RemoteCapabilities Result;
  for (int Call = 0; Call != 2; ++Call) {
    grpc::Status Status = Ask(Result.RoundTripMilliseconds);
    if (!Status.ok())
      return createStringError("remote %s: GetCapabilities failed: %s",
                               Config.URL.c_str(),
                               Status.error_message().c_str());
  }

  const reapi::CacheCapabilities &Cache = Reply.cache_capabilities();
  for (int Function : Cache.digest_function())
    Result.DigestFunctions.push_back(reapi::DigestFunction::Value_Name(
        static_cast<reapi::DigestFunction::Value>(Function)));
  Result.MaxBatchTotalSizeBytes = Cache.max_batch_total_size_bytes();
  Result.ExecutionEnabled = Reply.execution_capabilities().exec_enabled();
  Result.LowAPIVersion = version(Reply.low_api_version());
  Result.HighAPIVersion = version(Reply.high_api_version());
  return Result;
}

} // namespace ulto
