//===- RemoteAction.h - A backend job as a REAPI action ---------*- C++ -*-===//
//
// The job in its hermetic form (HermeticJob.h) becomes an input root, a
// Command and an Action, as blobs. The Action's digest is the job's key on
// every REAPI server: a farm and a cache-only client that build it from the
// same options name the same action, so each serves the other's results.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LIB_REMOTE_REMOTEACTION_H
#define ULTO_LIB_REMOTE_REMOTEACTION_H

#include "ContentStore.h"
#include "HermeticJob.h"
#include "ShippedToolchain.h"

#include "ulto/Distributor/FileDigest.h"
#include "ulto/Remote/RemoteExecutor.h"

#include "llvm/Support/Error.h"

#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ulto {

/// One job as an action: everything needed to run it remotely.
struct RemoteAction {
  HermeticJob Job;
  std::string Compiler;    ///< As the worker names it.
  std::string Identity;    ///< Of the compiler here, hashed; empty: unknown.
  std::vector<Blob> Blobs; ///< Inputs, directories, command, action.
  reapi::Digest Digest;    ///< The Action's.
  uint64_t InputBytes = 0; ///< Of the job's own inputs.
};

/// Makes the actions of a link's jobs; called from several threads.
class ActionBuilder {
public:
  /// \p OutputPaths: the server speaks REAPI 2.1 (Command.output_paths).
  ActionBuilder(const RemoteExecutorOptions &Options, bool OutputPaths);

  llvm::Expected<RemoteAction> build(const JobList &List,
                                     const BackendJob &Job);

private:
  llvm::Error prepareToolchain(llvm::StringRef Compiler);
  /// The compiler's identity (CompilerIdentity.h), asked once.
  const std::string &compilerIdentity(llvm::StringRef Compiler);
  void addActionBlobs(RemoteAction &A, const reapi::Digest &Root);

  const RemoteExecutorOptions &Options;
  bool OutputPaths;
  reapi::Platform Platform;
  FileDigestMemo<reapi::Digest> Files{digestOf}; // SHA-256.

  std::once_flag IdentityOnce;
  std::string Identity; // CompilerIdentity.h's; empty: unknown.

  std::once_flag ToolchainOnce; // Sets the three members below.
  std::string ToolchainError;
  std::optional<ShippedToolchain> Toolchain;
  std::vector<reapi::Digest> ToolchainDigests;
};

} // namespace ulto

#endif // ULTO_LIB_REMOTE_REMOTEACTION_H
