//===- WorkerService.h - Backend workers that outlive a link ----*- C++ -*-===//
//
// A link's own fork server (ForkServer.h) starts cold: each link loads
// libclang-cpp, forks its server and workers, and their first jobs fault in
// libLLVM's code and a fresh heap. On a small link that is most of what a
// distributed link costs over lld's in-process backends (about 25 ms of CPU
// on a two-module program). So the links of a user send their local jobs to
// a worker service instead (unless `ulto dist --no-service`): a fork server
// of its own, `ulto dist --serve-workers=NAME`, whose workers stay warm from
// one link to the next. A link that finds none may start one in the
// background (the second link of an environment does; any link does with
// --service) and runs its own jobs itself; the service ends after an idle
// limit.
//
// A service runs a job as the link's own server would, so it serves only
// links whose jobs would run the same in it. Its name, an abstract Unix
// socket (scoped by the network namespace, gone with the process), is a
// digest of what a job inherits from its process: user and groups; the
// environment, except PWD (sent with each job, with the working directory)
// and what names the caller's shell or make rather than the job (OLDPWD, _,
// SHLVL, MAKEFLAGS, MFLAGS, MAKELEVEL); umask, resource limits, namespaces,
// root, cgroup, CPU affinity, priority and personality; the code (the files
// of `ulto`, libclang-cpp, libLLVM, the C++ and C libraries, and of this
// code, which speaks the protocol); and what the workers run with which
// options. A link that differs in any of these gets a service of its own.
//
// Both ends check that the other is the same user (SO_PEERCRED). The service
// is no process of the link's: it runs in a session of its own, in "/", with
// /dev/null as its standard streams and no other descriptor of the link's,
// so a build system that waits for a link's output pipe to close does not
// wait for it. A link that hangs up with jobs running has them stopped
// (Cancellation.h). A service that does not answer, or that ends in the
// middle of a link, costs that link the warm workers, never a job: its jobs
// run in the link itself (LocalExecutor).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LOCALEXECUTION_WORKERSERVICE_H
#define ULTO_LOCALEXECUTION_WORKERSERVICE_H

#include "ulto/LocalExecution/ForkServer.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <memory>
#include <string>

namespace ulto {

/// The name of the service that would run this process's jobs: workers
/// running \p Workers (what their main function runs, e.g. clang-22's
/// driver at its path) with \p Opts, from the code of the files \p Code
/// (the serving program, the libraries it loads that this process has not).
std::string workerServiceName(llvm::StringRef Workers,
                              llvm::ArrayRef<std::string> Code,
                              const ForkServer::Options &Opts);

/// This link's jobs sent to the service \p Name; null when no service has
/// that name, an error when one does but cannot serve this link.
llvm::Expected<std::unique_ptr<ForkServer>>
connectToWorkerService(llvm::StringRef Name);

/// The user's secret in \p Directory (private to the user), made at its
/// first use: 16 hex digits; empty if it cannot be had.
std::string serviceSecret(llvm::StringRef Directory);

/// What the names of this user's services begin with: "ulto-workers-<uid>-"
/// and the user's secret. Names are visible to every user
/// (/proc/net/unix); the secret keeps another user from taking the name of
/// a service before it starts, or from counting as the user's services
/// (--service-limit).
std::string workerServicePrefix();

/// How many worker services of this user listen (/proc/net/unix): a build
/// whose links' environments differ would start one for each link, which no
/// other link uses. Only sockets whose listener is the user count: another
/// user can read the names, secret and all, and listen at names like them.
unsigned countWorkerServices();
/// The same, from \p UnixSockets, a table as /proc/net/unix holds it.
unsigned countWorkerServices(llvm::StringRef UnixSockets);
/// The same, with \p IsTheUsers saying whether the socket listening at a
/// name is the user's.
unsigned
countWorkerServices(llvm::StringRef UnixSockets,
                    llvm::function_ref<bool(llvm::StringRef Name)> IsTheUsers);

/// Where the links record their visits to the services (below):
/// $XDG_RUNTIME_DIR/ulto-services, else <temp>/ulto-services-<uid>.
std::string defaultServiceVisitDirectory();

/// Whether this link, which found no service \p Name and was not asked to
/// use one, starts it, by the visits recorded in \p Directory: the second
/// link of an environment within \p Within does. So a lone link leaves no
/// process behind, nor does a build whose links each have an environment of
/// their own (a sandbox with a private /tmp, lit's tests); and a service
/// that ended early (a sandbox's PID namespace ended it with its job) is not
/// started again until \p Within has passed. Records this visit; false when
/// it cannot.
bool visitStartsWorkerService(llvm::StringRef Directory, llvm::StringRef Name,
                              std::chrono::seconds Within);

/// Starts `\p Ulto dist --serve-workers=\p Name` with \p Options in the
/// background, detached from this process, and returns at once. Must be
/// called while the process has one thread.
llvm::Error startWorkerService(llvm::StringRef Ulto, llvm::StringRef Name,
                               llvm::ArrayRef<std::string> Options);

/// A socket listening under \p Name, for the service; -1 when another
/// process listens under it already.
llvm::Expected<int> listenAsWorkerService(llvm::StringRef Name);

} // namespace ulto

#endif // ULTO_LOCALEXECUTION_WORKERSERVICE_H
