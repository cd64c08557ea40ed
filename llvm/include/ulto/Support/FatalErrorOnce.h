//===- FatalErrorOnce.h - One thread ends the process on a fatal error ---===//
//
// LLVM's report_fatal_error prints the error, then ends the process with
// exit(). When two threads fail at once (lld-22's DTLTO shard writers on a
// full disk), both run exit()'s destructors together, and the process
// crashes: ld.ulto did in 13 links out of 30 where ld.lld-22 exits 1.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_SUPPORT_FATALERRORONCE_H
#define ULTO_SUPPORT_FATALERRORONCE_H

namespace ulto {

/// Installs LLVM's fatal error handler: the first thread that reports a
/// fatal error prints it as LLVM's default handler does ("LLVM ERROR: ..."),
/// and LLVM then ends the process; a fatal error of another thread waits for
/// that end. Call once, early in main.
void reportFatalErrorsOnce();

} // namespace ulto

#endif // ULTO_SUPPORT_FATALERRORONCE_H
