//===- StatusSink.cpp - Where a distributed link's messages go ------------===//

#include "ulto/Distributor/StatusSink.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Path.h"
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

void TerminalStatus::reproducers(ArrayRef<std::string> Files, unsigned Jobs) {
  clearProgress();
  // The directory once when they share one, as they do: $TMPDIR.
  StringRef Directory = sys::path::parent_path(Files.front());
  bool OneDirectory = all_of(Files, [&](StringRef File) {
    return sys::path::parent_path(File) == Directory;
  });
  WithColor::note(OS, Tool)
      << "clang's reproducers of " << Jobs
      << (Jobs == 1 ? " failed job" : " failed jobs") << " are ";
  if (OneDirectory)
    OS << "in " << Directory << ":";
  else
    OS << "at:";
  for (StringRef File : Files)
    OS << ' ' << (OneDirectory ? sys::path::filename(File) : File);
  OS << "\n";
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
