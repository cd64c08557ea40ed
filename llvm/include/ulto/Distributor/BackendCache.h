//===- BackendCache.h - A cache of backend objects --------------*- C++ -*-===//
//
// Native objects of ThinLTO backend jobs, stored under their cache key
// (CacheKey.h) in one directory shared by every link, binary and build
// directory of the user. Entries are named as LLVM's file caches name them
// ("llvmcache-<key>"), so that LLVM's cache pruning manages them, written
// atomically (temporary file, then rename), and carry a BLAKE3 digest of
// their key and object, so that a damaged entry, or one copied under another
// key's name, is detected, dropped and rebuilt instead of linked.
//
// Trust. Anyone can compute that digest: it detects damage, not a writer.
// A cache directory others can write (a team's, mode 1777 or group
// writable) is trusted only as far as the user says: by default a link
// takes only entries the user owns; --cache-trusted-group=GROUP also takes
// those of GROUP (a setgid directory of a team whose members trust each
// other, as ccache's and sccache's shared caches trust every writer).
// Another entry is a miss, left alone. Nothing in the cache is read or
// written through a symbolic link, and an entry that is not a regular file
// of a sane size (a FIFO would block the link, /dev/zero fill its memory) is
// damaged.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_BACKENDCACHE_H
#define ULTO_DISTRIBUTOR_BACKENDCACHE_H

#include "ulto/Distributor/CacheEntryCheck.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <sys/stat.h>

namespace ulto {

/// Where the cache lives unless an option says otherwise: $ULTO_CACHE_DIR,
/// else the user's cache directory (XDG_CACHE_HOME or ~/.cache) + "/ulto".
std::string defaultCacheDirectory();

/// The pruning policy applied after every distributed link, in the syntax of
/// lld's --thinlto-cache-policy.
constexpr llvm::StringLiteral DefaultCachePolicy =
    "prune_after=168h:cache_size=75%:cache_size_bytes=10g";

class BackendCache {
public:
  /// The cache in \p Directory, created if absent, taking the user's own
  /// entries and, with \p TrustedGroup, that group's.
  static llvm::Expected<std::unique_ptr<BackendCache>>
  open(llvm::StringRef Directory,
       std::optional<gid_t> TrustedGroup = std::nullopt);

  /// The object stored under \p Key; null on a miss. A damaged entry is
  /// removed and reported through \p Damaged, and is a miss; so is an entry
  /// the user does not trust, which is left alone. Thread-safe.
  std::unique_ptr<llvm::MemoryBuffer> lookup(llvm::StringRef Key,
                                             bool &Damaged);

  /// Stores \p Object under \p Key atomically. Thread-safe.
  /// The caller holds off interrupts while it stores (a WriteGuard in
  /// `ulto dist`): the temporary file is not registered for removal on a
  /// signal (AtomicFile.h).
  llvm::Error store(llvm::StringRef Key, llvm::StringRef Object);

  llvm::StringRef directory() const { return Directory; }

private:
  BackendCache(std::string Directory, std::optional<gid_t> TrustedGroup)
      : Directory(std::move(Directory)), TrustedGroup(TrustedGroup) {}

  std::string entryPath(llvm::StringRef Key) const;
  /// Whether \p Owner is a member of the trusted group, asked once per user.
  bool isTrustedMember(uid_t Owner);

  std::string Directory;
  std::optional<gid_t> TrustedGroup;
  std::mutex Mutex;
  llvm::DenseMap<uid_t, bool> Members;
};

struct CacheStats {
  uint64_t Entries = 0;
  uint64_t Bytes = 0;
};

/// Counts the entries of the cache in \p Directory (none if it is absent).
llvm::Expected<CacheStats> readCacheStats(llvm::StringRef Directory);

/// Checks \p Policy's syntax (lld's --thinlto-cache-policy).
llvm::Error checkCachePolicy(llvm::StringRef Policy);

/// Prunes the cache in \p Directory now, by \p Policy (lld's
/// --thinlto-cache-policy syntax), as LLVM's pruneCache does but through no
/// symbolic link.
llvm::Error pruneBackendCache(llvm::StringRef Directory,
                              llvm::StringRef Policy);

/// Prunes by \p Policy when its interval has passed since the last pruning.
llvm::Error prunePeriodically(llvm::StringRef Directory,
                              llvm::StringRef Policy);

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_BACKENDCACHE_H
