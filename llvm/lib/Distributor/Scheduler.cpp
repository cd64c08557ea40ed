//===- Scheduler.cpp - In what order, and how many at once ----------------===//

#include "ulto/Distributor/Scheduler.h"
#include "ulto/Support/MakeJobserver.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include <numeric>

using namespace llvm;

namespace ulto {

std::vector<size_t> scheduleLargestFirst(ArrayRef<BackendJob> Jobs) {
  std::vector<size_t> Order(Jobs.size());
  std::iota(Order.begin(), Order.end(), 0);
  llvm::stable_sort(Order, [&](size_t A, size_t B) {
    return Jobs[A].ModuleBytes > Jobs[B].ModuleBytes;
  });
  return Order;
}

void runInParallel(ArrayRef<size_t> Order, unsigned Parallelism,
                   function_ref<bool(size_t, bool)> Task, bool Jobserver) {
  ThreadPoolStrategy Strategy = hardware_concurrency(Parallelism);
  // LLVM's pool warns when asked for a jobserver that make did not pass.
  Strategy.UseJobserver = Jobserver && hasMakeJobserver();
  // The pool's queue is first in, first out: tasks start in Order, and a
  // deferred task goes to its end.
  DefaultThreadPool Pool(Strategy);
  for (size_t I : Order)
    Pool.async([&Pool, &Task, I] {
      if (!Task(I, /*MayDefer=*/true))
        Pool.async([&Task, I] { Task(I, /*MayDefer=*/false); });
    });
  Pool.wait();
}

} // namespace ulto
