//===- Files.h - Files in test expectations ---------------------*- C++ -*-===//

#ifndef ULTO_UNITTESTS_COMMON_FILES_H
#define ULTO_UNITTESTS_COMMON_FILES_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

#include <csignal>
#include <string>
#include <sys/resource.h>
#include <vector>

namespace ulto::test {

/// A file's bytes; "<none>" when it cannot be read.
inline std::string readFile(llvm::StringRef Path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path);
  return Buffer ? (*Buffer)->getBuffer().str() : "<none>";
}

/// The names in \p Dir, sorted; a name starting with \p TemporaryPrefix is
/// "temp".
inline std::vector<std::string> filesIn(llvm::StringRef Dir,
                                        llvm::StringRef TemporaryPrefix = "") {
  std::vector<std::string> Names;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    bool Temporary =
        !TemporaryPrefix.empty() && Name.starts_with(TemporaryPrefix);
    Names.push_back(Temporary ? "temp" : Name.str());
  }
  llvm::sort(Names);
  return Names;
}

/// Runs \p Write with files limited to 4 KiB (RLIMIT_FSIZE, SIGXFSZ
/// ignored): a write past that fails as on a full disk.
inline void withSmallFileLimit(llvm::function_ref<void()> Write) {
  struct rlimit Saved;
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &Saved), 0);
  struct rlimit Small = Saved;
  Small.rlim_cur = 4096;
  auto OldHandler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &Small), 0);
  Write();
  ::setrlimit(RLIMIT_FSIZE, &Saved);
  std::signal(SIGXFSZ, OldHandler);
}

} // namespace ulto::test

#endif // ULTO_UNITTESTS_COMMON_FILES_H
