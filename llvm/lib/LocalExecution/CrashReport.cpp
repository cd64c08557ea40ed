//===- CrashReport.cpp - What clang says of a crashed job -----------------===//

#include "ulto/LocalExecution/CrashReport.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cstring>
#include <optional>

using namespace llvm;

namespace ulto {

// "<driver>: error: clang frontend command failed with exit code 139 (...)":
// 128 plus the signal, from a job the driver ran in-process.
static int signalOf(StringRef Line) {
  constexpr StringLiteral Failed =
      ": error: clang frontend command failed with exit code ";
  size_t At = Line.find(Failed);
  if (At == StringRef::npos)
    return 0;
  StringRef Code = Line.substr(At + Failed.size());
  Code = Code.take_while(isDigit);
  unsigned Value;
  // 255 is an ordinary failure of some tools, as in CrashRecoveryContext.
  if (Code.getAsInteger(10, Value) || Value <= 128 || Value >= 255)
    return 0;
  return Value - 128;
}

// The text of a "<driver>: note: diagnostic msg: <text>" line.
static std::optional<StringRef> noteText(StringRef Line) {
  constexpr StringLiteral Note = ": note: diagnostic msg:";
  size_t At = Line.find(Note);
  if (At == StringRef::npos)
    return std::nullopt;
  return Line.substr(At + Note.size()).trim();
}

CrashReport readCrashReport(StringRef Output) {
  CrashReport Report;
  Report.Output = Output.str();
  SmallVector<StringRef, 64> Lines;
  Output.split(Lines, '\n');
  for (StringRef Line : Lines)
    if (!Report.Signal)
      Report.Signal = signalOf(Line);

  // The block: an empty note, a line of stars, an empty line, the two lines
  // of the request, a note per file, an empty note, an empty line, stars.
  constexpr StringLiteral Stars = "********************";
  auto Attach = find(Lines, "PLEASE ATTACH THE FOLLOWING FILES TO THE BUG "
                            "REPORT:");
  size_t First = Attach - Lines.begin();
  if (Attach == Lines.end() || First < 3 || Lines[First - 1] != "" ||
      Lines[First - 2] != Stars || noteText(Lines[First - 3]) != "" ||
      First + 1 >= Lines.size() ||
      !Lines[First + 1].starts_with("Preprocessed source(s) and associated "
                                    "run script(s) are located at:"))
    return Report;
  size_t I = First + 2;
  std::vector<std::string> Files;
  for (; I < Lines.size(); ++I) {
    std::optional<StringRef> Text = noteText(Lines[I]);
    if (!Text || Text->empty())
      break;
    Files.push_back(Text->str());
  }
  if (I + 2 >= Lines.size() || noteText(Lines[I]) != "" || Lines[I + 1] != "" ||
      Lines[I + 2] != Stars)
    return Report;

  Report.Reproducers = std::move(Files);
  SmallVector<StringRef, 64> Kept(Lines.begin(), Lines.begin() + First - 3);
  Kept.append(Lines.begin() + I + 3, Lines.end());
  Report.Output = join(Kept, "\n");
  return Report;
}

ExecutionResult exitedAsReported(int Code, const CrashReport &Crash) {
  if (Code != 0 && Crash.Signal)
    return ExecutionResult::ended(ExitKind::Signalled, strsignal(Crash.Signal));
  return ExecutionResult::exited(Code);
}

} // namespace ulto
