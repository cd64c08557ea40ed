//===- DistConfig.cpp - What ulto dist was asked to do --------------------===//

#include "DistConfig.h"

#include "ulto/DistProtocol/DistOptTable.h"
#include "ulto/Distributor/BackendCache.h"
#include "ulto/LocalExecution/SlotPool.h"
#include "ulto/Support/Message.h"
#include "ulto/Support/Version.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"

#include <cerrno>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;
using namespace llvm::opt;
using namespace ulto::dist;

namespace ulto {

// A file's whole text, for certificates and tokens: a regular file of at
// most \p MaxBytes (/dev/zero would fill the memory; a FIFO's open would
// wait for a writer, signals held).
static Expected<std::string> readWhole(StringRef Path, StringRef What,
                                       uint64_t MaxBytes) {
  auto Fail = [&](const Twine &Why) {
    return createStringError("cannot read %s '%s': %s", What.str().c_str(),
                             Path.str().c_str(), Why.str().c_str());
  };
  int FD;
  do
    FD = ::open(Path.str().c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  while (FD < 0 && errno == EINTR);
  if (FD < 0)
    return Fail(sys::StrError(errno));
  scope_exit Close([&] { ::close(FD); });
  struct stat Status;
  if (::fstat(FD, &Status) != 0)
    return Fail(sys::StrError(errno));
  if (!S_ISREG(Status.st_mode))
    return Fail("not a regular file");
  if (uint64_t(Status.st_size) > MaxBytes)
    return Fail("larger than " + formatBytes(MaxBytes));
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getOpenFile(
      FD, Path, Status.st_size, /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return Fail(Buffer.getError().message());
  return (*Buffer)->getBuffer().str();
}

// An HTTP cache's user and password, from --remote-netrc or
// $ULTO_REMOTE_CREDENTIALS unless the URL names them; none of it over a
// network in cleartext unless asked for.
static Error readCredentials(const opt::InputArgList &ArgList,
                             RemoteConfig &Config) {
  if (const opt::Arg *A = ArgList.getLastArg(OPT_remote_netrc)) {
    if (!Config.HTTP)
      return createStringError("--remote-netrc is for http[s]:// caches; a "
                               "gRPC server's credentials go in "
                               "--remote-token-file or --remote-header");
    // Read as a token file is: a regular file, not too large.
    if (Expected<std::string> Text =
            readWhole(A->getValue(), "netrc file", /*MaxBytes=*/1 << 20);
        !Text)
      return Text.takeError();
    Config.NetrcFile = A->getValue();
  } else if (std::optional<std::string> Credentials =
                 sys::Process::GetEnv("ULTO_REMOTE_CREDENTIALS");
             Config.HTTP && Config.UserPassword.empty() && Credentials &&
             !Credentials->empty()) {
    Config.UserPassword = *Credentials;
  }
  if (carriesCredentials(Config) && isCleartext(Config) &&
      !ArgList.hasArg(OPT_remote_cleartext_credentials))
    return createStringError(
        "%s: its credentials would cross the network in cleartext, for "
        "anyone on the way to read; use %s, or --remote-cleartext-credentials",
        Config.URL.c_str(), Config.HTTP ? "https://" : "grpcs://");
  return Error::success();
}

// The server and how to reach it, from --remote or --remote-cache, and
// their companions.
static Expected<RemoteConfig> remoteConfig(const opt::InputArgList &ArgList) {
  Expected<RemoteConfig> Config =
      ArgList.hasArg(OPT_remote)
          ? parseRemoteURL(ArgList.getLastArgValue(OPT_remote))
          : parseRemoteCacheURL(ArgList.getLastArgValue(OPT_remote_cache));
  if (!Config)
    return Config.takeError();
  Config->Instance = ArgList.getLastArgValue(OPT_remote_instance).str();
  Config->ToolVersion = ULTO_VERSION;
  Config->BuildId = ArgList.getLastArgValue(
      OPT_remote_build_id, sys::Process::GetEnv("ULTO_BUILD_ID").value_or(""));
  for (StringRef Header : ArgList.getAllArgValues(OPT_remote_header)) {
    Expected<std::pair<std::string, std::string>> H = parseRemoteHeader(Header);
    if (!H)
      return H.takeError();
    Config->Headers.push_back(std::move(*H));
  }
  if (const opt::Arg *A = ArgList.getLastArg(OPT_remote_token_file)) {
    Expected<std::string> Token =
        readWhole(A->getValue(), "token file", /*MaxBytes=*/64 << 10);
    if (!Token)
      return Token.takeError();
    StringRef Trimmed = StringRef(*Token).trim();
    if (Trimmed.empty() || Trimmed.contains_insensitive('\n'))
      return createStringError("token file '%s': expected one line, the "
                               "token",
                               A->getValue());
    if (Error E = checkHeaderValue(
            ("token file '" + Twine(A->getValue()) + "'").str(), Trimmed))
      return std::move(E);
    Config->Headers.push_back({"authorization", "Bearer " + Trimmed.str()});
  }
  if (Error E = readCredentials(ArgList, *Config))
    return std::move(E);
  struct {
    OptSpecifier Option;
    std::string *Into;
    const char *What;
  } Files[] = {
      {OPT_remote_tls_ca, &Config->RootCertificates, "CA certificates"},
      {OPT_remote_tls_cert, &Config->ClientCertificate, "client certificate"},
      {OPT_remote_tls_key, &Config->ClientKey, "client key"},
  };
  for (auto &File : Files) {
    const opt::Arg *A = ArgList.getLastArg(File.Option);
    if (!A)
      continue;
    if (!Config->TLS)
      return createStringError(
          "--%s needs a %s", A->getOption().getName().drop_back().str().c_str(),
          ArgList.hasArg(OPT_remote) ? "grpcs:// remote"
                                     : "grpcs:// or https:// remote cache");
    // Debian's whole CA bundle is about 200 KiB.
    Expected<std::string> Text =
        readWhole(A->getValue(), File.What, /*MaxBytes=*/16 << 20);
    if (!Text)
      return Text.takeError();
    *File.Into = std::move(*Text);
  }
  if (Config->ClientCertificate.empty() != Config->ClientKey.empty())
    return createStringError("--remote-tls-cert and --remote-tls-key go "
                             "together");
  return Config;
}

Error parseCount(const opt::InputArgList &Args, OptSpecifier Option,
                 unsigned &Value, bool AllowZero) {
  const opt::Arg *A = Args.getLastArg(Option);
  if (!A)
    return Error::success();
  if (!StringRef(A->getValue()).getAsInteger(10, Value) &&
      (Value != 0 || AllowZero))
    return Error::success();
  return createStringError("invalid --%s value '%s': expected a %s",
                           A->getOption().getName().drop_back().str().c_str(),
                           A->getValue(),
                           AllowZero ? "number" : "positive number");
}

// The remote executor's options.
static Error readRemoteOptions(const opt::InputArgList &Args,
                               RemoteExecutorOptions &Options) {
  Error Errors = Error::success();
  for (StringRef Property : Args.getAllArgValues(OPT_remote_platform)) {
    auto [Name, Value] = Property.split('=');
    if (Name.empty() || Name.size() == Property.size())
      addError(Errors, createStringError("invalid --remote-platform value "
                                         "'%s': expected NAME=VALUE",
                                         Property.str().c_str()));
    Options.Platform.push_back({Name.str(), Value.str()});
  }
  Options.Compiler = Args.getLastArgValue(OPT_remote_compiler).str();
  Options.ShipCompiler = Args.hasArg(OPT_remote_ship_compiler);
  if (Options.ShipCompiler && !Options.Compiler.empty())
    addError(Errors, createStringError("--remote-compiler and "
                                       "--remote-ship-compiler exclude each "
                                       "other"));
  unsigned Timeout = Options.Timeout.count();
  addError(Errors, parseCount(Args, OPT_remote_retries, Options.Retries,
                              /*AllowZero=*/true));
  addError(Errors, parseCount(Args, OPT_remote_timeout, Timeout));
  Options.Timeout = std::chrono::seconds(Timeout);
  Options.LocalFallback = !Args.hasArg(OPT_no_local_fallback);
  return Errors;
}

SmallVector<const char *, 0> expandArgs(ArrayRef<const char *> Args,
                                        StringSaver &Saver) {
  SmallVector<const char *, 0> Expanded;
  if (std::optional<std::string> Flags =
          sys::Process::GetEnv("ULTO_DIST_FLAGS"))
    cl::TokenizeGNUCommandLine(*Flags, Saver, Expanded);
  append_range(Expanded, Args);
  cl::ExpandResponseFiles(Saver, cl::TokenizeGNUCommandLine, Expanded);
  return Expanded;
}

// --progress: whether to keep the live progress line.
static Expected<bool> readProgress(const opt::InputArgList &Args) {
  StringRef Progress = Args.getLastArgValue(OPT_progress, "auto");
  std::optional<bool> Show =
      StringSwitch<std::optional<bool>>(Progress)
          .Case("auto", sys::Process::StandardErrIsDisplayed())
          .Case("always", true)
          .Case("never", false)
          .Default(std::nullopt);
  if (!Show)
    return createStringError("invalid --progress value '%s': expected auto, "
                             "always or never",
                             Progress.str().c_str());
  return *Show;
}

Error readServiceConfig(const opt::InputArgList &Args, ServiceConfig &Service) {
  if (const opt::Arg *A = Args.getLastArg(OPT_service, OPT_no_service))
    Service.Use = A->getOption().matches(OPT_service) ? ServiceConfig::Asked
                                                      : ServiceConfig::No;
  return joinErrors(
      parseCount(Args, OPT_service_idle_limit, Service.IdleLimit),
      parseCount(Args, OPT_service_limit, Service.Limit, /*AllowZero=*/true));
}

// The numbers: jobs at once, limits, the workers and the service.
static Error readCounts(const opt::InputArgList &Args, DistConfig &Config) {
  Error Errors = Error::success();
  if (Args.hasArg(OPT_jobs))
    addError(Errors, parseCount(Args, OPT_jobs, Config.Parallelism));
  else if (Expected<unsigned> Slots = defaultSlotCount())
    Config.Parallelism = *Slots;
  else
    addError(Errors, Slots.takeError());
  addError(Errors, parseCount(Args, OPT_wait_limit, Config.WaitLimit));
  addError(Errors, parseCount(Args, OPT_jobs_per_process,
                              Config.Workers.JobsPerWorker));
  addError(Errors, parseCount(Args, OPT_remote_jobs, Config.RemoteJobs));
  addError(Errors, readServiceConfig(Args, Config.Service));
  return Errors;
}

// --executor, and the remote's options when there is one.
static Error readExecutor(const opt::InputArgList &Args, DistConfig &Config) {
  StringRef Executor =
      Args.getLastArgValue(OPT_executor, Config.Remote ? "remote" : "local");
  Config.Executor =
      Executor == "remote" ? ExecutorKind::Remote : ExecutorKind::Local;
  Error Errors = Error::success();
  if (Executor != "local" && Executor != "remote")
    addError(Errors, createStringError("unknown executor '%s'; executors: "
                                       "local, remote",
                                       Executor.str().c_str()));
  else if (Executor == "remote" && !Config.Remote)
    addError(Errors, createStringError("--executor=remote needs "
                                       "--remote=grpc://host:port"));
  if (Config.Remote)
    addError(Errors, readRemoteOptions(Args, Config.RemoteOptions));
  return Errors;
}

// The cache: where, how it is pruned, whose entries it takes.
static Error readCache(const opt::InputArgList &Args, DistConfig &Config) {
  Config.UseCache = !Args.hasArg(OPT_no_cache);
  Config.CacheDir =
      Args.getLastArgValue(OPT_cache_dir, defaultCacheDirectory()).str();
  if (Config.CacheDir.empty())
    return createStringError("--cache-dir= needs a directory");
  Config.CachePolicy =
      Args.getLastArgValue(OPT_cache_policy, DefaultCachePolicy).str();
  if (Error E = checkCachePolicy(Config.CachePolicy))
    return E;
  if (const opt::Arg *A = Args.getLastArg(OPT_cache_trusted_group)) {
    struct group *Group = ::getgrnam(A->getValue());
    if (!Group)
      return createStringError("--cache-trusted-group=%s: no such group",
                               A->getValue());
    Config.TrustedGroup = Group->gr_gid;
  }
  return Error::success();
}

// --remote-cache and its companions.
static Error readRemoteCache(const opt::InputArgList &Args,
                             DistConfig &Config) {
  Config.RemoteCacheReadOnly = Args.hasArg(OPT_remote_cache_read_only);
  if (!Args.hasArg(OPT_remote_cache))
    return Config.RemoteCacheReadOnly
               ? createStringError("--remote-cache-read-only needs "
                                   "--remote-cache=<url>")
               : Error::success();
  if (Args.hasArg(OPT_remote))
    return createStringError("--remote-cache is for links without --remote: "
                             "a farm's own action cache serves its jobs");
  unsigned Seconds = Config.RemoteCacheTimeout.count();
  if (Error E = parseCount(Args, OPT_remote_cache_timeout, Seconds))
    return E;
  Config.RemoteCacheTimeout = std::chrono::seconds(Seconds);
  Expected<RemoteConfig> Cache = remoteConfig(Args);
  if (!Cache)
    return Cache.takeError();
  Config.RemoteCache = std::move(*Cache);
  // The actions are named as a farm's link names them.
  return readRemoteOptions(Args, Config.RemoteOptions);
}

std::vector<std::string> remoteWarnings(const DistConfig &Config,
                                        ArrayRef<const char *> CommandLine) {
  std::vector<std::string> Warnings;
  for (const std::optional<RemoteConfig> &Server :
       {Config.Remote, Config.RemoteCache}) {
    if (!Server)
      continue;
    if (isCleartext(*Server))
      Warnings.push_back(Server->URL +
                         ": cleartext, so what it sends can be read, and "
                         "its objects replaced, on the way; use " +
                         (Server->HTTP ? "https://" : "grpcs://"));
    bool Typed = any_of(CommandLine, [](StringRef Arg) {
      return Arg.consume_front("--remote-cache=") &&
             withoutCredentials(Arg) != Arg;
    });
    if (Server->CredentialsInURL && Typed)
      Warnings.push_back(
          Server->URL +
          ": its password is on a command line, which every user of this "
          "machine can read (ps); put it in $ULTO_REMOTE_CREDENTIALS or a "
          "--remote-netrc file");
  }
  return Warnings;
}

Expected<DistConfig> readDistConfig(const opt::InputArgList &Args) {
  Error Errors = dist::unknownArguments(Args);
  DistConfig Config;
  if (Args.hasArg(OPT_remote)) {
    Expected<RemoteConfig> Remote = remoteConfig(Args);
    if (!Remote)
      return joinErrors(std::move(Errors), Remote.takeError());
    Config.Remote = std::move(*Remote);
  }
  addError(Errors, readRemoteCache(Args, Config));
  if (Args.hasArg(OPT_serve_workers))
    addError(Errors, createStringError("--serve-workers= is the worker "
                                       "service's own option, and comes "
                                       "first"));
  Config.CheckRemote = Args.hasArg(OPT_check_remote);
  if (Config.CheckRemote && !Config.Remote)
    return createStringError("--check-remote needs --remote=grpc://host:port");
  if (Config.CheckRemote)
    return Errors ? Expected<DistConfig>(std::move(Errors)) : Config;

  addError(Errors, readCounts(Args, Config));
  addError(Errors, readExecutor(Args, Config));
  if (Expected<bool> Progress = readProgress(Args))
    Config.Progress = *Progress;
  else
    addError(Errors, Progress.takeError());
  std::vector<std::string> Inputs = Args.getAllArgValues(OPT_INPUT);
  // lld's recipe gives `dist` as a distributor argument; a build that puts
  // its link flags on the line twice (zstd's Makefiles) gives it twice. lld
  // names job lists "<output>.<pid>.dist-file.json", never "dist".
  llvm::erase(Inputs, "dist");
  if (Inputs.size() != 1 && !Errors)
    addError(Errors, createStringError(
                         Inputs.empty() ? "no job list given"
                                        : "expected one job list, got " +
                                              std::to_string(Inputs.size())));
  if (Errors)
    return Errors;

  Config.JobList = Inputs[0];
  if (Error E = readCache(Args, Config))
    return E;
  Config.NinjaFile = Args.getLastArgValue(OPT_emit_ninja).str();
  Config.Spawn = Args.hasArg(OPT_spawn);
  Config.Quiet = Args.hasArg(OPT_quiet);
  Config.Explain = Args.hasArg(OPT_explain);
  Config.TraceFile = Args.getLastArgValue(OPT_time_trace).str();
  return Config;
}

} // namespace ulto
