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
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_BACKENDCACHE_H
#define ULTO_DISTRIBUTOR_BACKENDCACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <string>

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
  static llvm::Expected<std::unique_ptr<BackendCache>>
  open(llvm::StringRef Directory);

  /// The object stored under \p Key; null on a miss. A damaged entry is
  /// removed and reported through \p Damaged, and is a miss. Thread-safe.
  std::unique_ptr<llvm::MemoryBuffer> lookup(llvm::StringRef Key,
                                             bool &Damaged);

  /// Stores \p Object under \p Key atomically. Thread-safe.
  /// The caller holds off interrupts while it stores (an ObjectWrite in
  /// `ulto dist`): the temporary file is not registered for removal on a
  /// signal (AtomicFile.h).
  llvm::Error store(llvm::StringRef Key, llvm::StringRef Object);

  llvm::StringRef directory() const { return Directory; }

private:
  BackendCache(std::string Directory) : Directory(std::move(Directory)) {}

  std::string entryPath(llvm::StringRef Key) const;

  std::string Directory;
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
/// --thinlto-cache-policy syntax).
llvm::Error pruneBackendCache(llvm::StringRef Directory,
                              llvm::StringRef Policy);

/// Prunes by \p Policy when its interval has passed since the last pruning.
llvm::Error prunePeriodically(llvm::StringRef Directory,
                              llvm::StringRef Policy);

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_BACKENDCACHE_H
