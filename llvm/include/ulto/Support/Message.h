//===- Message.h - Diagnostics written whole --------------------*- C++ -*-===//
//
// Concurrent links can share one stderr, which is unbuffered: a message
// written in pieces (WithColor's prefix, the text, each line of a job's
// output) interleaves with another link's. writeMessage() composes the whole
// message, coloured as WithColor would colour it on that stream, and writes
// it at once.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_SUPPORT_MESSAGE_H
#define ULTO_SUPPORT_MESSAGE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

namespace ulto {

enum class MessageKind { Error, Warning, Note };

/// Writes "<Tool>: <kind>: " and what \p Body writes to \p OS in one write.
void writeMessage(llvm::raw_ostream &OS, llvm::StringRef Tool, MessageKind Kind,
                  llvm::function_ref<void(llvm::raw_ostream &)> Body);

/// Writes "<Tool>: <kind>: <Text>" and a newline to \p OS in one write.
void writeMessage(llvm::raw_ostream &OS, llvm::StringRef Tool, MessageKind Kind,
                  const llvm::Twine &Text);

/// \p Text from elsewhere (a build farm's output), fit for a terminal: each
/// control byte but newline and tab written as "\xNN", so that no escape
/// sequence of another's reaches it.
std::string withoutControls(llvm::StringRef Text);

/// \p Bytes for a person: "512 B", "3.4 KiB", "1.2 MiB".
std::string formatBytes(uint64_t Bytes);

/// Prints each error in \p Errors to stderr as "<Tool>: error: <message>";
/// returns 1, the exit code of a command line that cannot run.
int reportErrors(llvm::StringRef Tool, llvm::Error Errors);

/// Adds \p E to \p Errors.
inline void addError(llvm::Error &Errors, llvm::Error E) {
  Errors = llvm::joinErrors(std::move(Errors), std::move(E));
}

} // namespace ulto

#endif // ULTO_SUPPORT_MESSAGE_H
