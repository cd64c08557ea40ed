//===- ulto.cpp - The ulto multi-tool -------------------------------------===//
//
// `ulto <command> ...` dispatches to one subcommand; each lives in its own
// <Name>Command.cpp and is declared in Commands.h. Adding a command is one
// line in the table below.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

struct Command {
  StringRef Name;
  int (*Main)(ArrayRef<const char *> Args);
  StringRef Help;
};

const Command Commands[] = {
    {"inspect", ulto::inspectMain,
     "show the LTO modules in bitcode files and archives"},
    {"dist", ulto::distMain,
     "run the ThinLTO backends of a distributed link (DTLTO distributor)"},
    {"cache", ulto::cacheMain, "show or prune the backend cache of dist"},
    {"sdk", ulto::sdkMain,
     "check that bitcode archives form a universal SDK (sdk check)"},
};

void printUsage(raw_ostream &OS) {
  OS << "OVERVIEW: ulto, the unified LTO toolchain's multi-tool\n\n"
        "USAGE: ulto <command> [options] ...\n\n"
        "COMMANDS:\n";
  for (const Command &C : Commands)
    OS << "  " << left_justify(C.Name, 10) << C.Help << "\n";
  OS << "\nRun 'ulto <command> --help' for the options of a command.\n";
}

std::string commandList() {
  std::string List;
  for (const Command &C : Commands)
    List += (List.empty() ? "" : ", ") + C.Name.str();
  return List;
}

} // namespace

int main(int Argc, char **Argv) {
  InitLLVM X(Argc, Argv);

  if (Argc < 2) {
    printUsage(errs());
    return 1;
  }
  StringRef Name = Argv[1];
  if (Name == "--help" || Name == "-help" || Name == "-h" || Name == "help") {
    printUsage(outs());
    return 0;
  }
  if (Name == "--version" || Name == "version") {
    ulto::printVersion(outs());
    return 0;
  }

  const Command *C =
      find_if(Commands, [&](const Command &C) { return C.Name == Name; });
  if (C == std::end(Commands)) {
    WithColor::error(errs(), "ulto")
        << "unknown command '" << Name << "'; commands: " << commandList()
        << "\n";
    return 1;
  }
  return C->Main(ArrayRef(const_cast<const char **>(Argv) + 2, Argc - 2));
}
