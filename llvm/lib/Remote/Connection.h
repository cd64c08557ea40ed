//===- Connection.h - A channel to a REAPI server ---------------*- C++ -*-===//
//
// One gRPC channel per server, with the credentials the configuration asks
// for, and the per-call set-up every REAPI call needs: the configured
// headers, the RequestMetadata header (tool, invocation, action; Bazel's
// RemoteWorker refuses calls without it) and a deadline.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LIB_REMOTE_CONNECTION_H
#define ULTO_LIB_REMOTE_CONNECTION_H

#include "ulto/Remote/RemoteConfig.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>

namespace ulto {

class Connection {
public:
  explicit Connection(const RemoteConfig &Config);

  const RemoteConfig &config() const { return Config; }
  const std::shared_ptr<grpc::Channel> &channel() const { return Channel; }

  /// Prepares \p Context for one call about \p ActionId (may be empty),
  /// failing after \p Deadline.
  void prepare(grpc::ClientContext &Context, llvm::StringRef ActionId,
               std::chrono::milliseconds Deadline) const;

  /// "remote grpc://host:port: <What> failed: <gRPC's message>".
  llvm::Error error(llvm::StringRef What, const grpc::Status &Status) const;
  std::string describe(llvm::StringRef What, const grpc::Status &Status) const;

  /// The resource name prefix of the instance: "" or "<instance>/".
  std::string instancePrefix() const;

private:
  RemoteConfig Config;
  std::shared_ptr<grpc::Channel> Channel;
  std::string InvocationId;
};

} // namespace ulto

#endif // ULTO_LIB_REMOTE_CONNECTION_H
