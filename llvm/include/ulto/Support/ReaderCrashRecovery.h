//===- ReaderCrashRecovery.h - LLVM's readers on bytes ulto did not make -*- C++
//-*-===//
//
// LLVM's bitcode reader is not hardened against every corruption: fuzzing
// (byte flips, truncation) makes LLVM 22's reader fault, trap, call
// report_fatal_error() or run out of memory on a few inputs, bitcode files
// and index shards alike, as llvm-dis and clang-22 do. Where ulto reads
// bytes it did not make (inspect's files, a link's index shards), each read
// runs under a CrashRecoveryContext, and such a failure becomes an error of
// that input.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_SUPPORT_READERCRASHRECOVERY_H
#define ULTO_SUPPORT_READERCRASHRECOVERY_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

namespace llvm {
class CrashRecoveryContext;
} // namespace llvm

namespace ulto {

/// Lets readSafely() turn crashes and fatal errors of LLVM's readers into
/// errors. Installs process-wide signal, fatal-error and out-of-memory
/// handlers (llvm::CrashRecoveryContext; fatal errors outside a read are
/// reported as reportFatalErrorsOnce() reports them), so tools call it,
/// libraries do not. Later calls do nothing.
void enableReaderCrashRecovery();

/// Runs \p Read; after enableReaderCrashRecovery(), a fault or fatal error in
/// it is an error: "LLVM's bitcode reader crashed (SIGSEGV)", "LLVM's
/// bitcode reader failed: <reason>". What the reader had allocated is then
/// leaked: its state is unknown.
llvm::Error readSafely(llvm::function_ref<void()> Read);

/// For a fatal error handler: within readSafely(), ends the read with
/// \p Reason (never returns); otherwise returns.
void endReadOnFatalError(const char *Reason);

} // namespace ulto

#endif // ULTO_SUPPORT_READERCRASHRECOVERY_H
