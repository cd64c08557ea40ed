//===- FatalErrorOnce.cpp - One thread ends the process on a fatal error --===//

#include "ulto/Support/FatalErrorOnce.h"
#include "ulto/Support/ReaderCrashRecovery.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <atomic>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace ulto {

static void reportOnce(void *, const char *Message, bool) {
  endReadOnFatalError(Message);
  static std::atomic<std::thread::id> Reporter{};
  std::thread::id None{};
  // The reporter's own later errors (in exit's destructors) go through.
  if (!Reporter.compare_exchange_strong(None, std::this_thread::get_id()) &&
      None != std::this_thread::get_id())
    while (true)
      pause();
  std::string Text = ("LLVM ERROR: " + Twine(Message) + "\n").str();
  (void)!::write(STDERR_FILENO, Text.data(), Text.size());
}

void reportFatalErrorsOnce() { install_fatal_error_handler(reportOnce); }

} // namespace ulto
