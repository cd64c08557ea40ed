//===- RuntimeDirectory.h - The user's directories for live state -*- C++
//-*-===//
//
// State that lives while the user's links run (job slots, the worker
// services' visits) belongs on the machine, not with the cache, which may be
// on a shared file system, and to the user alone.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_SUPPORT_RUNTIMEDIRECTORY_H
#define ULTO_SUPPORT_RUNTIMEDIRECTORY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace ulto {

/// $XDG_RUNTIME_DIR/<Name>, else <temp>/<Name>-<uid>, unless another user
/// has taken that: then ~/.cache/ulto/<Name>-<host name>.
std::string userRuntimeDirectory(llvm::StringRef Name);

/// Creates \p Directory, private to the user, if it is absent. One that
/// another user made (in /tmp, say), or a symbolic link, is refused: the
/// error says why, without the directory's name.
llvm::Error makePrivateDirectory(llvm::StringRef Directory);

/// Whether something not the user's own directory is at \p Directory:
/// another user's, a link, a file. Then makePrivateDirectory fails for
/// that, not for want of room.
bool isTakenDirectory(llvm::StringRef Directory);

} // namespace ulto

#endif // ULTO_SUPPORT_RUNTIMEDIRECTORY_H
