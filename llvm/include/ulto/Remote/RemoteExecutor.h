//===- RemoteExecutor.h - Backend jobs on a REAPI build farm ----*- C++ -*-===//
//
// Runs each backend job as a REAPI v2 action: the job in its hermetic form
// (HermeticJob.h) becomes an input root, a Command and an Action; the action
// cache is asked first, then only the blobs the server lacks go up, the
// action is executed, and the object comes back to where the linker expects
// it. Transient failures are retried with backoff; when the remote cannot
// run a job it runs on this machine instead (unless that is turned off), and
// once the server is gone every remaining job does.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_REMOTE_REMOTEEXECUTOR_H
#define ULTO_REMOTE_REMOTEEXECUTOR_H

#include "ulto/Distributor/CompilerIdentity.h"
#include "ulto/Distributor/Executor.h"
#include "ulto/Remote/RemoteConfig.h"

#include "llvm/Support/Error.h"

#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ulto {

struct RemoteExecutorOptions {
  RemoteConfig Server;
  /// Where objects are kept while they arrive: a directory only the user
  /// can enter (BlobDownload.h); empty: the system's temporary directory.
  std::string DownloadDirectory;
  /// Platform properties that select the workers (and so their toolchain).
  std::vector<std::pair<std::string, std::string>> Platform;
  /// The compiler as the workers name it; empty: the job's compiler path.
  std::string Compiler;
  /// Asks the job's compiler for its --version (LocalExecutor::versionProbe):
  /// each action names the compiler's identity (CompilerIdentity.h) besides
  /// its path, so that another build of the compiler at the same path makes
  /// other entries, not wrong ones. Unset: the path alone.
  VersionProbe AskVersion;
  /// Send the job's compiler, and the libraries next to it that it loads,
  /// in every input root, so that the workers need no toolchain.
  bool ShipCompiler = false;
  /// Attempts after the first, for failures that may pass.
  unsigned Retries = 3;
  std::chrono::milliseconds Backoff{200};
  /// How long a job may run on the farm.
  std::chrono::seconds Timeout{600};
  /// Run a job here when the remote cannot; false: fail it.
  bool LocalFallback = true;
  /// Jobs run here at once; 0: one per hardware thread.
  unsigned LocalJobs = 0;
};

class RemoteExecutor final : public Executor {
public:
  /// Connects and negotiates (GetCapabilities); \p Local runs fallbacks.
  static llvm::Expected<std::unique_ptr<RemoteExecutor>>
  connect(RemoteExecutorOptions Options, Executor &Local);
  ~RemoteExecutor() override;

  std::string name() const override;
  ExecutionResult run(const JobList &List, const BackendJob &Job) override;
  std::string report() const override;

  struct Impl;

private:
  explicit RemoteExecutor(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> I;
};

} // namespace ulto

#endif // ULTO_REMOTE_REMOTEEXECUTOR_H
