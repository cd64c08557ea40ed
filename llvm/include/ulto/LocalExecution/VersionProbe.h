//===- VersionProbe.h - A compiler's --version, from a process --*- C++ -*-===//
//
// The compiler's identity in a cache key (CacheKey.h) includes what it
// prints for --version; here a new process of the compiler is asked.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LOCALEXECUTION_VERSIONPROBE_H
#define ULTO_LOCALEXECUTION_VERSIONPROBE_H

#include "ulto/Distributor/CompilerIdentity.h"

#include <chrono>

namespace ulto {

/// Asks a process of the compiler. A compiler that has not answered within
/// \p TimeLimit is an error; it is stopped, and so is every process it
/// started.
VersionProbe
processVersionProbe(std::chrono::seconds TimeLimit = std::chrono::seconds(10));

} // namespace ulto

#endif // ULTO_LOCALEXECUTION_VERSIONPROBE_H
