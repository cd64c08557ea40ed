//===- RemoteCache.h - Backend objects shared through a server --*- C++ -*-===//
//
// A team's cache of backend objects without a farm: REAPI's action cache
// and CAS, or Bazel's HTTP cache protocol. A job is looked up there after
// the local cache and before its executor; a job that runs here leaves its
// object there, uploaded in the background of the remaining jobs. The
// distributor checks every object that comes from it as it checks a farm's
// (ObjectCheck.h); the cache checks that the bytes are the ones its entry
// names. A server that cannot be reached or fails costs one warning, and the
// link goes on without it.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_REMOTECACHE_H
#define ULTO_DISTRIBUTOR_REMOTECACHE_H

#include "ulto/Distributor/JobList.h"

#include "llvm/Support/MemoryBuffer.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ulto {

/// What a link did with the remote cache.
struct RemoteCacheCounts {
  unsigned Hits = 0, Misses = 0;
  /// Entries found whose object was not what they named, or unfit to link.
  unsigned BadEntries = 0;
  unsigned Uploaded = 0;
  /// Uploads that failed, or were dropped: over the queue's bound, or not
  /// finished in time at the link's end.
  unsigned UploadsFailed = 0, UploadsDropped = 0;
  uint64_t BytesDown = 0, BytesUp = 0;

  RemoteCacheCounts &operator+=(const RemoteCacheCounts &Other);
  /// "3 hits, 1 miss, 1 uploaded; 1.2 MiB down, 310 KiB up".
  std::string format() const;
};

/// What a lookup found.
struct RemoteLookup {
  /// The job's object, unchecked (mapped from the file it was downloaded
  /// to); none on a miss.
  std::unique_ptr<llvm::MemoryBuffer> Object;
  /// Why the lookup went wrong, for the link to say ("" when nothing did);
  /// the cache says a server's failure once per link.
  std::string Warning;
};

class RemoteCache {
public:
  virtual ~RemoteCache();
  /// "remote cache http://host/path".
  virtual std::string name() const = 0;
  virtual RemoteLookup lookup(const JobList &List, const BackendJob &Job) = 0;
  /// The distributor found the object of \p Job's lookup unfit to link: a
  /// bad entry, counted as one.
  virtual void rejected(const BackendJob &Job) = 0;
  /// Leaves \p Object, the checked object of \p Job that ran here, in the
  /// cache, in the background; nothing when the cache is read-only.
  virtual void store(const JobList &List, const BackendJob &Job,
                     std::string Object) = 0;
  /// After the jobs: waits, boundedly, for the uploads, drops the rest, and
  /// returns the warnings to give.
  virtual std::vector<std::string> finish() = 0;
  virtual RemoteCacheCounts counts() const = 0;
};

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_REMOTECACHE_H
