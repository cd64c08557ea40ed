//===- NinjaFile.cpp - Backend jobs as a ninja build file -----------------===//

#include "ulto/Dist/NinjaFile.h"

#include "llvm/Support/Program.h"

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
    OS << "\nbuild " << escapeNinjaPath(Job.output())
       << ": thinlto-backend " << escapeNinjaPath(Job.module());
    for (StringRef Input : ArrayRef(Job.Inputs).drop_front())
      OS << " " << escapeNinjaPath(Input);
    for (StringRef Input : List.CommonInputs)
      OS << " " << escapeNinjaPath(Input);

    std::string Command;
    raw_string_ostream CS(Command);
    bool First = true;
    for (StringRef Arg : List.command(Job)) {
      if (!First)
        CS << ' ';
      First = false;
      sys::printArg(CS, Arg, /*Quote=*/true);
    }
    OS << "\n  command = " << escapeNinjaValue(Command)
       << "\n  module = " << escapeNinjaValue(Job.module()) << "\n";
  }
}

} // namespace ulto
