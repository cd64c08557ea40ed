//===- PrivateObjects.h - Where backend jobs write their objects -*- C++
//-*-===//
//
// lld-22 names each job's object next to the link's output, where others may
// be able to write (/tmp): another user can plant a file at the name, which
// clang writes into when it cannot rename over it (LLVM's TempFile::keep
// copies), or rename her own object over the job's between the job's end and
// the read. Reading the object back by that name would put her code in the
// program and in the user's cache. So each job writes its object into a
// directory that only the user can enter, made beside the output (one file
// system: the object is renamed into place, as clang itself would), and ulto
// dist checks, caches and publishes the bytes it finds there: only bytes the
// user's own job wrote.
//
// A job whose compiler derives other files from its object's name
// (-gsplit-dwarf's .dwo, -ftime-trace's .json) writes in place, where those
// files belong; its object is then taken only from a regular file the user
// owns and no one else can write.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_PRIVATEOBJECTS_H
#define ULTO_DISTRIBUTOR_PRIVATEOBJECTS_H

#include "ulto/Distributor/JobList.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace ulto {

class PrivateObjects {
public:
  /// Makes the directory (mode 0700) beside \p List's output; std::nullopt
  /// when it cannot be made there, and the jobs write in place.
  static std::optional<PrivateObjects> create(const JobList &List);
  PrivateObjects(PrivateObjects &&Other);
  PrivateObjects &operator=(PrivateObjects &&) = delete;
  /// Removes the directory and what the jobs left in it.
  ~PrivateObjects();

  llvm::StringRef directory() const { return Directory; }

  /// Where job \p I writes its object: in the directory, under its own
  /// output's name (what the compiler's messages show), unless its compiler
  /// writes other files beside the object, or its -o is not among the job's
  /// own arguments; then its own output.
  llvm::StringRef objectPath(size_t I) const { return Paths[I]; }

private:
  PrivateObjects(const JobList &List, std::string Directory);
  std::string Directory;
  std::vector<std::string> Paths;
};

/// Whether \p List's command for \p Job has the compiler write files named
/// after the object beside it (-gsplit-dwarf, -ftime-trace, -save-temps...).
bool writesBesideObject(const JobList &List, const BackendJob &Job);

/// \p Job writing its object to \p Output instead, which
/// PrivateObjects::objectPath chose.
BackendJob withOutput(const BackendJob &Job, llvm::StringRef Output);

/// \p E, the failure to write an object at \p To, or, when another user's
/// file is in the way there (in a sticky directory), an error saying so.
llvm::Error objectNotWritten(llvm::StringRef To, llvm::Error E);

/// Moves the object at \p From, in the private directory, to \p To,
/// replacing what is there (a link itself, never followed); across file
/// systems, a copy made as writeAtomically makes it. The error names \p To,
/// and another user's file in the way.
llvm::Error publishObject(llvm::StringRef From, llvm::StringRef To,
                          llvm::StringRef Bytes);

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_PRIVATEOBJECTS_H
