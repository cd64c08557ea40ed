//===- SlotPool.cpp - Backend slots shared by the links of a machine ------===//

#include "ulto/LocalExecution/SlotPool.h"

#include "ulto/Support/Flock.h"
#include "ulto/Support/RuntimeDirectory.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Threading.h"

#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace ulto {

std::string defaultSlotDirectory() {
  return userRuntimeDirectory("ulto-slots");
}

Expected<unsigned> defaultSlotCount() {
  std::optional<std::string> Jobs = sys::Process::GetEnv("ULTO_JOBS");
  if (!Jobs)
    return hardware_concurrency().compute_thread_count();
  unsigned Count = 0;
  if (StringRef(*Jobs).getAsInteger(10, Count) || !Count)
    return createStringError("invalid $ULTO_JOBS value '%s': expected a "
                             "positive number",
                             Jobs->c_str());
  return Count;
}

static Error makeError(StringRef Directory, const Twine &What) {
  return createStringError("slot pool '%s': %s", Directory.str().c_str(),
                           What.str().c_str());
}

Expected<std::unique_ptr<SlotPool>> SlotPool::open(StringRef Directory,
                                                   unsigned Slots) {
  if (Error E = makePrivateDirectory(Directory))
    return makeError(Directory, toString(std::move(E)));
  std::vector<int> FDs;
  auto CloseAll = [&] {
    for (int FD : FDs)
      ::close(FD);
  };
  for (unsigned I = 0; I <= Slots; ++I) {
    SmallString<128> Path(Directory);
    sys::path::append(Path, I == Slots ? "queue" : "slot-" + Twine(I));
    int FD = openLockFile(Path.c_str());
    if (FD < 0) {
      Error E =
          makeError(Directory, "cannot open '" + sys::path::filename(Path) +
                                   "': " + sys::StrError(errno));
      CloseAll();
      return E;
    }
    FDs.push_back(FD);
  }
  int QueueFD = FDs.back();
  FDs.pop_back();
  // Some network file systems have no flock: find out now, not in a job.
  if (flockFD(QueueFD, LOCK_SH | LOCK_NB) != 0 && errno != EWOULDBLOCK) {
    Error E = makeError(Directory, "no file locks: " + sys::StrError(errno));
    CloseAll();
    ::close(QueueFD);
    return E;
  }
  flockFD(QueueFD, LOCK_UN);
  return std::unique_ptr<SlotPool>(new SlotPool(std::move(FDs), QueueFD));
}

SlotPool::SlotPool(std::vector<int> SlotFDs, int QueueFD)
    : SlotFDs(std::move(SlotFDs)), QueueFD(QueueFD),
      Held(this->SlotFDs.size(), false) {}

SlotPool::~SlotPool() {
  for (int FD : SlotFDs)
    ::close(FD);
  ::close(QueueFD);
}

SlotPool::Slot::~Slot() {
  if (Pool)
    Pool->release(Index);
}

std::optional<unsigned> SlotPool::tryTake() {
  std::lock_guard<std::mutex> Lock(Mutex);
  for (unsigned I = 0; I < SlotFDs.size(); ++I)
    if (!Held[I] && flockFD(SlotFDs[I], LOCK_EX | LOCK_NB) == 0) {
      Held[I] = true;
      return I;
    }
  return std::nullopt;
}

void SlotPool::release(unsigned Index) {
  std::lock_guard<std::mutex> Lock(Mutex);
  flockFD(SlotFDs[Index], LOCK_UN);
  Held[Index] = false;
}

SlotPool::Slot SlotPool::acquire() {
  if (std::optional<unsigned> Index = tryTake())
    return Slot(this, *Index);
  std::lock_guard<std::mutex> InLine(Turn);
  flockFD(QueueFD, LOCK_EX);
  std::optional<unsigned> Index;
  while (!(Index = tryTake()))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  flockFD(QueueFD, LOCK_UN);
  return Slot(this, *Index);
}

} // namespace ulto
