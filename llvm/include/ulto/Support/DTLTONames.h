//===- DTLTONames.h - Names lld-22 gives a distributed link's files -*- C++
//-*-===//
//
// lld-22 writes a distributed link's job list next to its output, under a
// name derived from the output and its own process ID: ld.ulto creates that
// file before lld writes it, and ulto dist removes it when the linker is
// gone (Cancellation.h).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_SUPPORT_DTLTONAMES_H
#define ULTO_SUPPORT_DTLTONAMES_H

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Path.h"

#include <string>

namespace ulto {

/// `<output's directory>/<output stem>.<Pid>.dist-file.json`.
inline std::string dtltoJobListPath(llvm::StringRef LinkerOutput, long Pid) {
  llvm::SmallString<256> Path(llvm::sys::path::parent_path(LinkerOutput));
  llvm::sys::path::append(Path, llvm::sys::path::stem(LinkerOutput) + "." +
                                    llvm::Twine(Pid) + ".dist-file.json");
  return std::string(Path);
}

} // namespace ulto

#endif // ULTO_SUPPORT_DTLTONAMES_H
