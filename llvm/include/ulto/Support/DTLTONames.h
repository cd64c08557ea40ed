//===- DTLTONames.h - Names lld-22 gives a distributed link's files -*- C++
//-*-===//
//
// lld-22 writes a distributed link's job list next to its output, under a
// name derived from the output and its own process ID, which ulto dist
// removes when the linker is gone (Cancellation.h); archive members it writes
// there too. ld.ulto gives lld an output in a private directory beside the
// real one (PrivateOutput.h), whose name ulto dist sees in the job list.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_SUPPORT_DTLTONAMES_H
#define ULTO_SUPPORT_DTLTONAMES_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
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

/// Whether \p Path names a file lld wrote for an archive member:
/// "<dir>/<archive>(<member> at <offset>).<sequence>.<PID in hex>.o".
inline bool isArchiveMemberFile(llvm::StringRef Path) {
  llvm::StringRef Name = llvm::sys::path::filename(Path);
  if (!Name.consume_back(".o"))
    return false;
  auto [Rest, Pid] = Name.rsplit('.');
  auto [Member, Sequence] = Rest.rsplit('.');
  return !Pid.empty() && llvm::all_of(Pid, llvm::isHexDigit) &&
         !Sequence.empty() && llvm::all_of(Sequence, llvm::isDigit) &&
         Member.ends_with(")") && Member.contains("(") &&
         Member.contains(" at ");
}

/// The name of ld.ulto's private directory beside a distributed link's
/// output, before mkdtemp's six characters.
inline constexpr llvm::StringLiteral PrivateLinkDirectoryPrefix = ".ulto-link-";

/// The output a link makes: \p LinkerOutput, or, where it is ld.ulto's
/// output in its private directory ("<dir>/.ulto-link-XXXXXX/<name>"),
/// "<dir>/<name>", which is renamed there at the end.
inline std::string linkOutput(llvm::StringRef LinkerOutput) {
  llvm::StringRef Dir = llvm::sys::path::parent_path(LinkerOutput);
  llvm::StringRef Private = llvm::sys::path::filename(Dir);
  if (!Private.starts_with(PrivateLinkDirectoryPrefix) ||
      Private.size() != PrivateLinkDirectoryPrefix.size() + 6)
    return LinkerOutput.str();
  llvm::SmallString<256> Path(llvm::sys::path::parent_path(Dir));
  llvm::sys::path::append(Path, llvm::sys::path::filename(LinkerOutput));
  return std::string(Path);
}

} // namespace ulto

#endif // ULTO_SUPPORT_DTLTONAMES_H
