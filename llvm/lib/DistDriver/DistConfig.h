//===- DistConfig.h - What ulto dist was asked to do ------------*- C++ -*-===//
//
// ulto dist's command line (DistOptTable.h) as data, read once, with every
// problem in it reported together before anything runs.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LIB_DISTDRIVER_DISTCONFIG_H
#define ULTO_LIB_DISTDRIVER_DISTCONFIG_H

#include "ulto/LocalExecution/ForkServer.h"
#include "ulto/Remote/RemoteConfig.h"
#include "ulto/Remote/RemoteExecutor.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/StringSaver.h"

#include <chrono>
#include <optional>
#include <string>
#include <sys/types.h>

namespace ulto {

enum class ExecutorKind { Local, Remote };

/// The user's worker service (WorkerService.h): whether the local jobs run
// there, and the idle limit of one that this link starts.
struct ServiceConfig {
  enum UseKind {
    No,        ///< --no-service
    ByDefault, ///< started by an environment's second link; quiet
    Asked,     ///< --service: started at once; the link says why it goes
               ///< without
  } Use = ByDefault;
  unsigned IdleLimit = 300;
  /// Services of the user past which this link starts none; 0: no limit.
  unsigned Limit = 8;
};

// Everything `ulto dist` was asked to do.
struct DistConfig {
  std::string JobList;
  std::string NinjaFile;
  std::string CacheDir;
  std::string CachePolicy;
  /// Whose cache entries besides the user's a link takes.
  std::optional<gid_t> TrustedGroup;
  bool UseCache;
  bool Spawn;
  ForkServer::Options Workers;
  ServiceConfig Service;
  bool Progress;
  bool Quiet;
  bool Explain;
  std::string TraceFile;
  /// Local jobs at once, for all the links of the machine together.
  unsigned Parallelism = 0;
  unsigned WaitLimit = 600;
  ExecutorKind Executor;
  std::optional<RemoteConfig> Remote;
  /// A team's cache without a farm (RemoteCache.h).
  std::optional<RemoteConfig> RemoteCache;
  bool RemoteCacheReadOnly = false;
  std::chrono::seconds RemoteCacheTimeout{10};
  bool CheckRemote;
  RemoteExecutorOptions RemoteOptions;
  unsigned RemoteJobs = 32;
};

/// The command line as a DistConfig, or every problem with it, in order.
llvm::Expected<DistConfig> readDistConfig(const llvm::opt::InputArgList &Args);

/// What the user should hear of \p Config's remote servers: a cleartext
/// connection over a network, and a password in a URL on the command line
/// \p CommandLine (before @files and $ULTO_DIST_FLAGS are expanded), which
/// every user of the machine can read.
std::vector<std::string>
remoteWarnings(const DistConfig &Config,
               llvm::ArrayRef<const char *> CommandLine);

/// The service options of \p Args, into \p Service.
llvm::Error readServiceConfig(const llvm::opt::InputArgList &Args,
                              ServiceConfig &Service);

/// A positive (or, with \p AllowZero, any) number option, or an error
/// naming it.
llvm::Error parseCount(const llvm::opt::InputArgList &Args,
                       llvm::opt::OptSpecifier Option, unsigned &Value,
                       bool AllowZero = false);

/// The options from $ULTO_DIST_FLAGS, then \p Args, with @file arguments
/// expanded (LLVM's response files): a farm's settings live in one place.
llvm::SmallVector<const char *, 0> expandArgs(llvm::ArrayRef<const char *> Args,
                                              llvm::StringSaver &Saver);

} // namespace ulto

#endif // ULTO_LIB_DISTDRIVER_DISTCONFIG_H
