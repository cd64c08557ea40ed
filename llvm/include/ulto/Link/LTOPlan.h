//===- LTOPlan.h - What LTO will do with a link's bitcode -------*- C++ -*-===//
//
// Before lld runs, ld.ulto reads the bitcode a link loads (cheaply: summary
// flags, and the module ID of split files) to refuse what unified LTO cannot
// link, naming the input and the fix, and to tell the user what LTO will do.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LINK_LTOPLAN_H
#define ULTO_LINK_LTOPLAN_H

#include "ulto/Link/BackendOptions.h"
#include "ulto/Link/LinkInputs.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace ulto {

/// The --lto= mode of the link.
enum class LTOMode { Default, Thin, Full, Distributed };

/// Parses a --lto= value; std::nullopt if unknown.
std::optional<LTOMode> parseLTOMode(llvm::StringRef Value);
llvm::StringRef toString(LTOMode Mode);

/// The LTO facts of one loaded bitcode file.
struct BitcodeInput {
  std::string Name;
  bool Unified = false;
  bool Split = false;    ///< Has a ThinLTO half and a regular half.
  bool ThinOnly = false; ///< One ThinLTO module.
  std::string ModuleID;  ///< For split files: the ID the split used.
  /// The summary's EnableSplitLTOUnit flag: compiled without
  /// -fno-split-lto-unit, whether or not the module could be split.
  bool SplitLTOUnit = false;
};

/// Reads the facts of every bitcode file in Files.
llvm::Expected<std::vector<BitcodeInput>>
readBitcodeInputs(const std::vector<LoadedFile> &Files);

/// One message per input that --lto=thin|full|distributed cannot link:
/// bitcode that is not unified. Empty for --lto=default.
std::vector<std::string> checkUnified(const std::vector<BitcodeInput> &Inputs,
                                      LTOMode Mode);

/// One message per pair of split inputs with the same module ID: LTO would
/// merge their internal type IDs and promoted symbols.
std::vector<std::string>
checkModuleIDs(const std::vector<BitcodeInput> &Inputs);

/// One message per unified input compiled with -fno-split-lto-unit when
/// other unified inputs were compiled without it: LTO refuses to link the
/// two EnableSplitLTOUnit values, in every mode, with LLVM's own words.
std::vector<std::string>
checkSplitLTOUnitFlags(const std::vector<BitcodeInput> &Inputs);

/// How the ThinLTO modules of \p Files were compiled (their "PIC Level"
/// module flag), read lazily without function bodies; Unknown if a module
/// cannot be read (lld reports it).
ModulesPIC readModulesPIC(const std::vector<LoadedFile> &Files);

/// The line --verbose and --save-temps print: the mode LTO will run in, how
/// many modules go thin and how many regular, and why.
std::string describePlan(const std::vector<BitcodeInput> &Inputs, LTOMode Mode);

} // namespace ulto

#endif
