//===- AttachedCommand.h - ulto dist started ahead of its link --*- C++ -*-===//
//
// lld runs its DTLTO distributor only after the thin link, and starting
// `ulto dist` then costs the link another 12 ms before the first job (the
// dynamic loader's work for libLLVM and libclang-cpp, static constructors):
// most of the difference between a small distributed link and an in-process
// one. So ld.ulto starts `ulto dist --await-command=FD` when the link begins,
// to load while lld reads the inputs, and names as lld's distributor
// ulto-dist-attach (tools/ulto-dist-attach), which starts in a millisecond:
// it sends the command line lld gave it over its end of a socket pair and
// exits with the status that comes back.
//
// The protocol: the attach program writes each argument followed by a NUL,
// then shuts down its writing side; `ulto dist` runs that command line as
// if it had been started with it (in ld.ulto's directory, with its standard
// streams and its environment, a child of ld.ulto as before), then writes
// one byte, its exit status. End of file before any argument: the link
// never reached its distributor (ld.ulto closed its end), nothing to do.
//
// The verdict on the link's checks comes on a pipe of its own, written by
// ld.ulto's thread that checks (EarlyDistributor.h): one byte, ChecksPassed
// or ChecksRefused. `ulto dist` waits for it after its command and runs the
// command only after a pass; a refusal, or end of file without a verdict,
// fails the command, and ld.ulto says why.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTPROTOCOL_ATTACHEDCOMMAND_H
#define ULTO_DISTPROTOCOL_ATTACHEDCOMMAND_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace ulto {

/// ulto dist's option that makes it wait for its command line on a socket.
inline constexpr llvm::StringLiteral AwaitCommandOption = "--await-command=";

/// ulto dist's option naming the pipe of the verdict on the link's checks.
inline constexpr llvm::StringLiteral AwaitChecksOption = "--await-checks=";
inline constexpr char ChecksPassed = 'y';
inline constexpr char ChecksRefused = 'n';

/// Waits for the verdict on \p FD: true if the checks passed.
llvm::Expected<bool> readChecksVerdict(int FD);

/// The command line sent on \p FD; std::nullopt when the other end closed
/// without sending one.
llvm::Expected<std::optional<std::vector<std::string>>>
readAttachedCommand(int FD);

/// Sends the command's exit status \p Code back on \p FD.
llvm::Error replyExitStatus(int FD, int Code);

} // namespace ulto

#endif // ULTO_DISTPROTOCOL_ATTACHEDCOMMAND_H
