//===- StatusSink.cpp - Where a distributed link's messages go ------------===//

#include "ulto/Distributor/StatusSink.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace ulto {

StatusSink::~StatusSink() = default;

// Each line of \p Text, indented under the message it belongs to.
static void printIndented(raw_ostream &OS, StringRef Text, StringRef Indent) {
  SmallVector<StringRef, 16> Lines;
  Text.rtrim().split(Lines, '\n');
  for (StringRef Line : Lines)
    OS << Indent << Line << "\n";
}

void TerminalStatus::jobFailed(StringRef Module, StringRef What,
                               ArrayRef<std::string> Command,
                               StringRef Output) {
  clearProgress();
  WithColor::error(OS, Tool)
      << "ThinLTO backend for '" << Module << "' " << What << "\n";
  if (!Command.empty()) {
    OS << "  command:";
    for (const std::string &Arg : Command) {
      OS << ' ';
      sys::printArg(OS, Arg, /*Quote=*/false);
    }
    OS << "\n";
  }
  if (!Output.empty()) {
    OS << "  output:\n";
    printIndented(OS, Output, "    ");
  }
}

void TerminalStatus::warning(StringRef Message) {
  clearProgress();
  auto [First, Rest] = Message.rtrim().split('\n');
  WithColor::warning(OS, Tool) << First << "\n";
  if (!Rest.empty())
    printIndented(OS, Rest, "    ");
}

void TerminalStatus::jobStarted() {
  ++Running;
  redrawProgress();
}

void TerminalStatus::jobFinished(bool CacheHit) {
  --Running;
  ++Done;
  Hits += CacheHit;
  redrawProgress();
}

void TerminalStatus::clearProgress() {
  if (!Progress)
    return;
  OS << "\r\x1b[K";
  OS.flush();
}

// "\r" returns to the line's start and ESC[K erases what the last, longer
// line left behind.
void TerminalStatus::redrawProgress() {
  if (!Progress)
    return;
  OS << "\r\x1b[K[" << Tool << "] " << Done << "/" << Total << " done, " << Hits
     << " cached, " << Running << " running";
  OS.flush();
}

} // namespace ulto
