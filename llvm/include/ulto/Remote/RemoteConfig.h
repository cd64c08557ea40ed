//===- RemoteConfig.h - Which REAPI server, and how to reach it -*- C++ -*-===//
//
// A remote-execution endpoint as a build farm user names it:
// grpc://host:port (plain text) or grpcs://host:port (TLS), and the REAPI
// instance name the farm expects.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_REMOTE_REMOTECONFIG_H
#define ULTO_REMOTE_REMOTECONFIG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ulto {

struct RemoteConfig {
  std::string URL;    ///< As given.
  std::string Target; ///< host:port, as gRPC dials it.
  bool TLS = false;
  std::string Instance;
};

/// Parses grpc://host:port or grpcs://host:port.
llvm::Expected<RemoteConfig> parseRemoteURL(llvm::StringRef URL);

} // namespace ulto

#endif // ULTO_REMOTE_REMOTECONFIG_H
