//===- CacheCommand.cpp - ulto cache --------------------------------------===//
//
// `ulto cache stats` and `ulto cache prune` manage the backend cache that
// `ulto dist` (and so ld.ulto --lto=distributed) fills.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ulto/Distributor/BackendCache.h"
#include "ulto/Distributor/RemoteCacheStats.h"

#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ulto;

namespace {

#define ULTO_OPTIONS_INC "CacheOpts.inc"
#include "ulto/Support/OptionIDs.def"

#include "ulto/Support/CommandOptTable.def"

constexpr StringLiteral ToolName = "ulto cache";

int printStats(StringRef Dir, bool JSON) {
  Expected<CacheStats> Stats = readCacheStats(Dir);
  if (!Stats)
    return reportErrors(ToolName, Stats.takeError());
  // The user's links that used a remote cache, when there were any.
  RemoteCacheCounts Remote = readRemoteCacheStats(Dir);
  bool UsedRemote = Remote.Hits + Remote.Misses != 0;
  if (JSON) {
    json::OStream J(outs());
    J.object([&] {
      J.attribute("directory", Dir);
      J.attribute("entries", int64_t(Stats->Entries));
      J.attribute("bytes", int64_t(Stats->Bytes));
      if (UsedRemote)
        J.attributeObject("remote", [&] {
          J.attribute("hits", int64_t(Remote.Hits));
          J.attribute("misses", int64_t(Remote.Misses));
          J.attribute("bad_entries", int64_t(Remote.BadEntries));
          J.attribute("uploaded", int64_t(Remote.Uploaded));
          J.attribute("bytes_down", int64_t(Remote.BytesDown));
          J.attribute("bytes_up", int64_t(Remote.BytesUp));
        });
    });
    outs() << "\n";
    return 0;
  }
  outs() << "directory: " << Dir << "\n"
         << "entries:   " << Stats->Entries << "\n"
         << "bytes:     " << Stats->Bytes << "\n";
  if (UsedRemote)
    outs() << "remote:    " << Remote.format() << "\n";
  return 0;
}

// What `ulto cache` was asked to do.
struct CacheConfig {
  bool Prune;
  std::string Dir;
  std::string Policy;
  bool JSON;
};

Expected<CacheConfig> readCacheConfig(const opt::InputArgList &Args) {
  Error Errors = unknownArguments(Args);
  std::vector<std::string> Actions = Args.getAllArgValues(OPT_INPUT);
  CacheConfig Config;
  if (Actions.size() != 1 || (Actions[0] != "stats" && Actions[0] != "prune"))
    addError(Errors, createStringError("expected one action: stats or prune"));
  else
    Config.Prune = Actions[0] == "prune";
  Config.Dir =
      Args.getLastArgValue(OPT_cache_dir, defaultCacheDirectory()).str();
  Config.Policy = Args.getLastArgValue(OPT_policy, DefaultCachePolicy).str();
  Config.JSON = Args.hasArg(OPT_json);
  if (Errors)
    return Errors;
  if (Config.Dir.empty())
    return createStringError("--cache-dir= needs a directory");
  // The default cache may not exist yet; a directory named here must.
  if (Args.hasArg(OPT_cache_dir) && !sys::fs::exists(Config.Dir))
    return createStringError("cache directory '%s' does not exist",
                             Config.Dir.c_str());
  return Config;
}

} // namespace

int ulto::cacheMain(ArrayRef<const char *> Args) {
  std::optional<opt::InputArgList> ArgList =
      commandOptTable().parse(Args, "ulto cache stats|prune [options]",
                              "Manage the ThinLTO backend cache of ulto dist");
  if (!ArgList)
    return 0;
  Expected<CacheConfig> Config = readCacheConfig(*ArgList);
  if (!Config)
    return reportErrors(ToolName, Config.takeError());

  if (Config->Prune)
    if (Error E = pruneBackendCache(Config->Dir, Config->Policy))
      return reportErrors(ToolName, std::move(E));
  return printStats(Config->Dir, Config->JSON);
}
