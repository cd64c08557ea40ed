//===- MakeJobserver.h - Whether make's jobserver is really there -*- C++
//-*-===//
//
// GNU make names its jobserver in every recipe's MAKEFLAGS
// (--jobserver-auth=R,W; make 4.4 also --jobserver-auth=fifo:PATH), but
// make 4.3 keeps the pipe's descriptors R and W open only in recipes it takes
// for recursive (a '+' prefix, or $(MAKE) in the command). Elsewhere R and W
// name whatever the process opens there: in ld.ulto and ulto dist, their own
// sockets. LLVM 22's JobserverClient checks only that R and W are open; it
// then sets O_NONBLOCK on R, a flag of the open file that the socket's other
// users share, and reads "tokens" from it, so a link's fork-server requests
// failed with EAGAIN and its protocol lost bytes.
//
// So a ulto process checks MAKEFLAGS before it opens anything that outlives
// the check: R and W must be the two ends of one pipe (or FIFO), R readable
// and W writable, or the FIFO a FIFO of the user's. A jobserver that fails is
// taken out of the process's environment, for LLVM's client and for every
// child alike, and the link's jobs take slots from ulto's machine-wide pool
// instead: what GNU make 4.4 does with a jobserver it cannot use.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_SUPPORT_MAKEJOBSERVER_H
#define ULTO_SUPPORT_MAKEJOBSERVER_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace ulto {

/// What the check needs to know of an open descriptor or a path.
struct FileFacts {
  uint64_t Device = 0;
  uint64_t Inode = 0;
  bool IsFifo = false; ///< A pipe or a named FIFO.
  bool Readable = false;
  bool Writable = false;
  bool OwnedByUser = false;
};

/// The facts of an open descriptor (fstat, fcntl), none if it is closed.
using DescriptorFacts = llvm::function_ref<std::optional<FileFacts>(int)>;
/// The facts of a path (stat), none if it does not exist.
using PathFacts = llvm::function_ref<std::optional<FileFacts>(llvm::StringRef)>;

struct JobserverCheck {
  enum Verdict {
    None,     ///< MAKEFLAGS names no jobserver.
    Usable,   ///< Make's jobserver, inherited.
    Unusable, ///< Named, but not there: Problem says why.
  } Kind = None;
  std::string Problem;
};

/// Whether the jobserver \p MakeFlags names (the last one, as make reads
/// it) is one, by the facts of its descriptors or FIFO.
JobserverCheck checkJobserver(llvm::StringRef MakeFlags,
                              DescriptorFacts OfDescriptor, PathFacts OfPath);

/// \p MakeFlags without its jobserver: the other flags, as they were.
std::string withoutJobserver(llvm::StringRef MakeFlags);

/// Checks this process's MAKEFLAGS against its real descriptors and takes an
/// unusable jobserver out of its environment. Call before the process opens
/// anything that outlives the call, while it has one thread.
JobserverCheck vetInheritedJobserver();

/// Whether MAKEFLAGS names a jobserver (after vetInheritedJobserver(): a
/// usable one).
bool hasMakeJobserver();

/// The note for a jobserver that is not there.
constexpr llvm::StringLiteral JobserverUnavailableNote =
    "jobserver unavailable: add '+' to the rule to share make's slots";

} // namespace ulto

#endif // ULTO_SUPPORT_MAKEJOBSERVER_H
