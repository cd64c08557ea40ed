//===- Connection.cpp - A channel to a REAPI server -----------------------===//

#include "Connection.h"

#include "ulto/Support/Message.h"

#include "build/bazel/remote/execution/v2/remote_execution.pb.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/RandomNumberGenerator.h"

#include <grpc/support/log.h>

using namespace llvm;
namespace reapi = build::bazel::remote::execution::v2;

namespace ulto {

static std::shared_ptr<grpc::ChannelCredentials>
credentials(const RemoteConfig &Config) {
  if (!Config.TLS)
    return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions Options;
  Options.pem_root_certs = Config.RootCertificates;
  Options.pem_cert_chain = Config.ClientCertificate;
  Options.pem_private_key = Config.ClientKey;
  return grpc::SslCredentials(Options);
}

// gRPC logs failures (a TLS handshake, say) on stderr itself; ulto reports
// each failed call once, in its own error line, with gRPC's reason.
static void discardLog(gpr_log_func_args *) {}

Connection::Connection(const RemoteConfig &Config) : Config(Config) {
  gpr_set_log_function(discardLog);
  grpc::ChannelArguments Arguments;
  // Outputs and batches may exceed gRPC's default 4 MiB.
  Arguments.SetMaxReceiveMessageSize(-1);
  Channel =
      grpc::CreateCustomChannel(Config.Target, credentials(Config), Arguments);
  uint8_t Random[16];
  if (getRandomBytes(Random, sizeof(Random)))
    InvocationId = "ulto";
  else
    InvocationId = toHex(Random, /*LowerCase=*/true);
}

void Connection::prepare(grpc::ClientContext &Context, StringRef ActionId,
                         std::chrono::milliseconds Deadline) const {
  reapi::RequestMetadata Metadata;
  Metadata.mutable_tool_details()->set_tool_name("ulto");
  Metadata.mutable_tool_details()->set_tool_version(Config.ToolVersion);
  Metadata.set_tool_invocation_id(InvocationId);
  Metadata.set_correlated_invocations_id(Config.BuildId);
  Metadata.set_action_id(ActionId.str());
  Metadata.set_action_mnemonic("ThinLTOBackend");
  Context.AddMetadata("build.bazel.remote.execution.v2.requestmetadata-bin",
                      Metadata.SerializeAsString());
  for (const auto &[Name, Value] : Config.Headers)
    Context.AddMetadata(Name, Value);
  Context.set_deadline(std::chrono::system_clock::now() + Deadline);
}

std::string Connection::describe(StringRef What,
                                 const grpc::Status &Status) const {
  // The server's words: no escape sequence of its reaches the terminal.
  std::string Message = withoutControls(Status.error_message());
  if (Message.empty())
    Message = "gRPC status " + std::to_string(Status.error_code());
  return "remote " + Config.URL + ": " + What.str() + " failed: " + Message;
}

Error Connection::error(StringRef What, const grpc::Status &Status) const {
  return createStringError(describe(What, Status));
}

std::string Connection::instancePrefix() const {
  return Config.Instance.empty() ? std::string() : Config.Instance + "/";
}

} // namespace ulto
