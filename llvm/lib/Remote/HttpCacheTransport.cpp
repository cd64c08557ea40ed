//===- HttpCacheTransport.cpp - A remote cache over Bazel's HTTP protocol -===//
//
// libcurl, one handle per call at a time from a pool, so that connections
// are kept between calls. Reads stop at the size their digest names.
//
//===----------------------------------------------------------------------===//

#include "CacheTransport.h"

#include "llvm/ADT/ScopeExit.h"

#include <curl/curl.h>

#include <mutex>
#include <vector>

using namespace llvm;

namespace ulto {

namespace {

// A transfer's reads: what came, up to a limit.
// A transfer's reads, as they arrive.
struct Download {
  function_ref<bool(StringRef)> Append;
  uint64_t Received = 0;
};

size_t receive(char *Data, size_t Size, size_t Count, void *User) {
  auto *D = static_cast<Download *>(User);
  size_t N = Size * Count;
  // More than the entry can be: curl fails the transfer.
  if (!D->Append(StringRef(Data, N)))
    return 0;
  D->Received += N;
  return N;
}

// A transfer's writes.
struct Upload {
  StringRef Bytes;
  const std::atomic<bool> *Stop;
};

size_t send(char *Buffer, size_t Size, size_t Count, void *User) {
  auto *U = static_cast<Upload *>(User);
  size_t N = std::min(Size * Count, U->Bytes.size());
  memcpy(Buffer, U->Bytes.data(), N);
  U->Bytes = U->Bytes.drop_front(N);
  return N;
}

int progress(void *User, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto *U = static_cast<Upload *>(User);
  return U->Stop && *U->Stop; // Non-zero aborts.
}

class HttpTransport final : public CacheTransport {
public:
  HttpTransport(const RemoteConfig &Config, std::chrono::milliseconds Timeout)
      : Config(Config), Timeout(Timeout) {
    for (const auto &[Name, Value] : Config.Headers)
      Headers = curl_slist_append(Headers, (Name + ": " + Value).c_str());
    // No "Expect: 100-continue" round trip before each PUT.
    Headers = curl_slist_append(Headers, "Expect:");
  }
  ~HttpTransport() override {
    for (CURL *H : Idle)
      curl_easy_cleanup(H);
    curl_slist_free_all(Headers);
  }

  grpc::Status getActionResult(const reapi::Digest &Action,
                               reapi::ActionResult &Result) override {
    std::string Bytes;
    grpc::Status S = get("ac/" + Action.hash(), [&](StringRef Data) {
      if (Bytes.size() + Data.size() > (size_t(1) << 20))
        return false;
      Bytes += Data;
      return true;
    });
    if (S.ok() && !Result.ParseFromString(Bytes))
      return grpc::Status(grpc::StatusCode::DATA_LOSS,
                          "ac/" + Action.hash() + " is no ActionResult");
    return S;
  }

  grpc::Status readBlob(const reapi::Digest &Digest,
                        BlobDownload &Into) override {
    if (Digest.size_bytes() < 0 || Digest.size_bytes() > MaxBlobBytes)
      return grpc::Status(grpc::StatusCode::DATA_LOSS,
                          "cas/" + Digest.hash() + " names " +
                              std::to_string(Digest.size_bytes()) + " bytes");
    return get("cas/" + Digest.hash(),
               [&](StringRef Data) { return Into.append(Data); });
  }

  grpc::Status writeBlob(const Blob &B,
                         const std::atomic<bool> &Stop) override {
    return put("cas/" + B.Digest.hash(), B.Bytes, Stop);
  }

  grpc::Status updateActionResult(const reapi::Digest &Action,
                                  const reapi::ActionResult &Result,
                                  const std::atomic<bool> &Stop) override {
    return put("ac/" + Action.hash(), Result.SerializeAsString(), Stop);
  }

  uint64_t bytesDown() const override { return BytesDown; }
  uint64_t bytesUp() const override { return BytesUp; }

private:
  grpc::Status get(const std::string &Path,
                   function_ref<bool(StringRef)> Append);
  grpc::Status put(const std::string &Path, StringRef Bytes,
                   const std::atomic<bool> &Stop);
  CURL *take(const std::string &Path);
  grpc::Status perform(CURL *H, const std::string &Path);

  const RemoteConfig Config;
  std::chrono::milliseconds Timeout;
  curl_slist *Headers = nullptr;
  std::mutex Mutex;
  std::vector<CURL *> Idle;
  std::atomic<uint64_t> BytesDown{0}, BytesUp{0};
};

// A handle from the pool, reset and aimed at <base>/<Path>.
CURL *HttpTransport::take(const std::string &Path) {
  CURL *H = nullptr;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (!Idle.empty()) {
      H = Idle.back();
      Idle.pop_back();
    }
  }
  if (H)
    curl_easy_reset(H);
  else
    H = curl_easy_init();
  std::string URL = Config.Target + "/" + Path;
  curl_easy_setopt(H, CURLOPT_URL, URL.c_str());
  curl_easy_setopt(H, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(H, CURLOPT_HTTPHEADER, Headers);
  curl_easy_setopt(H, CURLOPT_CONNECTTIMEOUT_MS, long(Timeout.count()));
  curl_easy_setopt(H, CURLOPT_TIMEOUT_MS, long(Timeout.count()));
  curl_easy_setopt(H, CURLOPT_PROTOCOLS_STR, "http,https");
  if (!Config.UserPassword.empty())
    curl_easy_setopt(H, CURLOPT_USERPWD, Config.UserPassword.c_str());
  if (!Config.NetrcFile.empty()) {
    curl_easy_setopt(H, CURLOPT_NETRC, long(CURL_NETRC_REQUIRED));
    curl_easy_setopt(H, CURLOPT_NETRC_FILE, Config.NetrcFile.c_str());
  }
  curl_blob Blob;
  struct {
    CURLoption Option;
    const std::string &PEM;
  } Certificates[] = {{CURLOPT_CAINFO_BLOB, Config.RootCertificates},
                      {CURLOPT_SSLCERT_BLOB, Config.ClientCertificate},
                      {CURLOPT_SSLKEY_BLOB, Config.ClientKey}};
  for (auto &C : Certificates) {
    if (C.PEM.empty())
      continue;
    Blob = {const_cast<char *>(C.PEM.data()), C.PEM.size(), CURL_BLOB_COPY};
    curl_easy_setopt(H, C.Option, &Blob);
  }
  if (!Config.ClientCertificate.empty()) {
    curl_easy_setopt(H, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(H, CURLOPT_SSLKEYTYPE, "PEM");
  }
  return H;
}

// Runs the transfer and gives the handle back; 404 is NOT_FOUND.
grpc::Status HttpTransport::perform(CURL *H, const std::string &Path) {
  scope_exit GiveBack([&] {
    std::lock_guard<std::mutex> Lock(Mutex);
    Idle.push_back(H);
  });
  CURLcode Code = curl_easy_perform(H);
  if (Code != CURLE_OK) {
    grpc::StatusCode Status =
        Code == CURLE_OPERATION_TIMEDOUT ? grpc::StatusCode::DEADLINE_EXCEEDED
        : Code == CURLE_WRITE_ERROR      ? grpc::StatusCode::DATA_LOSS
                                         : grpc::StatusCode::UNAVAILABLE;
    std::string Why = Code == CURLE_WRITE_ERROR
                          ? Path + " is larger than its digest names"
                          : curl_easy_strerror(Code);
    return grpc::Status(Status, Why);
  }
  long HTTPStatus = 0;
  curl_easy_getinfo(H, CURLINFO_RESPONSE_CODE, &HTTPStatus);
  if (HTTPStatus >= 200 && HTTPStatus < 300)
    return grpc::Status::OK;
  if (HTTPStatus == 404)
    return grpc::Status(grpc::StatusCode::NOT_FOUND, Path + ": not found");
  return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                      Path + ": HTTP status " + std::to_string(HTTPStatus));
}

grpc::Status HttpTransport::get(const std::string &Path,
                                function_ref<bool(StringRef)> Append) {
  CURL *H = take(Path);
  Download D{Append};
  curl_easy_setopt(H, CURLOPT_WRITEFUNCTION, receive);
  curl_easy_setopt(H, CURLOPT_WRITEDATA, &D);
  grpc::Status S = perform(H, Path);
  if (S.ok())
    BytesDown += D.Received;
  return S;
}

grpc::Status HttpTransport::put(const std::string &Path, StringRef Bytes,
                                const std::atomic<bool> &Stop) {
  CURL *H = take(Path);
  Upload U{Bytes, &Stop};
  curl_easy_setopt(H, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(H, CURLOPT_READFUNCTION, send);
  curl_easy_setopt(H, CURLOPT_READDATA, &U);
  curl_easy_setopt(H, CURLOPT_INFILESIZE_LARGE, curl_off_t(Bytes.size()));
  curl_easy_setopt(H, CURLOPT_XFERINFOFUNCTION, progress);
  curl_easy_setopt(H, CURLOPT_XFERINFODATA, &U);
  curl_easy_setopt(H, CURLOPT_NOPROGRESS, 0L);
  grpc::Status S = perform(H, Path);
  if (S.ok())
    BytesUp += Bytes.size();
  return S;
}

} // namespace

Expected<std::unique_ptr<CacheTransport>>
makeHttpTransport(const RemoteConfig &Config,
                  std::chrono::milliseconds Timeout) {
  static CURLcode Init = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (Init != CURLE_OK)
    return createStringError("remote cache %s: libcurl: %s", Config.URL.c_str(),
                             curl_easy_strerror(Init));
  return std::make_unique<HttpTransport>(Config, Timeout);
}

} // namespace ulto
