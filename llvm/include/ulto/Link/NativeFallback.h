//===- NativeFallback.h - Fat objects whose bitcode is too new --*- C++ -*-===//
//
// LLVM reads the bitcode of its own and older releases; bitcode from a newer
// major release may not read at all, or fail deep inside LTO with a message
// that names no file. ld.ulto decides by the producer string every bitcode
// file carries: bitcode from a newer major LLVM is not linked as bitcode.
//
// A fat object's native code links with any linker, so ld.ulto links that
// instead: lld reads, in the place of the file that holds the fat object
// (the object, or its archive), a copy in which that object has no .llvm.lto
// section (lld's --remap-inputs=). The copies are the user's alone, in a
// directory only the user can enter. Bitcode without native code is an
// error that names both versions and the remedy.
//
// Rejected: dropping --fat-lto-objects for the whole link, which would take
// every fat object's native code for one object's sake.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LINK_NATIVEFALLBACK_H
#define ULTO_LINK_NATIVEFALLBACK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <optional>
#include <string>
#include <vector>

namespace ulto {

/// The major version of an LLVM producer string ("LLVM23.0.0git" is 23);
/// std::nullopt for other producers.
std::optional<unsigned> producerMajorVersion(llvm::StringRef Producer);

/// Whether bitcode that \p Producer wrote comes from a newer major LLVM
/// than this one.
bool isFromNewerLLVM(llvm::StringRef Producer);

/// "LLVM 23.0.0" for "LLVM23.0.0", the reader's words for a producer.
std::string describeProducer(llvm::StringRef Producer);

/// The copies, without their fat objects' bitcode, that lld reads in place
/// of the files that hold them.
class NativeFallback {
public:
  /// Makes the directory of the copies, mode 0700 (mkdtemp), in the
  /// system's temporary directory.
  static llvm::Expected<NativeFallback> create();
  NativeFallback(NativeFallback &&Other);
  NativeFallback &operator=(NativeFallback &&) = delete;
  ~NativeFallback();

  /// Copies \p Path, an ELF object or an archive, without the .llvm.lto
  /// section of the fat objects among \p FatObjects (buffers into \p
  /// Contents, the file's bytes), and returns lld's argument that reads the
  /// copy in its place.
  llvm::Expected<std::string>
  add(llvm::StringRef Path, llvm::MemoryBufferRef Contents,
      llvm::ArrayRef<llvm::MemoryBufferRef> FatObjects);

  /// Removes the copies and their directory.
  void remove();

private:
  explicit NativeFallback(std::string Directory);

  std::string Directory;
  std::vector<std::string> Copies;
};

} // namespace ulto

#endif
