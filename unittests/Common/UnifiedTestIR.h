//===- UnifiedTestIR.h - IR the unit tests build bitcode from ---*- C++ -*-===//
//
// Modules as clang writes them for -funified-lto, as IR text: the module
// flags, and the shapes that decide splitting and module IDs (a vtable with
// type metadata next to an external definition; an internal vtable whose
// locals the split promotes; internal definitions only).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_UNITTESTS_COMMON_UNIFIEDTESTIR_H
#define ULTO_UNITTESTS_COMMON_UNIFIEDTESTIR_H

#include "ulto/UnifiedLTO/SourceFileIdentifier.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <string>

namespace ulto::test {

/// Module flags clang sets for -funified-lto.
inline constexpr char UnifiedFlags[] = R"(
!llvm.module.flags = !{!100, !101}
!100 = !{i32 1, !"EnableSplitLTOUnit", i32 1}
!101 = !{i32 1, !"UnifiedLTO", i32 1}
)";

/// The same, plus the identifier clang's -funique-source-file-names (and
/// ulto-clang) set: getUniqueModuleId() is the hash of the identifier.
inline std::string uniqueSourceFlags(llvm::StringRef Identifier) {
  return (R"(
!llvm.module.flags = !{!100, !101, !102}
!100 = !{i32 1, !"EnableSplitLTOUnit", i32 1}
!101 = !{i32 1, !"UnifiedLTO", i32 1}
!102 = !{i32 5, !")" +
          SourceFileIdentifierFlag + "\", !103}\n!103 = !{!\"" + Identifier +
          "\"}\n")
      .str();
}

/// A class with a vtable (type metadata) and an external function: the
/// ThinLTO writer splits it when it has a module ID.
inline constexpr char VTableIR[] = R"(
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
@vt = constant [1 x ptr] [ptr @vf], !type !0
define i32 @vf(ptr %this) {
  ret i32 1
}
define i32 @use() {
  ret i32 0
}
!0 = !{i64 0, !"_ZTS1A"}
)";

/// An internal vtable and virtual function used from both halves: the
/// split promotes them to "<name><module ID>".
inline constexpr char LocalVTableIR[] = R"(
target triple = "x86_64-pc-linux-gnu"
@vt = internal constant [1 x ptr] [ptr @vf], !type !0
define internal i32 @vf(ptr %this) {
  ret i32 1
}
define ptr @get() {
  ret ptr @vt
}
define i32 @call() {
  %r = call i32 @vf(ptr null)
  ret i32 %r
}
!0 = !{i64 0, !"_ZTS1A"}
)";

/// Only internal definitions with type metadata: no module ID without the
/// identifier flag, so the writer keeps it as one regular module.
inline constexpr char InternalOnlyIR[] = R"(
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
@vt = internal constant [1 x ptr] [ptr @vf], !type !0
@llvm.used = appending global [1 x ptr] [ptr @vt], section "llvm.metadata"
define internal i32 @vf(ptr %this) {
  ret i32 1
}
!0 = !{i64 0, !"_ZTS1A"}
)";

} // namespace ulto::test

#endif // ULTO_UNITTESTS_COMMON_UNIFIEDTESTIR_H
