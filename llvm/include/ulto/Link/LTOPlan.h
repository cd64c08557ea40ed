//===- LTOPlan.h - What LTO will do with a link's bitcode -------*- C++ -*-===//
//
// Before lld runs, ld.ulto reads the bitcode a link loads (cheaply: summary
// flags) to refuse what unified LTO cannot link, naming the input and the
// fix, and to tell the user what LTO will do. The module IDs of split files
// cost more (each thin half's module-level metadata: 0.2-0.3 s of a
// 1000-module link), so they are read apart, and a distributed link reads them
// while lld runs.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LINK_LTOPLAN_H
#define ULTO_LINK_LTOPLAN_H

#include "ulto/Link/BackendOptions.h"
#include "ulto/Link/LinkInputs.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Threading.h"
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
  bool Split = false;           ///< Has a ThinLTO half and a regular half.
  bool ThinOnly = false;        ///< One ThinLTO module.
  std::string ModuleID;         ///< For split files: the ID the split used.
  llvm::MemoryBufferRef Buffer; ///< The file's bytes (the LoadedFiles').
  /// The summary's EnableSplitLTOUnit flag: compiled without
  /// -fno-split-lto-unit, whether or not the module could be split.
  bool SplitLTOUnit = false;
  /// The LLVM that wrote it ("LLVM22.1.8"), as its first module says.
  std::string Producer;
};

/// Reads the facts of every bitcode file in Files, but for module IDs.
llvm::Expected<std::vector<BitcodeInput>>
readBitcodeInputs(const std::vector<LoadedFile> &Files);

/// Reads the module ID of each split input, on \p Threads threads of its
/// own (so that it may run beside lld's parallel work); the error names the
/// first input, in link order, that cannot be read.
llvm::Error readModuleIDs(std::vector<BitcodeInput> &Inputs,
                          llvm::ThreadPoolStrategy Threads);

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
