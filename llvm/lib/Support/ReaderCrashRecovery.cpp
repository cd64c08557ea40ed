//===- ReaderCrashRecovery.cpp - LLVM's readers on bytes ulto did not make ===//

#include "ulto/Support/ReaderCrashRecovery.h"

#include "ulto/Support/FatalErrorOnce.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unistd.h>

using namespace llvm;

namespace ulto {

// HandleExit() code for a fatal error; signals report 128 + their number.
static constexpr int FatalErrorExit = 1;

// What stopped this thread's reader; fixed-size because the out-of-memory
// path must not allocate.
static thread_local char FatalReason[128];

void endReadOnFatalError(const char *Reason) {
  if (CrashRecoveryContext *CRC = CrashRecoveryContext::GetCurrent()) {
    snprintf(FatalReason, sizeof(FatalReason), "%s", Reason);
    CRC->HandleExit(FatalErrorExit);
  }
}

static void onBadAlloc(void *, const char *, bool) {
  endReadOnFatalError("out of memory");
  // What LLVM prints when no handler is installed; no allocation. This
  // handler must not return.
  static const char Text[] = "LLVM ERROR: out of memory\n";
  (void)!::write(STDERR_FILENO, Text, sizeof(Text) - 1);
  abort();
}

void enableReaderCrashRecovery() {
  // LLVM allows one handler of each kind; a second call must not re-install.
  static std::once_flag Once;
  std::call_once(Once, [] {
    CrashRecoveryContext::Enable();
    reportFatalErrorsOnce();
    install_bad_alloc_error_handler(onBadAlloc);
  });
}

static std::string crashReason(int RetCode) {
  if (RetCode == FatalErrorExit)
    return std::string("LLVM's bitcode reader failed: ") + FatalReason;
  StringRef Signal;
  switch (RetCode - 128) {
  case SIGSEGV:
    Signal = "SIGSEGV";
    break;
  case SIGBUS:
    Signal = "SIGBUS";
    break;
  case SIGILL:
    Signal = "SIGILL";
    break;
  case SIGFPE:
    Signal = "SIGFPE";
    break;
  case SIGTRAP:
    Signal = "SIGTRAP";
    break;
  case SIGABRT:
    Signal = "SIGABRT";
    break;
  default:
    Signal = "unknown signal";
  }
  return ("LLVM's bitcode reader crashed (" + Signal + ")").str();
}

Error readSafely(function_ref<void()> Read) {
  CrashRecoveryContext CRC;
  if (CRC.RunSafely(Read))
    return Error::success();
  return createStringError(crashReason(CRC.RetCode));
}

} // namespace ulto
