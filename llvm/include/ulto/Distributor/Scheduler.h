//===- Scheduler.h - In what order, and how many at once --------*- C++ -*-===//
//
// Backend jobs start largest first (by the bytes they read), so that one big
// module does not start last and finish long after the others; at most N run
// at once, and under a GNU make jobserver (MAKEFLAGS=--jobserver-auth=...)
// each running job also holds one of make's job slots.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_SCHEDULER_H
#define ULTO_DISTRIBUTOR_SCHEDULER_H

#include "ulto/Distributor/JobList.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <vector>

namespace ulto {

/// The indices of \p Jobs in the order they should start: largest input
/// first, ties in job-list order.
std::vector<size_t> scheduleLargestFirst(llvm::ArrayRef<BackendJob> Jobs);

/// Runs \p Task(I) for each I of \p Order, starting them in that order, at
/// most \p Parallelism at once (0: one per hardware thread), each holding a
/// make jobserver slot if there is a jobserver and \p Jobserver. Returns
/// when all have finished.
void runInParallel(llvm::ArrayRef<size_t> Order, unsigned Parallelism,
                   llvm::function_ref<void(size_t)> Task,
                   bool Jobserver = true);

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_SCHEDULER_H
