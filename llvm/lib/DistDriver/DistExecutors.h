//===- DistExecutors.h - Where ulto dist runs the jobs ----------*- C++ -*-===//
//
// The executors of a link: the local one, in the user's worker service or a
// fork server of the link's own (or a process per job), holding the
// machine's slots; and a remote one when the command line names a farm.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LIB_DISTDRIVER_DISTEXECUTORS_H
#define ULTO_LIB_DISTDRIVER_DISTEXECUTORS_H

#include "DistConfig.h"

#include "ulto/DistDriver/DistDriver.h"
#include "ulto/Distributor/JobList.h"
#include "ulto/LocalExecution/ForkServer.h"
#include "ulto/LocalExecution/LocalExecutor.h"
#include "ulto/LocalExecution/SlotPool.h"
#include "ulto/Remote/RemotePlugin.h"

#include "llvm/ADT/StringRef.h"

#include <memory>
#include <optional>
#include <string>

namespace ulto {

inline constexpr llvm::StringLiteral DistToolName = "ulto dist";

/// A fork server started before the command line arrived
/// (`--await-command`), and what it was started for.
struct ReadyServer {
  std::unique_ptr<ForkServer> Server;
  std::string Clang;
  ForkServer::Options Workers;
};

/// Where the jobs run. The fork server is started before any thread: it is
/// forked from this process.
struct Executors {
  std::unique_ptr<ForkServer> Server;
  std::unique_ptr<SlotPool> Slots;
  std::unique_ptr<LocalExecutor> Local;
  std::unique_ptr<Executor> Remote;

  Executor &chosen() {
    if (Remote)
      return *Remote;
    return *Local;
  }
};

/// This program: `ulto`, or ld.ulto when this is libUltoDist.so.
std::string thisProgram();

/// Remote execution, loaded from next to this program (RemotePlugin.h).
llvm::Expected<const RemotePlugin &> remotePlugin();

/// clang-22's real path when \p Compiler is the clang-22 whose libclang-cpp
/// ulto runs on: then ulto can run its jobs itself, with the very same code.
std::optional<std::string> findClang22(llvm::StringRef Compiler);

/// Where \p Clang's jobs run: the user's worker service when \p Service
/// asks for it and one serves this link, else a fork server of the link's
/// own. Must be called while the process has one thread.
llvm::Expected<std::unique_ptr<ForkServer>>
startClangWorkers(llvm::StringRef Clang, const ForkServer::Options &Workers,
                  const ServiceConfig &Service, unsigned IdleWorkers,
                  ClangWorkersLoader LoadWorkers);

/// The executors \p Config asks for, for \p List's jobs: \p Ready's fork
/// server if it fits them. Must be called while the process has one thread.
llvm::Expected<Executors> startExecutors(const DistConfig &Config,
                                         const JobList &List, ReadyServer Ready,
                                         ClangWorkersLoader LoadWorkers);

} // namespace ulto

#endif // ULTO_LIB_DISTDRIVER_DISTEXECUTORS_H
