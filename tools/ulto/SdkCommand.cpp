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
#include "ulto/Support/OptionIDs.def"

#include "ulto/Support/CommandOptTable.def"

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
          J.attribute("producer", M.Producer);
          J.attribute("fat", M.Fat);
          J.attributeArray("missing_from_native_code", [&] {
            for (const std::string &Name : M.MissingFromNativeCode)
              J.value(Name);
          });
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
  unsigned Fat =
      count_if(Report.Members, [](const SdkMember &M) { return M.Fat; });
  OS << Inputs << ": universal SDK: " << Bitcode << " bitcode members";
  if (Fat)
    OS << " (" << Fat << " fat: native code for links without LTO)";
  if (Native)
    OS << " and " << Native << " native objects";
  OS << ", unified, split, unique module IDs";
  if (Bitcode)
    OS << ", " << find_if(Report.Members, [](const SdkMember &M) {
                    return !M.Native;
                  })->Triple;
  OS << ", readable by LLVM " LLVM_VERSION_STRING << "\n";
}

// What `ulto sdk check` was asked to do.
struct SdkConfig {
  std::vector<std::string> Paths;
  bool AllowNative;
  bool JSON;
};

Expected<SdkConfig> readSdkConfig(const opt::InputArgList &Args) {
  Error Errors = unknownArguments(Args);
  SdkConfig Config;
  Config.Paths = Args.getAllArgValues(OPT_INPUT);
  Config.AllowNative = Args.hasArg(OPT_allow_native);
  Config.JSON = Args.hasArg(OPT_json);
  if (Config.Paths.empty() || Config.Paths[0] != "check")
    addError(Errors, createStringError("expected 'check', as in: ulto sdk "
                                       "check <archive>..."));
  else if (Config.Paths.erase(Config.Paths.begin()); Config.Paths.empty())
    addError(Errors, createStringError("no input files"));
  if (Errors)
    return Errors;
  return Config;
}

} // namespace

int ulto::sdkMain(ArrayRef<const char *> Args) {
  std::optional<opt::InputArgList> ArgList = commandOptTable().parse(
      Args, "ulto sdk check [options] <archive|object>...",
      "Check that bitcode archives form a universal SDK");
  if (!ArgList)
    return 0;
  Expected<SdkConfig> Config = readSdkConfig(*ArgList);
  if (!Config) {
    // Without its action, the command is not yet "sdk check".
    std::vector<std::string> Inputs = ArgList->getAllArgValues(OPT_INPUT);
    bool Check = !Inputs.empty() && Inputs[0] == "check";
    return reportErrors(Check ? ToolName : "ulto sdk", Config.takeError());
  }
  const std::vector<std::string> &Paths = Config->Paths;

  SdkReport Report =
      checkSdk(readLTOModuleInfoFiles(Paths), Config->AllowNative);

  if (Config->JSON) {
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
