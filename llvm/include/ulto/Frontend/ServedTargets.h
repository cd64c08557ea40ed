//===- ServedTargets.h - The targets ulto serves ----------------*- C++ -*-===//
//
// ulto improves LTO where lld's ELF port links: ELF targets of the machines
// lld-22 links. On every other target (Mach-O, COFF with MSVC or MinGW, wasm,
// and PlayStation, whose toolchain does unified LTO its own way) ulto-clang
// is clang-22 and ld.ulto is lld-22. See docs/LinkModes.md.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_FRONTEND_SERVEDTARGETS_H
#define ULTO_FRONTEND_SERVEDTARGETS_H

namespace llvm {
class Triple;
} // namespace llvm

namespace ulto {

/// Whether ulto serves target \p T: ulto's -funified-lto compile
/// (UnifiedPreLink.h) is for it, and its LTO links may use ld.ulto (when
/// clang-22 links it with a GNU-style linker; the driver decides that).
bool isServedTarget(const llvm::Triple &T);

} // namespace ulto

#endif // ULTO_FRONTEND_SERVEDTARGETS_H
