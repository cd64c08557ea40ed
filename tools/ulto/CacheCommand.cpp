//===- CacheCommand.cpp - ulto cache --------------------------------------===//
//
// `ulto cache stats` and `ulto cache prune` manage the backend cache that
// `ulto dist` (and so ld.ulto --lto=distributed) fills.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ulto/Distributor/BackendCache.h"

#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ulto;

namespace {

#define ULTO_OPTIONS_INC "CacheOpts.inc"
#include "CommandOptTable.def"

constexpr StringLiteral ToolName = "ulto cache";

raw_ostream &error() { return WithColor::error(errs(), ToolName); }

int printStats(StringRef Dir, bool JSON) {
  Expected<CacheStats> Stats = readCacheStats(Dir);
  if (!Stats) {
    error() << toString(Stats.takeError()) << "\n";
    return 1;
  }
  if (JSON) {
    json::OStream J(outs());
    J.object([&] {
      J.attribute("directory", Dir);
      J.attribute("entries", int64_t(Stats->Entries));
      J.attribute("bytes", int64_t(Stats->Bytes));
    });
    outs() << "\n";
    return 0;
  }
  outs() << "directory: " << Dir << "\n"
         << "entries:   " << Stats->Entries << "\n"
         << "bytes:     " << Stats->Bytes << "\n";
  return 0;
}

} // namespace

int ulto::cacheMain(ArrayRef<const char *> Args) {
  CommandOptTable Table;
  opt::InputArgList ArgList;
  bool BadArgs;
  if (!Table.parse(Args, ToolName, "ulto cache stats|prune [options]",
                   "Manage the ThinLTO backend cache of ulto dist", ArgList,
                   BadArgs))
    return 0;
  std::vector<std::string> Actions = ArgList.getAllArgValues(OPT_INPUT);
  if (!BadArgs && (Actions.size() != 1 ||
                   (Actions[0] != "stats" && Actions[0] != "prune"))) {
    error() << "expected one action: stats or prune\n";
    BadArgs = true;
  }
  if (BadArgs)
    return 1;

  std::string Dir =
      ArgList.getLastArgValue(OPT_cache_dir, defaultCacheDirectory()).str();
  if (Dir.empty()) {
    error() << "--cache-dir= needs a directory\n";
    return 1;
  }
  if (Actions[0] == "stats")
    return printStats(Dir, ArgList.hasArg(OPT_json));

  if (Error E = pruneBackendCache(
          Dir, ArgList.getLastArgValue(OPT_policy, DefaultCachePolicy))) {
    error() << toString(std::move(E)) << "\n";
    return 1;
  }
  return printStats(Dir, ArgList.hasArg(OPT_json));
}
