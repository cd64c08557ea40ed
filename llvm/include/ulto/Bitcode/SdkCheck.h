//===- SdkCheck.h - Is this archive a universal bitcode SDK? ----*- C++ -*-===//
//
// A vendor's prebuilt bitcode library serves every consumer (ThinLTO, full
// LTO, distributed; with or without CFI and whole-program devirtualization)
// only if each member is unified split-LTO-unit bitcode with its own module
// ID, for one target, carrying the type metadata consumers' CFI/WPD need.
// checkSdk says, per member, what breaks that, and warns about what will
// surprise consumers.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_BITCODE_SDKCHECK_H
#define ULTO_BITCODE_SDKCHECK_H

#include "ulto/Bitcode/LTOModuleInfo.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace ulto {

/// One thing to tell the vendor; \p Where names a file or "lib.a(member)".
struct SdkFinding {
  std::string Where;
  std::string Message;
};

/// A member as the check sees it: its modules taken together.
struct SdkMember {
  std::string Name; ///< "lib.a(x.o)" or "x.o".
  bool Native = false;
  bool Unified = false;
  bool Split = false; ///< EnableSplitLTOUnit, as all its modules say.
  std::string ModuleID;
  bool HasTypeMetadata = false;
  bool DefinesVTables = false;
  bool HasCFIChecks = false;
  std::string Triple;
  std::string DataLayout;
  std::string Producer; ///< "LLVM22.1.8"; empty for native objects.
  bool Fat = false;     ///< Native code, and the bitcode in .llvm.lto.
  /// What its bitcode defines that its native code does not (LTOModuleInfo).
  std::vector<std::string> MissingFromNativeCode;
};

struct SdkReport {
  std::vector<SdkMember> Members;
  std::vector<SdkFinding> Errors;
  std::vector<SdkFinding> Warnings;
  bool universal() const { return Errors.empty(); }
};

/// Checks \p Files (archives, bitcode files, objects) as one SDK: module IDs
/// must be unique across all of them; a file that could not be read is an
/// error. Native objects are errors unless \p AllowNative.
SdkReport checkSdk(llvm::ArrayRef<LTOFileInfo> Files, bool AllowNative);

} // namespace ulto

#endif // ULTO_BITCODE_SDKCHECK_H
