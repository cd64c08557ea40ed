//===- RemoteCacheClient.cpp - A team's cache on a server -----------------===//

#include "ulto/Remote/RemoteCacheClient.h"

#include "CacheTransport.h"
#include "Connection.h"
#include "RemoteAction.h"
#include "UploadQueue.h"

#include "ulto/Support/Message.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/TimeProfiler.h"

#include <mutex>

using namespace llvm;

namespace ulto {

namespace {

// Whether a call failed for want of the server, not for an entry.
bool serverFailed(grpc::StatusCode Code) {
  switch (Code) {
  case grpc::StatusCode::UNAVAILABLE:
  case grpc::StatusCode::DEADLINE_EXCEEDED:
  case grpc::StatusCode::UNAUTHENTICATED:
  case grpc::StatusCode::PERMISSION_DENIED:
  case grpc::StatusCode::RESOURCE_EXHAUSTED:
  case grpc::StatusCode::UNIMPLEMENTED:
  case grpc::StatusCode::CANCELLED:
    return true;
  default:
    return false;
  }
}

class RemoteCacheClient final : public RemoteCache {
public:
  RemoteCacheClient(RemoteCacheOptions Options,
                    std::unique_ptr<CacheTransport> Transport, bool OutputPaths,
                    bool Writable)
      : Options(std::move(Options)), Transport(std::move(Transport)),
        Actions(this->Options.Remote, OutputPaths),
        Uploads(this->Options.UploadThreads, this->Options.MaxUploadBytes) {
    if (!Writable && !this->Options.ReadOnly) {
      this->Options.ReadOnly = true;
      Pending = name() + ": the server takes no results from clients; this "
                         "link only reads it";
    }
  }

  std::string name() const override {
    return "remote cache " + Options.Remote.Server.URL;
  }
  RemoteLookup lookup(const JobList &List, const BackendJob &Job) override;
  void rejected(const BackendJob &Job) override;
  void store(const JobList &List, const BackendJob &Job,
             std::string Object) override;
  std::vector<std::string> finish() override;
  RemoteCacheCounts counts() const override;

private:
  /// The object of the job's entry; NOT_FOUND when it has none.
  grpc::Status fetch(const RemoteAction &A,
                     std::unique_ptr<MemoryBuffer> &Object);
  /// A miss; the server's failure says so once and ends its use.
  RemoteLookup missed(const grpc::Status &S, const BackendJob &Job);
  /// The object, then the ActionResult that names it as \p OutputPath.
  bool upload(const reapi::Digest &Action, const std::string &OutputPath,
              const Blob &Object, const std::atomic<bool> &Stop);

  RemoteCacheOptions Options;
  std::unique_ptr<CacheTransport> Transport;
  ActionBuilder Actions;
  UploadQueue Uploads;
  std::atomic<bool> Down{false};

  mutable std::mutex Mutex;
  /// A warning for the next lookup to give.
  std::string Pending;
  /// Actions of the jobs that missed, for their uploads.
  DenseMap<const BackendJob *, std::pair<reapi::Digest, std::string>> Missed;
  /// Actions of the jobs that hit, for an upload if the object is rejected.
  DenseMap<const BackendJob *, std::pair<reapi::Digest, std::string>> Hit;
  RemoteCacheCounts Counts;
  std::string FirstUploadFailure;
};

grpc::Status RemoteCacheClient::fetch(const RemoteAction &A,
                                      std::unique_ptr<MemoryBuffer> &Object) {
  reapi::ActionResult Result;
  if (grpc::Status S = Transport->getActionResult(A.Digest, Result); !S.ok())
    return S;
  // A failed run is no object, as for Bazel.
  if (Result.exit_code() != 0)
    return grpc::Status(grpc::StatusCode::NOT_FOUND, "");
  for (const reapi::OutputFile &File : Result.output_files()) {
    if (File.path() != A.Job.OutputPath)
      continue;
    Expected<BlobDownload> Download =
        BlobDownload::start(Options.Remote.DownloadDirectory, File.digest());
    if (!Download)
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          toString(Download.takeError()));
    grpc::Status S = Transport->readBlob(File.digest(), *Download);
    if (S.ok() || S.error_code() == grpc::StatusCode::DATA_LOSS)
      S = Download->finish("cas/" + File.digest().hash(), Object);
    // A server that answers, but not with the object its entry names, has a
    // damaged entry (Bazel's RemoteWorker checks digests itself).
    if (S.ok() || S.error_code() == grpc::StatusCode::NOT_FOUND ||
        serverFailed(S.error_code()))
      return S;
    return grpc::Status(grpc::StatusCode::DATA_LOSS, S.error_message());
  }
  return grpc::Status(grpc::StatusCode::DATA_LOSS,
                      "its entry names no " + A.Job.OutputPath);
}

RemoteLookup RemoteCacheClient::missed(const grpc::Status &S,
                                       const BackendJob &Job) {
  RemoteLookup Miss;
  std::lock_guard<std::mutex> Lock(Mutex);
  ++Counts.Misses;
  switch (S.error_code()) {
  case grpc::StatusCode::NOT_FOUND:
    break;
  case grpc::StatusCode::DATA_LOSS:
    ++Counts.BadEntries;
    Miss.Warning = name() + ": its entry for '" + Job.module().str() +
                   "' is damaged (" + withoutControls(S.error_message()) +
                   "); running the job";
    break;
  default:
    if (!Down.exchange(true))
      Miss.Warning = name() + ": " + withoutControls(S.error_message()) +
                     "; this link goes on without it";
  }
  return Miss;
}

RemoteLookup RemoteCacheClient::lookup(const JobList &List,
                                       const BackendJob &Job) {
  RemoteLookup Found;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    std::swap(Found.Warning, Pending);
  }
  if (Down)
    return missed(grpc::Status(grpc::StatusCode::NOT_FOUND, ""), Job);
  Expected<RemoteAction> A = [&] {
    TimeTraceScope Scope("name the action");
    return Actions.build(List, Job);
  }();
  if (!A) {
    RemoteLookup Miss =
        missed(grpc::Status(grpc::StatusCode::NOT_FOUND, ""), Job);
    Miss.Warning = name() + ": cannot name the job of '" + Job.module().str() +
                   "': " + toString(A.takeError());
    return Miss;
  }
  std::unique_ptr<MemoryBuffer> Object;
  grpc::Status S = [&] {
    TimeTraceScope Scope("ask the remote cache");
    return fetch(*A, Object);
  }();
  if (!S.ok()) {
    RemoteLookup Miss = missed(S, Job);
    std::lock_guard<std::mutex> Lock(Mutex);
    Missed[&Job] = {A->Digest, A->Job.OutputPath};
    if (Miss.Warning.empty())
      Miss.Warning = std::move(Found.Warning);
    return Miss;
  }
  std::lock_guard<std::mutex> Lock(Mutex);
  ++Counts.Hits;
  Hit[&Job] = {A->Digest, A->Job.OutputPath};
  Found.Object = std::move(Object);
  return Found;
}

void RemoteCacheClient::rejected(const BackendJob &Job) {
  std::lock_guard<std::mutex> Lock(Mutex);
  --Counts.Hits;
  ++Counts.Misses;
  ++Counts.BadEntries;
  // The job runs here: its object replaces the bad entry.
  auto It = Hit.find(&Job);
  if (It == Hit.end())
    return;
  Missed[&Job] = std::move(It->second);
  Hit.erase(It);
}

bool RemoteCacheClient::upload(const reapi::Digest &Action,
                               const std::string &OutputPath,
                               const Blob &Object,
                               const std::atomic<bool> &Stop) {
  grpc::Status S = Transport->writeBlob(Object, Stop);
  if (S.ok()) {
    reapi::ActionResult Result;
    reapi::OutputFile *File = Result.add_output_files();
    File->set_path(OutputPath);
    *File->mutable_digest() = Object.Digest;
    Result.mutable_execution_metadata()->set_worker("ulto (local)");
    S = Transport->updateActionResult(Action, Result, Stop);
  }
  if (S.ok())
    return true;
  // A server gone while uploading is gone for the lookups too: the link
  // waits for it no more (finish() says why).
  if (serverFailed(S.error_code()))
    Down = true;
  std::lock_guard<std::mutex> Lock(Mutex);
  if (FirstUploadFailure.empty())
    FirstUploadFailure = withoutControls(S.error_message());
  return false;
}

void RemoteCacheClient::store(const JobList &, const BackendJob &Job,
                              std::string Object) {
  if (Options.ReadOnly || Down)
    return;
  reapi::Digest Action;
  std::string OutputPath; // In the action.
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    auto It = Missed.find(&Job);
    if (It == Missed.end())
      return; // Never asked for, or the server failed.
    std::tie(Action, OutputPath) = std::move(It->second);
    Missed.erase(It);
  }
  Blob B;
  B.Digest = digestOf(Object);
  B.Bytes = std::move(Object);
  uint64_t Bytes = B.Bytes.size();
  Uploads.push(Bytes, [this, Action = std::move(Action),
                       OutputPath = std::move(OutputPath),
                       B = std::move(B)](const std::atomic<bool> &Stop) {
    return upload(Action, OutputPath, B, Stop);
  });
}

std::vector<std::string> RemoteCacheClient::finish() {
  Uploads.finish(Options.Timeout);
  std::vector<std::string> Warnings;
  RemoteCacheCounts C = counts();
  if (C.UploadsFailed)
    Warnings.push_back(name() + ": " + std::to_string(C.UploadsFailed) +
                       " of its uploads failed: " + FirstUploadFailure);
  if (C.UploadsDropped)
    Warnings.push_back(name() + ": " + std::to_string(C.UploadsDropped) +
                       " objects were not uploaded in time or room");
  return Warnings;
}

RemoteCacheCounts RemoteCacheClient::counts() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  RemoteCacheCounts C = Counts;
  UploadQueue::Counts Q = Uploads.counts();
  C.Uploaded = Q.Done;
  C.UploadsFailed = Q.Failed;
  C.UploadsDropped = Q.Dropped;
  C.BytesDown = Transport->bytesDown();
  C.BytesUp = Transport->bytesUp();
  return C;
}

} // namespace

std::unique_ptr<RemoteCache>
makeRemoteCache(RemoteCacheOptions Options,
                std::unique_ptr<CacheTransport> Transport, bool OutputPaths,
                bool Writable) {
  return std::make_unique<RemoteCacheClient>(
      std::move(Options), std::move(Transport), OutputPaths, Writable);
}

Expected<std::unique_ptr<RemoteCache>>
connectRemoteCache(RemoteCacheOptions Options) {
  const RemoteConfig &Config = Options.Remote.Server;
  if (Config.HTTP) {
    Expected<std::unique_ptr<CacheTransport>> HTTP =
        makeHttpTransport(Config, Options.Timeout);
    if (!HTTP)
      return HTTP.takeError();
    // REAPI 2.1's output_paths, as Bazel sends them to today's servers.
    return makeRemoteCache(std::move(Options), std::move(*HTTP),
                           /*OutputPaths=*/true, /*Writable=*/true);
  }
  Expected<RemoteCapabilities> Capabilities =
      fetchCapabilities(Connection(Config), Options.Timeout);
  if (!Capabilities)
    return Capabilities.takeError();
  if (!is_contained(Capabilities->DigestFunctions, "SHA256"))
    return createStringError("remote cache %s: it hashes with %s; ulto needs "
                             "SHA256",
                             Config.URL.c_str(),
                             join(Capabilities->DigestFunctions, "/").c_str());
  std::unique_ptr<CacheTransport> GRPC =
      makeGrpcTransport(Config, *Capabilities, Options.Timeout);
  return makeRemoteCache(std::move(Options), std::move(GRPC),
                         Capabilities->OutputPaths,
                         Capabilities->ActionCacheUpdates);
}

} // namespace ulto
