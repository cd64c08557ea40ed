//===- CC1CommandCache.h - -cc1 commands learned from the driver -*- C++
//-*-===//
//
// The jobs of one link differ only in their file names, yet clang's driver
// builds each one's -cc1 command afresh: a search for GCC installations of
// some 90 file system calls and a fifth of a small backend job's time. A
// backend worker keeps what its driver built instead. The cache learns the
// -cc1 command of one job with the file names as holes, and trusts it once it
// has predicted, exactly, what the driver built for a second job with other
// file names. From then on a job of that shape gets its -cc1 command without
// the driver.
//
// A shape is the driver command line with its file names (inputs, -o and
// -fthinlto-index=) taken out, their extensions, whether they are absolute
// and whether they name a directory, and the working directory; a job whose
// input is missing is left to the driver, which reports it. The process's
// environment and the toolchain on disk are taken to stay as they are while the
// process lives.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_FRONTEND_CC1COMMANDCACHE_H
#define ULTO_FRONTEND_CC1COMMANDCACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>
#include <vector>

namespace ulto {

class CC1CommandCache {
public:
  /// The -cc1 command (program, "-cc1", arguments) the driver builds from
  /// \p DriverArgs (program first), if a trusted shape covers it.
  std::optional<std::vector<std::string>>
  lookup(llvm::ArrayRef<const char *> DriverArgs) const;

  /// Tells the cache that the driver built the one in-process command
  /// \p CC1 from \p DriverArgs, and said nothing doing so.
  void observe(llvm::ArrayRef<const char *> DriverArgs,
               llvm::ArrayRef<const char *> CC1);

private:
  /// A file name of the driver command line: the whole argument, or its
  /// value after Prefix ("-fthinlto-index=").
  struct FileSlot {
    unsigned Index;
    std::string Prefix;
    std::string Extension;
    bool Absolute;
    bool InDirectory; ///< Not its own last component.
    bool IsInput;     ///< The driver reports it missing.
  };
  /// An argument of the -cc1 command: Text, or Text followed by a file name
  /// of the job (or its last component).
  struct CC1Arg {
    std::string Text;
    int File = -1;
    bool FileName = false;
  };
  struct Shape {
    std::vector<std::string> DriverArgs; ///< File names left empty.
    std::vector<FileSlot> Files;
    std::string WorkingDirectory;
    std::vector<CC1Arg> CC1;
    std::vector<std::string> LearnedFrom; ///< The learning job's file names.
    bool Trusted = false;
    bool Refused = false; ///< Mispredicted: the driver builds these jobs.
  };

  /// The file names of \p DriverArgs if it has the shape \p S.
  std::optional<std::vector<llvm::StringRef>>
  match(const Shape &S, llvm::ArrayRef<const char *> DriverArgs,
        llvm::StringRef WorkingDirectory) const;
  static std::vector<std::string>
  instantiate(const Shape &S, llvm::ArrayRef<llvm::StringRef> Files);
  /// The file names of \p DriverArgs in command-line order, if the driver
  /// only builds its command and writes each file name plainly.
  static std::optional<std::vector<FileSlot>>
  findFiles(llvm::ArrayRef<const char *> DriverArgs);
  static std::optional<Shape> learn(llvm::ArrayRef<const char *> DriverArgs,
                                    llvm::ArrayRef<const char *> CC1,
                                    std::string WorkingDirectory);

  std::vector<Shape> Shapes;
};

} // namespace ulto

#endif // ULTO_FRONTEND_CC1COMMANDCACHE_H
