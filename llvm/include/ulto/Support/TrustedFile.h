//===- TrustedFile.h - Files a user may take instructions from --*- C++ -*-===//
//
// ulto dist runs the commands a job list names, with the compiler it names,
// as the user who runs it. On a machine others share, the list lies next to
// the link's output, perhaps in a directory anyone can write (/tmp/app), and
// lld does not create it exclusively: a list another user planted, or can
// rewrite, would run her program as the user. So a list, and the compiler
// it names, are taken only from files the user owns (or, for a compiler,
// root) and no one else can write: not writable by others, nor by a group
// other than the user's own private one (a group named as the user, the
// user's primary group: Debian's umask 002 convention).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_SUPPORT_TRUSTEDFILE_H
#define ULTO_SUPPORT_TRUSTEDFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>
#include <sys/stat.h>

namespace ulto {

/// Who a file may belong to.
enum class Owners { User, UserOrRoot };

/// Why a file with \p Status is not one \p User may take instructions from;
/// std::nullopt when it is. \p UserGroup is the user's private group, if the
/// user has one.
std::optional<std::string> untrustedBecause(const struct stat &Status,
                                            uid_t User,
                                            std::optional<gid_t> UserGroup,
                                            Owners Allowed);

/// The calling user's private group: the primary group when it is named as
/// the user.
std::optional<gid_t> userPrivateGroup();

/// Whether user \p User belongs to group \p Group: as the primary group, or
/// as a member. Thread-safe.
bool isGroupMember(uid_t User, gid_t Group);

/// Whether \p Path lies in a directory only the user can enter (the user's,
/// with no permission for group or others, as mkdtemp makes it): no one
/// else can reach what is in it, whatever its mode.
bool inPrivateDirectory(llvm::StringRef Path);

/// Why \p Path, a file lld wrote for the user's link (an index shard, an
/// archive member), is not the user's: a symbolic link, not a regular file,
/// or, outside a private directory, another user's or writable by others.
/// std::nullopt when it is the user's, or is not there (its reader says so).
std::optional<std::string> untrustedLinkerFile(llvm::StringRef Path,
                                               std::optional<gid_t> UserGroup);

/// Reads \p Path, not through a final symbolic link, if it is a regular
/// file the user trusts (owned by the user, or in a private directory); the
/// error names the file.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readTrustedFile(llvm::StringRef Path);

/// Whether the program at \p Path (after symbolic links) may run as the
/// user: owned by the user or root, writable by no one else.
llvm::Error checkTrustedProgram(llvm::StringRef Path);

/// Removes \p Path (itself, not a link's target) if it is the user's: what
/// another user put in the place of a file the user made, in a directory
/// others can write, is left alone. False if nothing was removed.
bool removeOwnFile(llvm::StringRef Path);

} // namespace ulto

#endif // ULTO_SUPPORT_TRUSTEDFILE_H
