//===- StatusSink.cpp - Where a distributed link's messages go ------------===//

#include "ulto/Distributor/StatusSink.h"
#include "ulto/Support/Message.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

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
  writeMessage(OS, Tool, MessageKind::Error, [&](raw_ostream &Message) {
    Message << "ThinLTO backend for '" << Module << "' " << What << "\n";
    if (!Command.empty()) {
      Message << "  command:";
      for (const std::string &Arg : Command) {
        Message << ' ';
        sys::printArg(Message, Arg, /*Quote=*/false);
      }
      Message << "\n";
    }
    if (!Output.empty()) {
      Message << "  output:\n";
      printIndented(Message, Output, "    ");
    }
  });
}

void TerminalStatus::warning(StringRef Message) {
  clearProgress();
  auto [First, Rest] = Message.rtrim().split('\n');
  writeMessage(OS, Tool, MessageKind::Warning, [&](raw_ostream &Whole) {
    Whole << First << "\n";
    if (!Rest.empty())
      printIndented(Whole, Rest, "    ");
  });
}

void TerminalStatus::explain(StringRef Module, StringRef Reason) {
  clearProgress();
  writeMessage(OS, Tool, MessageKind::Note, Module + " ran: " + Reason);
}

void TerminalStatus::reproducers(ArrayRef<std::string> Files, unsigned Jobs) {
  clearProgress();
  // The directory once when they share one, as they do: $TMPDIR.
  StringRef Directory = sys::path::parent_path(Files.front());
  bool OneDirectory = all_of(Files, [&](StringRef File) {
    return sys::path::parent_path(File) == Directory;
  });
  writeMessage(OS, Tool, MessageKind::Note, [&](raw_ostream &Message) {
    Message << "clang's reproducers of " << Jobs
            << (Jobs == 1 ? " failed job" : " failed jobs") << " are ";
    if (OneDirectory)
      Message << "in " << Directory << ":";
    else
      Message << "at:";
    for (StringRef File : Files)
      Message << ' ' << (OneDirectory ? sys::path::filename(File) : File);
    Message << "\n";
  });
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
