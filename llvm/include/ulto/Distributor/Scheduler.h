//===- Scheduler.h - In what order, and how many at once --------*- C++ -*-===//
//
// Backend jobs start largest first, so that one big module does not start
// last and finish long after the others. Largest by the module's bytes, as
// lld orders its in-process backends (lto::generateModulesOrdering): then
// the link's longest path is lld's. The bytes of the imports too would rank
// first a small module that imports a little from many large ones (on
// miniGMG, main's module ahead of the one that takes half the backend time:
// 1.25x lld's wall time instead of 1.09x). At most N run
// at once, and under a GNU make jobserver (MAKEFLAGS=--jobserver-auth=...)
// each running job also holds one of make's job slots. A job that must wait
// for another link can step aside once, to the end of the queue, so that the
// jobs nobody else runs go first.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_SCHEDULER_H
#define ULTO_DISTRIBUTOR_SCHEDULER_H

#include "ulto/Distributor/JobList.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <vector>

namespace ulto {

/// The indices of \p Jobs in the order they should start: largest module
/// first, ties in job-list order.
std::vector<size_t> scheduleLargestFirst(llvm::ArrayRef<BackendJob> Jobs);

/// Runs \p Task(I, /*MayDefer=*/true) for each I of \p Order, starting them
/// in that order, at most \p Parallelism at once (0: one per hardware
/// thread), each holding a make jobserver slot if there is a jobserver and
/// \p Jobserver. A task that returns false is deferred: it runs again as
/// \p Task(I, /*MayDefer=*/false) after all the tasks queued before it have
/// started. Returns when all have finished.
void runInParallel(llvm::ArrayRef<size_t> Order, unsigned Parallelism,
                   llvm::function_ref<bool(size_t, bool)> Task,
                   bool Jobserver = true);

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_SCHEDULER_H
