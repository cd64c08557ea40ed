//===- CacheEntryCheck.h - Whose cache files a link reads -------*- C++ -*-===//
//
// A cache directory others can write holds files the user did not make: the
// backend cache's entries and explain's records alike are taken only from
// the user and, if the user says so, from a trusted group's members, and
// only when they are regular files of a sane size (a FIFO would block the
// link, /dev/zero fill its memory). BackendCache.h says why.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_CACHEENTRYCHECK_H
#define ULTO_DISTRIBUTOR_CACHEENTRYCHECK_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <optional>
#include <sys/stat.h>

namespace ulto {

/// The largest entry a lookup reads: larger is damaged.
constexpr uint64_t MaxEntrySize = uint64_t(4) << 30;

enum class EntryCheck { Trusted, Untrusted, Damaged };

/// What a lookup makes of an entry with \p Status for user \p User, who
/// also trusts the entries of \p TrustedGroup's members: the group alone
/// says nothing, since in a setgid directory every writer's files get the
/// directory's group. \p IsMember(Owner) says whether an entry's owner is a
/// member.
EntryCheck checkEntry(
    const struct stat &Status, uid_t User, std::optional<gid_t> TrustedGroup,
    llvm::function_ref<bool(uid_t)> IsMember = [](uid_t) { return false; });

} // namespace ulto

#endif
