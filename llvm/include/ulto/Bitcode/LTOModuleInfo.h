//===- LTOModuleInfo.h - What an object file or archive holds ---*- C++ -*-===//
//
// Reads the LTO-relevant facts of every module in a bitcode file, an ELF
// object or an archive of them: the questions `ulto inspect` answers and that
// decide whether unified LTO can link an input.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_BITCODE_LTOMODULEINFO_H
#define ULTO_BITCODE_LTOMODULEINFO_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <string>
#include <vector>

namespace ulto {

/// How the linker treats a module.
enum class LTOKind {
  Thin,    ///< ThinLTO module (has a ThinLTO summary).
  Regular, ///< Regular (full) LTO module, including the regular half of a
           ///< split unit.
  Native,  ///< A native ELF object: not bitcode, nothing for LTO to do.
};

/// "thin", "regular" or "native".
llvm::StringRef toString(LTOKind Kind);

/// One module of an input file.
struct LTOModuleInfo {
  /// Archive member name, or empty for a plain file.
  std::string Member;
  /// Position of the module within its bitcode file (0 for native objects).
  unsigned Index = 0;
  LTOKind Kind = LTOKind::Native;
  /// Summary flags as the LTO linker sees them (BitcodeModule::getLTOInfo);
  /// false for modules without a summary and for native objects.
  bool Unified = false;
  bool Split = false;
  /// The ID ThinLTOBitcodeWriter uses to split and to promote local symbols
  /// (llvm::getUniqueModuleId): "." followed by 32 hex digits, or empty when
  /// the module exports no strong definition and has no unique source file
  /// identifier. Both halves of a split file report the ID of the whole file.
  std::string ModuleID;
  /// Whether any global object carries !type metadata (CFI, whole-program
  /// devirtualization).
  bool HasTypeMetadata = false;
  /// Target triple of the module or object; may be empty.
  std::string Triple;
  /// The module's data layout; empty for native objects.
  std::string DataLayout;
  /// Whether the module defines a C++ vtable (a global named _ZTV...).
  bool DefinesVTables = false;
  /// Whether the module was compiled for CFI: clang's cfi-icall module flag,
  /// a type test whose result is used other than by llvm.assume (whole-program
  /// devirtualization's use), or a type-checked virtual load.
  bool HasCFIChecks = false;
  /// The pre-link pipelines that optimised the module, as ulto recorded them
  /// (ulto/UnifiedLTO/PreLinkPipeline.h): "full", "thin" or "full,thin";
  /// empty for native objects and bitcode that ulto did not pre-link.
  std::string PreLinkPipeline;
  /// The LLVM that wrote the bitcode, as its identification block says
  /// ("LLVM22.1.8"); empty for native objects.
  std::string Producer;
  /// Whether the module is the bitcode of a fat object (-ffat-lto-objects):
  /// an ELF object whose .llvm.lto section holds it, beside native code.
  bool Fat = false;
  /// For a fat object: the global symbols its bitcode defines (other than
  /// weakly, and other than the locals the split promoted) that its native
  /// code does not define, which links without LTO would miss. Every module
  /// of the object lists them.
  std::vector<std::string> MissingFromNativeCode;
};

/// Reads every module of \p Buffer, which holds LLVM bitcode, an ELF object or
/// an archive of those; a fat object's modules are its bitcode's. Errors
/// describe the problem without naming the file (the caller prefixes it) and
/// name the archive member, e.g. "member 'x.o': invalid bitcode signature".
/// Malformed input yields an error, never a crash, once
/// enableReaderCrashRecovery() has been called
/// (ulto/Support/ReaderCrashRecovery.h).
llvm::Expected<std::vector<LTOModuleInfo>>
readLTOModuleInfo(llvm::MemoryBufferRef Buffer);

/// What readLTOModuleInfo found in one file, or why it could not.
struct LTOFileInfo {
  std::string Path;
  std::vector<LTOModuleInfo> Modules;
  /// Why the file could not be read (without the path); empty on success.
  std::string Error;
};

/// Reads the files at \p Paths ("-": standard input) in parallel, results in
/// the order given. A corrupt file does not take the others down: reads run
/// under crash recovery.
std::vector<LTOFileInfo>
readLTOModuleInfoFiles(llvm::ArrayRef<std::string> Paths);

} // namespace ulto

#endif // ULTO_BITCODE_LTOMODULEINFO_H
