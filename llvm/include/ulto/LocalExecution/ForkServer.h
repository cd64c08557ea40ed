//===- ForkServer.h - Compiler jobs without exec ----------------*- C++ -*-===//
//
// Starting clang-22 costs about 35 ms of CPU before it compiles anything:
// loading and relocating libLLVM and libclang-cpp. A ThinLTO link has one
// backend job per module, so that start-up is a large share of a distributed
// link's CPU time. The fork server pays it once: a single-threaded process,
// forked from the distributor before any thread starts, in which those
// libraries are loaded and initialised, forks workers, and a worker runs the
// compiler's main function on a job's command line.
//
// A worker runs many jobs, one after another, as lld's backend threads do:
// a fresh process per job would pay its page faults on a new heap and the
// fork again, about 10 ms a job. The memory a job frees stays with the worker
// for its next job. It is still a process: a crash takes down
// its job alone (the next job gets a new worker), its stdout and stderr go
// to the job's file, and LLVM's global state is not the distributor's. A
// worker retires after a job that failed, and after a number of jobs or
// bytes of memory (Options); a job that would change global state a later
// job sees (MayShareWorker) gets a worker of its own. While a worker runs a
// job it is the job: a crash's stack dump names the job's command line
// (LLVM's pretty stack trace), and a crash its main function catches ends
// the worker by the same signal (endChildBySignal).
//
// The same loop serves a user's links at once as a worker service
// (WorkerService.h): its workers stay warm from one link to the next. A
// service's job runs in its link's working directory; a link that hangs up
// while its jobs run (interrupted, or dead) has them stopped.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LOCALEXECUTION_FORKSERVER_H
#define ULTO_LOCALEXECUTION_FORKSERVER_H

#include "ulto/Distributor/Cancellation.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <sys/types.h>

namespace ulto {

class ForkServer {
public:
  /// What a worker runs for each job: a compiler's main function over its
  /// command line.
  using MainFn = std::function<int(llvm::ArrayRef<const char *> Argv)>;

  struct Options {
    /// Whether a job may run in a worker that runs other jobs; null: all may.
    std::function<bool(llvm::ArrayRef<const char *> Argv)> MayShareWorker;
    /// Jobs a worker runs before it retires; 1: a new process per job.
    unsigned JobsPerWorker = 256;
    /// A worker whose resident memory has reached this retires.
    uint64_t WorkerMemory = uint64_t(1) << 30;
    /// How long an idle worker keeps the memory its jobs freed (for its next
    /// job) before it gives it back. A service's workers wait between links;
    /// a build's links come seconds apart, and faulting a heap in again
    /// made a cjpeg link 46 ms slower (bench/README.md).
    std::chrono::milliseconds KeepMemoryWhileIdle = std::chrono::seconds(10);
    /// Workers forked as the server starts, so that the first jobs that may
    /// share a worker find one ready instead of waiting for a fork.
    unsigned IdleWorkers = 0;
  };

  /// Starts the server. Must be called while the process has one thread.
  static llvm::Expected<std::unique_ptr<ForkServer>> start(const MainFn &Main,
                                                           const Options &Opts);
  static llvm::Expected<std::unique_ptr<ForkServer>> start(const MainFn &Main);

  /// The jobs of this link sent to a worker service over \p Socket, a
  /// connection to it, once the service has greeted it; they run in this
  /// process's working directory, and an interrupt stops them
  /// (Cancellation.h). Takes \p Socket, even on failure.
  static llvm::Expected<std::unique_ptr<ForkServer>> connected(int Socket);

  /// Serves the links that connect to \p Listening, a listening socket of a
  /// user's worker service, until none has connected or run a job for
  /// \p IdleLimit, or a stop signal. Keeps Opts.IdleWorkers workers warm
  /// between jobs. Must be called while the process has one thread.
  [[noreturn]] static void serve(int Listening, const MainFn &Main,
                                 const Options &Opts,
                                 std::chrono::milliseconds IdleLimit);

  /// Stops the server once its running jobs have finished.
  ~ForkServer();

  /// How a job ended.
  struct Status {
    enum KindType : int32_t {
      Exited,    ///< With exit code Code.
      Signalled, ///< By signal Code.
      NotForked, ///< Never ran: fork() or the server failed with errno Code.
    };
    KindType Kind;
    int32_t Code;
  };

  /// Runs \p Argv in a worker of the server, stdout and stderr to
  /// \p OutputFile, and waits for it (the caller reads the output).
  /// Thread-safe.
  Status run(llvm::ArrayRef<std::string> Argv, llvm::StringRef OutputFile);

  /// Ends the calling worker as if \p Signal had killed it, so that the server
  /// reports the crash as such: for a main function that catches the crash
  /// of its own work (clang's driver reports a crashed -cc1 job and exits 1).
  /// Flushes stdout and stderr first; dumps no core.
  [[noreturn]] static void endChildBySignal(int Signal);

  /// The server's process. On SIGTERM, SIGINT or SIGHUP it stops its jobs
  /// and ends; it ends, too, when the process that started it dies (a
  /// service's, when it has been idle).
  pid_t process() const { return Server; }
  /// Whether the server is a worker service, not this link's child.
  bool isService() const { return Served.has_value(); }

private:
  ForkServer(int Socket, pid_t Server, JobProcess Process)
      : Socket(Socket), Server(Server), Process(std::move(Process)) {}
  ForkServer(int Socket, pid_t Server, std::string Directory)
      : Socket(Socket), Server(Server), Directory(std::move(Directory)),
        Served(std::in_place, Socket) {}

  int Socket;
  pid_t Server;
  std::optional<JobProcess> Process;
  /// Where a service runs the jobs: the working directory, then $PWD, each
  /// ending in NUL; two NULs for a server of this link's own.
  std::string Directory = std::string(2, '\0');
  std::optional<WorkerServiceConnection> Served;
  std::mutex SendMutex;

  // Replies come in any order: one waiting thread at a time reads them and
  // hands each to the thread that asked.
  std::mutex Mutex;
  std::condition_variable Arrived;
  bool Reading = false;
  uint64_t NextID = 0;
  llvm::DenseMap<uint64_t, Status> Replies;
};

} // namespace ulto

#endif // ULTO_LOCALEXECUTION_FORKSERVER_H
