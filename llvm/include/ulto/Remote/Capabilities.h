//===- Capabilities.h - What a REAPI server offers --------------*- C++ -*-===//
//
// GetCapabilities, the first call a client makes: the digest function the
// server hashes with, the largest batch it accepts, whether it executes, its
// API versions. Also measures the round trip, which sizes remote
// parallelism.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_REMOTE_CAPABILITIES_H
#define ULTO_REMOTE_CAPABILITIES_H

#include "ulto/Remote/RemoteConfig.h"

#include "llvm/Support/Error.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ulto {

struct RemoteCapabilities {
  std::vector<std::string> DigestFunctions; ///< e.g. "SHA256".
  int64_t MaxBatchTotalSizeBytes = 0;       ///< 0: no limit given.
  bool ExecutionEnabled = false;
  /// Clients may write the action cache (UpdateActionResult).
  bool ActionCacheUpdates = false;
  std::string LowAPIVersion, HighAPIVersion; ///< "2.0"
  /// API 2.1 names outputs by Command.output_paths, 2.0 by output_files.
  bool OutputPaths = false;
  double RoundTripMilliseconds = 0; ///< After the connection is up.
};

class Connection;

/// Asks the server; fails after \p Deadline with gRPC's status.
llvm::Expected<RemoteCapabilities>
fetchCapabilities(const Connection &Server, std::chrono::milliseconds Deadline);
llvm::Expected<RemoteCapabilities>
fetchCapabilities(const RemoteConfig &Config,
                  std::chrono::milliseconds Deadline);

} // namespace ulto

#endif // ULTO_REMOTE_CAPABILITIES_H
