//===- CacheEntryCheck.cpp - Whose cache files a link reads ---------------===//

#include "ulto/Distributor/CacheEntryCheck.h"

using namespace llvm;

namespace ulto {

EntryCheck checkEntry(const struct stat &Status, uid_t User,
                      std::optional<gid_t> TrustedGroup,
                      function_ref<bool(uid_t)> IsMember) {
  if (!S_ISREG(Status.st_mode) || uint64_t(Status.st_size) > MaxEntrySize)
    return EntryCheck::Damaged;
  if (Status.st_uid == User ||
      (TrustedGroup && Status.st_gid == *TrustedGroup &&
       IsMember(Status.st_uid)))
    return EntryCheck::Trusted;
  return EntryCheck::Untrusted;
}

} // namespace ulto
