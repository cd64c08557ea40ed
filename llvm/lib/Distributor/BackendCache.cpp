//===- BackendCache.cpp - Content-addressed cache of backend objects ------===//

#include "ulto/Distributor/BackendCache.h"
#include "ulto/Support/AtomicFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/CachePruning.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace llvm;

namespace ulto {

// An entry is the object followed by this magic and the digest of its key
// and object: an entry copied under another key's name is damaged, not a hit.
static constexpr StringLiteral EntryMagic = "ulto-backend-object-2";
static constexpr size_t TrailerSize = EntryMagic.size() + 32;

static BLAKE3Result<32> entryDigest(StringRef Key, StringRef Object) {
  BLAKE3 Hasher;
  Hasher.update(Key);
  Hasher.update(Object);
  return Hasher.final<32>();
}

std::string defaultCacheDirectory() {
  if (std::optional<std::string> Dir = sys::Process::GetEnv("ULTO_CACHE_DIR"))
    if (!Dir->empty())
      return *Dir;
  SmallString<128> Path;
  if (!sys::path::cache_directory(Path))
    sys::path::system_temp_directory(/*ErasedOnReboot=*/false, Path);
  sys::path::append(Path, "ulto");
  return std::string(Path);
}

Expected<std::unique_ptr<BackendCache>>
BackendCache::open(StringRef Directory) {
  if (std::error_code EC = sys::fs::create_directories(Directory))
    return createStringError(EC, "cannot create cache directory '%s': %s",
                             Directory.str().c_str(), EC.message().c_str());
  return std::unique_ptr<BackendCache>(new BackendCache(Directory.str()));
}

std::string BackendCache::entryPath(StringRef Key) const {
  SmallString<128> Path(Directory);
  sys::path::append(Path, "llvmcache-" + Key);
  return std::string(Path);
}

std::unique_ptr<MemoryBuffer> BackendCache::lookup(StringRef Key,
                                                   bool &Damaged) {
  Damaged = false;
  std::string Path = entryPath(Key);
  Expected<sys::fs::file_t> FD = sys::fs::openNativeFileForRead(Path);
  if (!FD) {
    consumeError(FD.takeError());
    return nullptr;
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> Entry =
      MemoryBuffer::getOpenFile(*FD, Path, /*FileSize=*/-1,
                                /*RequiresNullTerminator=*/false);
  // A hit is a use: pruning by age removes the least recently used entries.
  if (Entry)
    (void)sys::fs::setLastAccessAndModificationTime(
        *FD, std::chrono::system_clock::now());
  sys::fs::closeFile(*FD);
  if (!Entry)
    return nullptr;

  StringRef Bytes = (*Entry)->getBuffer();
  bool Intact = false;
  if (Bytes.size() > TrailerSize) {
    StringRef Object = Bytes.drop_back(TrailerSize);
    StringRef Trailer = Bytes.take_back(TrailerSize);
    BLAKE3Result<32> Sum = entryDigest(Key, Object);
    Intact = Trailer.starts_with(EntryMagic) &&
             std::memcmp(Trailer.data() + EntryMagic.size(), Sum.data(),
                         Sum.size()) == 0;
  }
  if (!Intact) {
    Damaged = true;
    sys::fs::remove(Path);
    return nullptr;
  }
  return MemoryBuffer::getMemBufferCopy(Bytes.drop_back(TrailerSize), Key);
}

Error BackendCache::store(StringRef Key, StringRef Object) {
  BLAKE3Result<32> Sum = entryDigest(Key, Object);
  return writeAtomically(
      entryPath(Key),
      [&](raw_ostream &OS) {
        OS << Object << EntryMagic;
        OS.write(reinterpret_cast<const char *>(Sum.data()), Sum.size());
      },
      OnSignal::CallerWaits);
}

Expected<CacheStats> readCacheStats(StringRef Directory) {
  CacheStats Stats;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Directory, EC), End; It != End && !EC;
       It.increment(EC)) {
    if (!sys::path::filename(It->path()).starts_with("llvmcache-"))
      continue;
    ErrorOr<sys::fs::basic_file_status> Status = It->status();
    if (!Status)
      continue;
    ++Stats.Entries;
    Stats.Bytes += Status->getSize();
  }
  if (EC && EC != std::errc::no_such_file_or_directory)
    return createStringError(EC, "cannot read cache directory '%s': %s",
                             Directory.str().c_str(), EC.message().c_str());
  return Stats;
}

static Expected<CachePruningPolicy> parsePolicy(StringRef PolicyText) {
  Expected<CachePruningPolicy> Policy = parseCachePruningPolicy(PolicyText);
  if (!Policy)
    return createStringError("invalid cache policy '%s': %s",
                             PolicyText.str().c_str(),
                             toString(Policy.takeError()).c_str());
  return Policy;
}

Error checkCachePolicy(StringRef Policy) {
  return parsePolicy(Policy).takeError();
}

static Error prune(StringRef Directory, StringRef PolicyText, bool Now) {
  Expected<CachePruningPolicy> Policy = parsePolicy(PolicyText);
  if (!Policy)
    return Policy.takeError();
  if (Now)
    Policy->Interval = std::chrono::seconds(0);
  if (sys::fs::exists(Directory))
    pruneCache(Directory, *Policy);
  return Error::success();
}

Error pruneBackendCache(StringRef Directory, StringRef Policy) {
  return prune(Directory, Policy, /*Now=*/true);
}

Error prunePeriodically(StringRef Directory, StringRef Policy) {
  return prune(Directory, Policy, /*Now=*/false);
}

} // namespace ulto
