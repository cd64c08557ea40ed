//===- RemoteConfig.h - Which REAPI server, and how to reach it -*- C++ -*-===//
//
// A remote-execution endpoint as a build farm user names it:
// grpc://host:port (plain text) or grpcs://host:port (TLS), the REAPI
// instance name the farm expects, and what its front door asks for:
// certificates and headers (a bearer token, say).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_REMOTE_REMOTECONFIG_H
#define ULTO_REMOTE_REMOTECONFIG_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <utility>
#include <vector>

namespace ulto {

struct RemoteConfig {
  std::string URL;    ///< As given, less an HTTP URL's user:password@.
  std::string Target; ///< host:port, as gRPC dials it; HTTP: the base URL.
  /// An HTTP cache's basic authentication, "user:password": from the URL
  /// or $ULTO_REMOTE_CREDENTIALS. Never in a message.
  std::string UserPassword;
  /// The URL named the user and password.
  bool CredentialsInURL = false;
  /// An HTTP cache's credentials in a netrc file, which libcurl reads.
  std::string NetrcFile;
  bool TLS = false;
  /// Bazel's HTTP cache protocol (a cache only), not gRPC.
  bool HTTP = false;
  std::string Instance;
  /// PEM: the roots that sign the server's certificate (empty: the system's),
  /// and the client's own certificate and key for mutual TLS.
  std::string RootCertificates, ClientCertificate, ClientKey;
  /// Sent with every call, e.g. {"authorization", "Bearer <token>"}.
  std::vector<std::pair<std::string, std::string>> Headers;
  /// Names this tool to the server.
  std::string ToolVersion;
  /// Ties this link's calls to the rest of a build in the farm's records
  /// (REAPI's correlated_invocations_id); empty: none.
  std::string BuildId;
};

/// Whether \p Config sends credentials: a password, a netrc file, an
/// authorization header (a token).
bool carriesCredentials(const RemoteConfig &Config);

/// Whether the connection to \p Config's server is in cleartext over a
/// network: http:// or grpc:// to a host that is not this machine's
/// loopback (localhost, 127.0.0.0/8, ::1).
bool isCleartext(const RemoteConfig &Config);

/// \p URL without the user and password it names, for messages.
std::string withoutCredentials(llvm::StringRef URL);

/// Parses grpc://host:port or grpcs://host:port.
llvm::Expected<RemoteConfig> parseRemoteURL(llvm::StringRef URL);

/// Parses a remote cache: what parseRemoteURL takes, or http[s]://host[:port]
/// [/path], the base of Bazel's HTTP cache protocol (<base>/ac/<hash>,
/// <base>/cas/<hash>).
llvm::Expected<RemoteConfig> parseRemoteCacheURL(llvm::StringRef URL);

/// Parses a --remote-header value, NAME=VALUE; gRPC wants lowercase names.
llvm::Expected<std::pair<std::string, std::string>>
parseRemoteHeader(llvm::StringRef Header);

/// Whether \p Value, of \p What, may go in a header: printable ASCII only,
/// since gRPC aborts the process on any other byte. The error names the
/// first other byte and where it is.
llvm::Error checkHeaderValue(llvm::StringRef What, llvm::StringRef Value);

} // namespace ulto

#endif // ULTO_REMOTE_REMOTECONFIG_H
