//===- SdkCommand.cpp - ulto sdk check ------------------------------------===//
//
// `ulto sdk check FILE...` says whether archives (or objects) of bitcode
// form a universal SDK, one build that serves every LTO consumer, and
// precisely what is wrong otherwise (SdkCheck.h). Findings go to stderr, the
// verdict to stdout; --json prints everything as one object. Exit 0 for a
// universal SDK, 1 otherwise.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ulto/Bitcode/LTOModuleInfo.h"
#include "ulto/Bitcode/SdkCheck.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ulto;

namespace {

#define ULTO_OPTIONS_INC "SdkOpts.inc"
#include "CommandOptTable.def"

constexpr StringLiteral ToolName = "ulto sdk check";

std::string where(const SdkFinding &F) {
  return F.Where.empty() ? "" : F.Where + ": ";
}

void printJSON(const SdkReport &Report, raw_ostream &OS) {
  json::OStream J(OS);
  auto Findings = [&](StringRef Key, ArrayRef<SdkFinding> List) {
    J.attributeArray(Key, [&] {
      for (const SdkFinding &F : List)
        J.object([&] {
          J.attribute("where", F.Where);
          J.attribute("message", F.Message);
        });
    });
  };
  J.object([&] {
    J.attribute("universal", Report.universal());
    J.attribute("llvm", LLVM_VERSION_STRING);
    J.attributeArray("members", [&] {
      for (const SdkMember &M : Report.Members)
        J.object([&] {
          J.attribute("name", M.Name);
          J.attribute("native", M.Native);
          J.attribute("unified", M.Unified);
          J.attribute("split", M.Split);
          J.attribute("module_id", M.ModuleID);
          J.attribute("type_metadata", M.HasTypeMetadata);
          J.attribute("vtables", M.DefinesVTables);
          J.attribute("cfi_checks", M.HasCFIChecks);
          J.attribute("triple", M.Triple);
        });
    });
    Findings("errors", Report.Errors);
    Findings("warnings", Report.Warnings);
  });
  OS << "\n";
}

// The verdict: one line naming the inputs.
void printVerdict(const SdkReport &Report, ArrayRef<std::string> Paths,
                  raw_ostream &OS) {
  std::string Inputs;
  for (const std::string &P : Paths)
    Inputs += (Inputs.empty() ? "" : " ") + P;
  if (!Report.universal()) {
    OS << Inputs << ": not a universal SDK: " << Report.Errors.size()
       << (Report.Errors.size() == 1 ? " error" : " errors") << "\n";
    return;
  }
  unsigned Bitcode =
      count_if(Report.Members, [](const SdkMember &M) { return !M.Native; });
  unsigned Native = Report.Members.size() - Bitcode;
  OS << Inputs << ": universal SDK: " << Bitcode << " bitcode members";
  if (Native)
    OS << " and " << Native << " native objects";
  OS << ", unified, split, unique module IDs";
  if (Bitcode)
    OS << ", " << find_if(Report.Members, [](const SdkMember &M) {
                    return !M.Native;
                  })->Triple;
  OS << ", readable by LLVM " LLVM_VERSION_STRING << "\n";
}

} // namespace

int ulto::sdkMain(ArrayRef<const char *> Args) {
  CommandOptTable Table;
  opt::InputArgList ArgList;
  bool BadArgs;
  if (!Table.parse(
          Args, ToolName, "ulto sdk check [options] <archive|object>...",
          "Check that bitcode archives form a universal SDK", ArgList, BadArgs))
    return 0;
  std::vector<std::string> Paths = ArgList.getAllArgValues(OPT_INPUT);
  if (!BadArgs && (Paths.empty() || Paths[0] != "check")) {
    WithColor::error(errs(), "ulto sdk")
        << "expected 'check', as in: ulto sdk check <archive>...\n";
    return 1;
  }
  Paths.erase(Paths.begin());
  if (Paths.empty() && !BadArgs) {
    WithColor::error(errs(), ToolName) << "no input files\n";
    BadArgs = true;
  }
  if (BadArgs)
    return 1;

  SdkReport Report =
      checkSdk(readLTOModuleInfoFiles(Paths), ArgList.hasArg(OPT_allow_native));

  if (ArgList.hasArg(OPT_json)) {
    printJSON(Report, outs());
  } else {
    for (const SdkFinding &F : Report.Errors)
      WithColor::error(errs(), ToolName) << where(F) << F.Message << "\n";
    for (const SdkFinding &F : Report.Warnings)
      WithColor::warning(errs(), ToolName) << where(F) << F.Message << "\n";
    printVerdict(Report, Paths, outs());
  }
  return Report.universal() ? 0 : 1;
}
