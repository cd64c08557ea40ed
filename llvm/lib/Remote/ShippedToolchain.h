//===- ShippedToolchain.h - A compiler to send with every action -*- C++
//-*-===//
//
// For workers without the toolchain: the compiler executable and the shared
// libraries it loads from next to itself (its $ORIGIN-relative RUNPATH, as
// LLVM's libLLVM and libclang-cpp are), laid out under toolchain/ as they are
// on this machine, so that the compiler finds them the same way there.
// System libraries (libc, libstdc++, zlib...) must be on the workers.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LIB_REMOTE_SHIPPEDTOOLCHAIN_H
#define ULTO_LIB_REMOTE_SHIPPEDTOOLCHAIN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace ulto {

struct ShippedFile {
  std::string Path;      ///< In the input root.
  std::string LocalPath; ///< Where it is read from.
  bool Executable = false;
};

struct ShippedToolchain {
  std::string Compiler; ///< The compiler's path in the input root.
  std::vector<ShippedFile> Files;
};

/// What to send for \p Compiler, a path or a name looked up in PATH.
llvm::Expected<ShippedToolchain> findShippedToolchain(llvm::StringRef Compiler);

} // namespace ulto

#endif // ULTO_LIB_REMOTE_SHIPPEDTOOLCHAIN_H
