//===- BackendCache.cpp - Content-addressed cache of backend objects ------===//

#include "ulto/Distributor/BackendCache.h"
#include "ulto/Distributor/ExplainRun.h"
#include "ulto/Support/AtomicFile.h"
#include "ulto/Support/TrustedFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/CachePruning.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <unistd.h>

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
BackendCache::open(StringRef Directory, std::optional<gid_t> TrustedGroup) {
  if (std::error_code EC = sys::fs::create_directories(Directory))
    return createStringError(EC, "cannot create cache directory '%s': %s",
                             Directory.str().c_str(), EC.message().c_str());
  return std::unique_ptr<BackendCache>(
      new BackendCache(Directory.str(), TrustedGroup));
}

std::string BackendCache::entryPath(StringRef Key) const {
  SmallString<128> Path(Directory);
  sys::path::append(Path, "llvmcache-" + Key);
  return std::string(Path);
}

bool BackendCache::isTrustedMember(uid_t Owner) {
  std::lock_guard<std::mutex> Lock(Mutex);
  auto [It, New] = Members.try_emplace(Owner, false);
  if (New)
    It->second = isGroupMember(Owner, *TrustedGroup);
  return It->second;
}

std::unique_ptr<MemoryBuffer> BackendCache::lookup(StringRef Key,
                                                   bool &Damaged) {
  Damaged = false;
  std::string Path = entryPath(Key);
  // Not through a link (its target is another user's choice), and not
  // waiting on a FIFO.
  int FD;
  do
    FD = ::open(Path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  while (FD < 0 && errno == EINTR);
  struct stat Status;
  EntryCheck Check = EntryCheck::Damaged;
  if (FD >= 0 && ::fstat(FD, &Status) == 0)
    Check = checkEntry(Status, ::geteuid(), TrustedGroup,
                       [&](uid_t Owner) { return isTrustedMember(Owner); });
  else if (FD < 0 && errno != ELOOP)
    return nullptr; // No entry, or none this user may read: a miss.
  // Another user's entry, in a cache the user shares: a miss, left alone.
  if (Check == EntryCheck::Untrusted) {
    ::close(FD);
    return nullptr;
  }
  std::unique_ptr<MemoryBuffer> Entry;
  if (Check == EntryCheck::Trusted)
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> Read = MemoryBuffer::getOpenFile(
            FD, Path, Status.st_size, /*RequiresNullTerminator=*/false))
      Entry = std::move(*Read);
  // A hit is a use: pruning by age removes the least recently used entries.
  if (Entry)
    (void)sys::fs::setLastAccessAndModificationTime(
        FD, std::chrono::system_clock::now());
  if (FD >= 0)
    ::close(FD);

  bool Intact = false;
  StringRef Bytes = Entry ? Entry->getBuffer() : StringRef();
  if (Bytes.size() > TrailerSize) {
    StringRef Object = Bytes.drop_back(TrailerSize);
    StringRef Trailer = Bytes.take_back(TrailerSize);
    BLAKE3Result<32> Sum = entryDigest(Key, Object);
    Intact = Trailer.starts_with(EntryMagic) &&
             std::memcmp(Trailer.data() + EntryMagic.size(), Sum.data(),
                         Sum.size()) == 0;
  }
  // Dropped: the name only, never a link's target (LLVM's remove would not
  // take a FIFO). One that stays (another user's, in a sticky directory) is
  // no more than a miss.
  if (!Intact) {
    Damaged = ::unlink(Path.c_str()) == 0;
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
      OnSignal::CallerWaits, Existing::Replace);
}

Expected<CacheStats> readCacheStats(StringRef Directory) {
  CacheStats Stats;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Directory, EC, /*Follow=*/false), End;
       It != End && !EC; It.increment(EC)) {
    sys::fs::file_status Status;
    if (!sys::path::filename(It->path()).starts_with("llvmcache-") ||
        sys::fs::status(It->path(), Status, /*Follow=*/false) ||
        Status.type() != sys::fs::file_type::regular_file)
      continue;
    ++Stats.Entries;
    Stats.Bytes += Status.getSize();
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

// Whether pruning is due (always when \p Now), by llvmcache.timestamp,
// which it then touches; opened without following a link, created if
// absent.
static bool pruneIsDue(StringRef Directory, const CachePruningPolicy &Policy,
                       bool Now, sys::TimePoint<> Time) {
  SmallString<128> Timestamp(Directory);
  sys::path::append(Timestamp, "llvmcache.timestamp");
  sys::fs::file_status Stamp;
  bool HasStamp = !sys::fs::status(Timestamp, Stamp, /*Follow=*/false);
  if (HasStamp && Stamp.type() != sys::fs::file_type::regular_file) {
    ::unlink(Timestamp.c_str());
    HasStamp = false;
  }
  if (!Now && HasStamp &&
      (!Policy.Interval ||
       Time - Stamp.getLastModificationTime() <= *Policy.Interval))
    return false;
  int FD =
      ::open(Timestamp.c_str(),
             O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666);
  if (FD >= 0) {
    (void)sys::fs::setLastAccessAndModificationTime(FD, Time);
    ::close(FD);
  }
  return true;
}

namespace {
struct PrunedEntry {
  std::string Path;
  sys::TimePoint<> Used;
  uint64_t Size;
};
} // namespace

// The cache's entries, after removing those past \p Policy's expiration
// and every name that is not a regular file (a link, a FIFO).
static std::vector<PrunedEntry> liveEntries(StringRef Directory,
                                            const CachePruningPolicy &Policy,
                                            sys::TimePoint<> Time) {
  std::vector<PrunedEntry> Entries;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Directory, EC, /*Follow=*/false), End;
       It != End && !EC; It.increment(EC)) {
    if (!sys::path::filename(It->path()).starts_with("llvmcache-"))
      continue;
    sys::fs::file_status Status;
    if (sys::fs::status(It->path(), Status, /*Follow=*/false))
      continue;
    if (Status.type() != sys::fs::file_type::regular_file) {
      ::unlink(It->path().c_str());
      continue;
    }
    if (Policy.Expiration != std::chrono::seconds(0) &&
        Time - Status.getLastAccessedTime() > Policy.Expiration) {
      sys::fs::remove(It->path());
      continue;
    }
    Entries.push_back(
        {It->path(), Status.getLastAccessedTime(), Status.getSize()});
  }
  return Entries;
}

// LLVM's pruneCache, but through no link: it rewrites llvmcache.timestamp
// by name, so in a cache another user can write, a link planted there
// truncated a file of the pruning user's choosing. Here the timestamp is
// opened with O_NOFOLLOW, entries are looked at, never followed, and only
// names are removed. The same policy: the least recently used entries go
// first, past Expiration, then until the size and count limits hold.
static void pruneEntries(StringRef Directory, const CachePruningPolicy &Policy,
                         bool Now) {
  auto Time = std::chrono::system_clock::now();
  if (!pruneIsDue(Directory, Policy, Now, Time))
    return;
  std::vector<PrunedEntry> Entries = liveEntries(Directory, Policy, Time);
  uint64_t Total = 0;
  for (const PrunedEntry &E : Entries)
    Total += E.Size;
  uint64_t Limit = std::numeric_limits<uint64_t>::max();
  if (Policy.MaxSizeBytes)
    Limit = Policy.MaxSizeBytes;
  if (Policy.MaxSizePercentageOfAvailableSpace &&
      Policy.MaxSizePercentageOfAvailableSpace < 100) {
    ErrorOr<sys::fs::space_info> Space = sys::fs::disk_space(Directory);
    if (Space)
      Limit = std::min<uint64_t>(
          Limit, (Space->available + Total) *
                     Policy.MaxSizePercentageOfAvailableSpace / 100);
  }
  size_t Files = Policy.MaxSizeFiles ? Policy.MaxSizeFiles : Entries.size();
  llvm::sort(Entries, [](const PrunedEntry &A, const PrunedEntry &B) {
    return A.Used != B.Used ? A.Used < B.Used : A.Path < B.Path;
  });
  size_t Left = Entries.size();
  for (const PrunedEntry &E : Entries) {
    if (Total <= Limit && Left <= Files)
      break;
    if (!sys::fs::remove(E.Path)) {
      Total -= E.Size;
      --Left;
    }
  }
  // The records of the jobs that ran go by the same age and count.
  ExplainRecords(Directory.str()).prune(Policy.Expiration, Policy.MaxSizeFiles);
}

static Error prune(StringRef Directory, StringRef PolicyText, bool Now) {
  Expected<CachePruningPolicy> Policy = parsePolicy(PolicyText);
  if (!Policy)
    return Policy.takeError();
  if (sys::fs::is_directory(Directory))
    pruneEntries(Directory, *Policy, Now);
  return Error::success();
}

Error pruneBackendCache(StringRef Directory, StringRef Policy) {
  return prune(Directory, Policy, /*Now=*/true);
}

Error prunePeriodically(StringRef Directory, StringRef Policy) {
  return prune(Directory, Policy, /*Now=*/false);
}

} // namespace ulto
