//===- DistExecutors.cpp - Where ulto dist runs the jobs ------------------===//

#include "DistExecutors.h"

#include "ulto/LocalExecution/WorkerService.h"
#include "ulto/Support/InstalledLibrary.h"
#include "ulto/Support/MakeJobserver.h"
#include "ulto/Support/Message.h"

#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ulto {

std::string thisProgram() {
  return sys::fs::getMainExecutable("ulto",
                                    reinterpret_cast<void *>(&thisProgram));
}

Expected<const RemotePlugin &> remotePlugin() {
  return loadRemotePlugin(thisProgram());
}

std::optional<std::string> findClang22(StringRef Compiler) {
  ErrorOr<std::string> Path = sys::findProgramByName(Compiler);
  SmallString<256> Real, Ours;
  if (!Path || sys::fs::real_path(*Path, Real) ||
      sys::fs::real_path(ULTO_LLVM_TOOLS_DIR "/clang", Ours) || Real != Ours)
    return std::nullopt;
  return std::string(Ours);
}

Expected<ClangWorkersFn> loadClangWorkersLibrary() {
  std::string Path = installedLibrary(thisProgram(), "libUltoClangWorkers.so");
  std::string Error;
  sys::DynamicLibrary Loaded =
      sys::DynamicLibrary::getPermanentLibrary(Path.c_str(), &Error);
  auto *Entry = Loaded.isValid()
                    ? reinterpret_cast<ClangWorkersFn (*)()>(
                          Loaded.getAddressOfSymbol("ultoClangWorkers"))
                    : nullptr;
  if (!Entry) {
    // dlerror() names the file too.
    StringRef Why = Error;
    Why.consume_front(Path + ": ");
    return createStringError("cannot load %s: %s", Path.c_str(),
                             Why.empty() ? "it has no ultoClangWorkers"
                                         : Why.str().c_str());
  }
  return Entry();
}

// A fork server whose workers run \p Clang's jobs. Must be called while the
// process has one thread.
static Expected<std::unique_ptr<ForkServer>>
startClangServer(StringRef Clang, ForkServer::Options Workers,
                 ClangWorkersLoader LoadWorkers) {
  Expected<ClangWorkersFn> Load = LoadWorkers();
  if (!Load)
    return Load.takeError();
  ForkServer::MainFn Main = (*Load)(Clang, Workers);
  return ForkServer::start(Main, Workers);
}

// The `ulto` next to this program (ld.ulto, or `ulto` itself), which serves
// as the worker service.
static std::string ultoProgram() {
  SmallString<256> Path(sys::path::parent_path(thisProgram()));
  sys::path::append(Path, "ulto");
  return std::string(Path);
}

// This link's connection to the user's worker service for \p Clang's jobs;
// null when none serves them yet, after starting one, with \p IdleWorkers
// warm workers, for the links that follow. Must be called while the process
// has one thread. Unasked, a link starts the service only when it is the
// second of its environment (visitStartsWorkerService), and says nothing of
// why it goes without: the service is an optimisation, and the link's own
// workers are what users of ld.lld-22 know.
static std::unique_ptr<ForkServer>
joinWorkerService(StringRef Clang, const ForkServer::Options &Workers,
                  const ServiceConfig &Service, unsigned IdleWorkers) {
  auto GoWithout = [&](const Twine &Why) -> std::unique_ptr<ForkServer> {
    if (Service.Use == ServiceConfig::Asked)
      writeMessage(errs(), DistToolName, MessageKind::Warning, Why);
    return nullptr;
  };
  std::string Ulto = ultoProgram();
  std::string Name = workerServiceName(("clang-22 driver at " + Clang).str(),
                                       {Ulto, ULTO_CLANG_CPP_LIBRARY}, Workers);
  Expected<std::unique_ptr<ForkServer>> Joined = connectToWorkerService(Name);
  if (!Joined)
    return GoWithout(toString(Joined.takeError()) +
                     "; running this link's jobs itself");
  if (*Joined)
    return std::move(*Joined);
  // A build whose links' environments differ would start a service for
  // each link, which no other link uses.
  if (unsigned Running = Service.Limit ? countWorkerServices() : 0;
      Service.Limit && Running >= Service.Limit)
    return GoWithout(std::to_string(Running) +
                     " worker services of this user run already, none for "
                     "this link's environment; this link starts none "
                     "(--service-limit)");
  if (Service.Use == ServiceConfig::ByDefault &&
      !visitStartsWorkerService(defaultServiceVisitDirectory(), Name,
                                std::chrono::seconds(Service.IdleLimit)))
    return nullptr;
  std::string Options[] = {
      "--jobs=" + std::to_string(std::max(IdleWorkers, 1u)),
      "--jobs-per-process=" + std::to_string(Workers.JobsPerWorker),
      "--service-idle-limit=" + std::to_string(Service.IdleLimit)};
  if (Error E = startWorkerService(Ulto, Name, Options))
    return GoWithout(toString(std::move(E)) +
                     "; running this link's jobs itself");
  return nullptr;
}

Expected<std::unique_ptr<ForkServer>>
startClangWorkers(StringRef Clang, const ForkServer::Options &Workers,
                  const ServiceConfig &Service, unsigned IdleWorkers,
                  ClangWorkersLoader LoadWorkers) {
  if (Service.Use != ServiceConfig::No)
    if (std::unique_ptr<ForkServer> Joined =
            joinWorkerService(Clang, Workers, Service, IdleWorkers))
      return std::move(Joined);
  return startClangServer(Clang, Workers, LoadWorkers);
}

Expected<Executors> startExecutors(const DistConfig &Config,
                                   const JobList &List, ReadyServer Ready,
                                   ClangWorkersLoader LoadWorkers) {
  Executors E;
  std::optional<std::string> Clang22 = findClang22(List.compiler());
  if (!Config.Spawn && Clang22) {
    // The one started while lld read the inputs, if it fits this link.
    if (Ready.Server && Ready.Clang == *Clang22 &&
        Ready.Workers.JobsPerWorker == Config.Workers.JobsPerWorker &&
        Ready.Workers.WorkerMemory == Config.Workers.WorkerMemory) {
      E.Server = std::move(Ready.Server);
    } else {
      Ready.Server.reset();
      Expected<std::unique_ptr<ForkServer>> Started =
          startClangWorkers(*Clang22, Config.Workers, Config.Service,
                            Config.Parallelism, LoadWorkers);
      if (Started)
        E.Server = std::move(*Started);
      else
        writeMessage(errs(), DistToolName, MessageKind::Warning,
                     toString(Started.takeError()) +
                         "; starting a process per job");
    }
  }
  // One limit for the local jobs of every link on the machine, unless make
  // passed a jobserver down; opened after the fork, which must not inherit
  // the slots' descriptors.
  if (!hasMakeJobserver()) {
    Expected<std::unique_ptr<SlotPool>> Slots =
        SlotPool::open(defaultSlotDirectory(), Config.Parallelism);
    if (Slots)
      E.Slots = std::move(*Slots);
    else
      writeMessage(errs(), DistToolName, MessageKind::Warning,
                   toString(Slots.takeError()) +
                       "; limiting the jobs of this link only");
  }
  E.Local = std::make_unique<LocalExecutor>(E.Server.get(), E.Slots.get());
  if (Config.Executor != ExecutorKind::Remote)
    return E;

  RemoteExecutorOptions Remote = Config.RemoteOptions;
  Remote.Server = *Config.Remote;
  Remote.LocalJobs = Config.Parallelism;
  Remote.AskVersion = E.Local->versionProbe();
  Expected<const RemotePlugin &> Plugin = remotePlugin();
  Expected<std::unique_ptr<Executor>> Connected =
      Plugin ? Plugin->Connect(std::move(Remote), *E.Local)
             : Expected<std::unique_ptr<Executor>>(Plugin.takeError());
  if (Connected)
    E.Remote = std::move(*Connected);
  else if (Config.RemoteOptions.LocalFallback)
    writeMessage(errs(), DistToolName, MessageKind::Warning,
                 toString(Connected.takeError()) +
                     "; running every job locally");
  else
    return Connected.takeError();
  return E;
}
} // namespace ulto
