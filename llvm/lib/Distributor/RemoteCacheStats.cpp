//===- RemoteCacheStats.cpp - What the remote cache gave, over time -------===//

#include "ulto/Distributor/RemoteCacheStats.h"

#include "ulto/Support/AtomicFile.h"
#include "ulto/Support/Flock.h"
#include "ulto/Support/RuntimeDirectory.h"
#include "ulto/Support/TrustedFile.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/Errc.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <unistd.h>

using namespace llvm;

namespace ulto {

static std::string statsDirectory(StringRef CacheDirectory) {
  SmallString<128> Dir(CacheDirectory);
  sys::path::append(Dir, "remote-" + std::to_string(::getuid()));
  return std::string(Dir);
}

static std::string inDirectory(StringRef Dir, StringRef Name) {
  SmallString<128> Path(Dir);
  sys::path::append(Path, Name);
  return std::string(Path);
}

// The fields of the file, in the order they are written.
template <typename Fn> static void eachField(RemoteCacheCounts &C, Fn F) {
  F("hits", C.Hits);
  F("misses", C.Misses);
  F("bad_entries", C.BadEntries);
  F("uploaded", C.Uploaded);
  F("uploads_failed", C.UploadsFailed);
  F("uploads_dropped", C.UploadsDropped);
  F("bytes_down", C.BytesDown);
  F("bytes_up", C.BytesUp);
}

RemoteCacheCounts readRemoteCacheStats(StringRef CacheDirectory) {
  RemoteCacheCounts Totals;
  Expected<std::unique_ptr<MemoryBuffer>> Bytes = readTrustedFile(
      inDirectory(statsDirectory(CacheDirectory), "stats.json"));
  if (!Bytes) {
    consumeError(Bytes.takeError());
    return Totals;
  }
  Expected<json::Value> Value = json::parse((*Bytes)->getBuffer());
  const json::Object *Fields = Value ? Value->getAsObject() : nullptr;
  if (!Fields) {
    consumeError(Value.takeError());
    return Totals;
  }
  eachField(Totals, [&](StringRef Name, auto &Field) {
    if (std::optional<int64_t> N = Fields->getInteger(Name); N && *N >= 0)
      Field = *N;
  });
  return Totals;
}

bool remoteCacheStatsTaken(StringRef CacheDirectory) {
  return isTakenDirectory(statsDirectory(CacheDirectory));
}

Error addRemoteCacheStats(StringRef CacheDirectory,
                          const RemoteCacheCounts &Link) {
  std::string Dir = statsDirectory(CacheDirectory);
  if (Error E = makePrivateDirectory(Dir))
    return createFileError(Dir, std::move(E));
  // Concurrent links add one after another.
  std::string LockPath = inDirectory(Dir, "stats.lock");
  int Lock = openLockFile(LockPath.c_str());
  if (Lock < 0 || flockFD(Lock, LOCK_EX) != 0) {
    std::error_code EC(errno, std::generic_category());
    if (Lock >= 0)
      ::close(Lock);
    return createFileError(LockPath, EC);
  }
  scope_exit Unlock([&] { ::close(Lock); });
  RemoteCacheCounts Totals = readRemoteCacheStats(CacheDirectory);
  Totals += Link;
  return writeAtomically(
      inDirectory(Dir, "stats.json"),
      [&](raw_ostream &OS) {
        json::Object Fields;
        eachField(Totals, [&](StringRef Name, auto &Field) {
          Fields[Name] = int64_t(Field);
        });
        OS << json::Value(std::move(Fields));
      },
      OnSignal::CallerWaits, Existing::Replace);
}

} // namespace ulto
