//===- RemoteCacheStats.h - What the remote cache gave, over time -*- C++ -*-=//
//
// Each link that used a remote cache adds its counts to the user's totals
// in the local cache directory (remote-<uid>/stats.json, private to the
// user, updated under a lock and replaced atomically), for `ulto cache
// stats`: how much the team's cache saves this user.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_REMOTECACHESTATS_H
#define ULTO_DISTRIBUTOR_REMOTECACHESTATS_H

#include "ulto/Distributor/RemoteCache.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace ulto {

/// Adds \p Link's counts to the user's totals in \p CacheDirectory.
llvm::Error addRemoteCacheStats(llvm::StringRef CacheDirectory,
                                const RemoteCacheCounts &Link);

/// Whether another user's directory (or a link, a file) is where the user's
/// totals are kept in \p CacheDirectory.
bool remoteCacheStatsTaken(llvm::StringRef CacheDirectory);

/// The user's totals in \p CacheDirectory: zeros when there are none, or
/// none the user wrote.
RemoteCacheCounts readRemoteCacheStats(llvm::StringRef CacheDirectory);

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_REMOTECACHESTATS_H
