//===- PrivateOutput.h - A distributed link's files, the user's alone -*- C++
//-*-===//
//
// lld-22 writes a distributed link's temporaries next to its output under
// names anyone can predict (the job list, each job's index shard and object,
// archive members), truncating what is there and following links: in a
// directory others can write, a file planted at one of those names is
// written into and read back, and another user's bitcode or object ends up
// in the program. So ld.ulto gives lld an output in a directory only the
// user can enter, made beside the real output (one file system), and renames
// the output into place once lld has written it, which also keeps a
// half-written output from ever appearing under its name. What else lld
// leaves there (--save-temps' files, --time-trace's) moves beside the
// output, where lld would have written it (DependencyFile.h renames the
// output in --dependency-file's).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LINK_PRIVATEOUTPUT_H
#define ULTO_LINK_PRIVATEOUTPUT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace ulto {

class PrivateOutput {
public:
  /// For a link whose output is \p Output: std::nullopt when that is not a
  /// file to replace (-o -, -o /dev/null) or its directory has no room for
  /// another (lld then reports what it reports).
  static std::optional<PrivateOutput> create(llvm::StringRef Output);
  PrivateOutput(PrivateOutput &&Other);
  PrivateOutput &operator=(PrivateOutput &&) = delete;
  /// Removes the directory and whatever is left in it.
  ~PrivateOutput();

  /// Where lld writes the output.
  llvm::StringRef path() const { return LLDOutput; }

  /// Has an interrupt (SIGINT, SIGTERM, SIGHUP) remove the directory once
  /// LLVM's handler has removed the files registered with it; the process
  /// then ends by SIGINT. A distributor still running removes its files
  /// there, then the directory: whichever ends last finds it empty
  /// (Cancellation.h).
  void removeOnInterrupt() const;

  /// After the link: the output renamed into place if \p Linked; what else
  /// lld left moved beside it. The error says why the output could not be
  /// put in place.
  llvm::Error finish(bool Linked);

  /// The output, where the link puts it.
  llvm::StringRef output() const { return Output; }

private:
  PrivateOutput(std::string Output, std::string Directory);

  std::string Output;
  std::string Directory;
  std::string LLDOutput;
};

} // namespace ulto

#endif // ULTO_LINK_PRIVATEOUTPUT_H
