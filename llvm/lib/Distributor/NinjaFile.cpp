//===- NinjaFile.cpp - Backend jobs as a ninja build file -----------------===//

#include "ulto/Distributor/NinjaFile.h"

using namespace llvm;

namespace ulto {

std::string escapeNinjaPath(StringRef Path) {
  std::string Escaped;
  for (char C : Path) {
    if (C == '$' || C == ' ' || C == ':' || C == '\n')
      Escaped += '$';
    Escaped += C;
  }
  return Escaped;
}

// \p Arg as one word for /bin/sh, which runs ninja's commands: bare when it
// holds nothing the shell reads specially, else single-quoted (inside single
// quotes only the quote itself needs care).
static std::string quoteForShell(StringRef Arg) {
  constexpr StringLiteral Safe =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRST"
      "UVWXYZ0123456789_+-=/.,:@%";
  if (!Arg.empty() && Arg.find_first_not_of(Safe) == StringRef::npos)
    return Arg.str();
  std::string Quoted = "'";
  for (char C : Arg)
    Quoted += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Quoted + "'";
}

// A variable's value only needs '$' escaped.
static std::string escapeNinjaValue(StringRef Value) {
  std::string Escaped;
  for (char C : Value) {
    if (C == '$')
      Escaped += '$';
    Escaped += C;
  }
  return Escaped;
}

void writeNinjaFile(const JobList &List, raw_ostream &OS) {
  OS << "# ThinLTO backend jobs of the link of '" << List.LinkerOutput
     << "', written by ulto dist.\n"
        "# Run from the linker's working directory.\n\n"
        "rule thinlto-backend\n"
        "  command = $command\n"
        "  description = ThinLTO backend $module\n";
  for (const BackendJob &Job : List.Jobs) {
    OS << "\nbuild " << escapeNinjaPath(Job.output()) << ": thinlto-backend "
       << escapeNinjaPath(Job.module());
    for (StringRef Input : ArrayRef(Job.Inputs).drop_front())
      OS << " " << escapeNinjaPath(Input);
    for (StringRef Input : List.CommonInputs)
      OS << " " << escapeNinjaPath(Input);

    std::string Command;
    for (StringRef Arg : List.command(Job))
      Command += (Command.empty() ? "" : " ") + quoteForShell(Arg);
    OS << "\n  command = " << escapeNinjaValue(Command)
       << "\n  module = " << escapeNinjaValue(Job.module()) << "\n";
  }
}

} // namespace ulto
