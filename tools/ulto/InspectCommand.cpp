//===- InspectCommand.cpp - ulto inspect ----------------------------------===//
//
// `ulto inspect FILE...` shows, for every module of every bitcode file, ELF
// object and archive member, what the LTO linker will see: thin or regular,
// unified, split, the module ID that names promoted locals, type metadata,
// the triple and the pre-link pipeline that optimised it. The table is for
// people and FileCheck; --json is for scripts.
//
// Files are independent, so they are read in parallel, each with its own
// LLVMContext; results are kept in command-line order. A bad file is
// reported and the others are still shown.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "ulto/Bitcode/LTOModuleInfo.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace ulto;

namespace {

#define ULTO_OPTIONS_INC "InspectOpts.inc"
#include "ulto/Support/OptionIDs.def"

#include "ulto/Support/CommandOptTable.def"

constexpr StringLiteral ToolName = "ulto inspect";

StringRef yesNo(bool B) { return B ? "yes" : "no"; }

// One row per module, every row self-contained so that grep finds it;
// columns not applicable to native objects show "-".
void printTable(ArrayRef<LTOFileInfo> Results, raw_ostream &OS) {
  using Row = SmallVector<std::string, 10>;
  std::vector<Row> Rows = {{"FILE", "INDEX", "KIND", "UNIFIED", "SPLIT",
                            "TYPE-MD", "MODULE-ID", "TRIPLE", "PRE-LINK",
                            "FAT"}};
  for (const LTOFileInfo &R : Results) {
    for (const LTOModuleInfo &M : R.Modules) {
      std::string File =
          M.Member.empty() ? R.Path : R.Path + "(" + M.Member + ")";
      bool Native = M.Kind == LTOKind::Native;
      auto BitcodeOnly = [&](StringRef S) { return Native ? "-" : S.str(); };
      Rows.push_back(
          {File, std::to_string(M.Index), toString(M.Kind).str(),
           BitcodeOnly(yesNo(M.Unified)), BitcodeOnly(yesNo(M.Split)),
           BitcodeOnly(yesNo(M.HasTypeMetadata)),
           BitcodeOnly(M.ModuleID.empty() ? "none" : M.ModuleID),
           M.Triple.empty() ? "none" : M.Triple,
           BitcodeOnly(M.PreLinkPipeline.empty() ? "unknown"
                                                 : M.PreLinkPipeline),
           BitcodeOnly(yesNo(M.Fat))});
    }
  }
  if (Rows.size() == 1)
    return;

  SmallVector<size_t, 10> Widths(Rows[0].size(), 0);
  for (const Row &R : Rows)
    for (auto [Width, Cell] : zip(Widths, R))
      Width = std::max(Width, Cell.size());
  for (const Row &R : Rows) {
    for (size_t I = 0, E = R.size(); I != E; ++I) {
      if (I + 1 == E)
        OS << R[I] << "\n";
      else
        OS << left_justify(R[I], Widths[I]) << "  ";
    }
  }
}

// JSON strings must be UTF-8; paths and member names need not be.
json::Value jsonString(StringRef S) {
  return json::isUTF8(S) ? S.str() : json::fixUTF8(S);
}

// The shape is a contract with scripts (bench/ reads it): keep keys and
// their order.
void printJSON(ArrayRef<LTOFileInfo> Results, raw_ostream &OS) {
  json::OStream J(OS);
  J.object([&] {
    J.attributeArray("files", [&] {
      for (const LTOFileInfo &R : Results) {
        if (!R.Error.empty())
          continue;
        J.object([&] {
          J.attribute("path", jsonString(R.Path));
          J.attributeArray("modules", [&] {
            for (const LTOModuleInfo &M : R.Modules) {
              J.object([&] {
                J.attribute("member", jsonString(M.Member));
                J.attribute("index", M.Index);
                J.attribute("kind", toString(M.Kind));
                J.attribute("unified", M.Unified);
                J.attribute("split", M.Split);
                J.attribute("module_id", M.ModuleID);
                J.attribute("type_metadata", M.HasTypeMetadata);
                J.attribute("triple", jsonString(M.Triple));
                if (M.PreLinkPipeline.empty())
                  J.attribute("pre_link", nullptr);
                else
                  J.attribute("pre_link", M.PreLinkPipeline);
                J.attribute("fat", M.Fat);
              });
            }
          });
        });
      }
    });
  });
  OS << "\n";
}

} // namespace

int ulto::inspectMain(ArrayRef<const char *> Args) {
  std::optional<opt::InputArgList> ArgList = commandOptTable().parse(
      Args, "ulto inspect [options] <file>...",
      "Show the LTO modules in bitcode files and archives");
  if (!ArgList)
    return 0;
  Error Errors = unknownArguments(*ArgList);
  std::vector<std::string> Paths = ArgList->getAllArgValues(OPT_INPUT);
  if (Paths.empty() && !Errors)
    addError(Errors, createStringError("no input files"));
  if (Errors)
    return reportErrors(ToolName, std::move(Errors));

  // Read every file; a corrupt one must not take the others down.
  std::vector<LTOFileInfo> Results = readLTOModuleInfoFiles(Paths);

  // Report the files that failed, then show the others.
  bool Failed = false;
  for (const LTOFileInfo &R : Results) {
    if (R.Error.empty())
      continue;
    WithColor::error(errs(), ToolName) << R.Path << ": " << R.Error << "\n";
    Failed = true;
  }
  if (ArgList->hasArg(OPT_json))
    printJSON(Results, outs());
  else
    printTable(Results, outs());
  return Failed ? 1 : 0;
}
