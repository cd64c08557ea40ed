//===- ReusedFiles.h - Temporary files kept for reuse -----------*- C++ -*-===//
//
// A pool of temporary files that outlive the task they were made for: a file
// given back is taken again by the next task, so that a process running a
// task per job creates as many files as it runs tasks at once, not one a job.
// Creating and removing a file a job costs an inode each time (on ext4
// without a journal, a search past every inode freed in the last seconds),
// and LLVM's list of files to remove on a signal only grows, walked on every
// change. Each file is registered for removal on a signal once, when made,
// and removed with the pool.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_SUPPORT_REUSEDFILES_H
#define ULTO_SUPPORT_REUSEDFILES_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <mutex>
#include <string>
#include <vector>

namespace ulto {

class ReusedFiles {
public:
  /// A file of the pool, back in the pool when destroyed. Its content is
  /// what the last holder left.
  class Lease {
  public:
    Lease(Lease &&Other)
        : Pool(Other.Pool), Model(std::move(Other.Model)),
          Path(std::move(Other.Path)) {
      Other.Pool = nullptr;
    }
    Lease &operator=(Lease &&) = delete;
    ~Lease();
    llvm::StringRef path() const { return Path; }

  private:
    friend class ReusedFiles;
    Lease(ReusedFiles *Pool, std::string Model, std::string Path)
        : Pool(Pool), Model(std::move(Model)), Path(std::move(Path)) {}
    ReusedFiles *Pool;
    std::string Model;
    std::string Path;
  };

  ReusedFiles() = default;
  ReusedFiles(const ReusedFiles &) = delete;
  ReusedFiles &operator=(const ReusedFiles &) = delete;
  /// Removes every file of the pool; no lease may outlive it.
  ~ReusedFiles();

  /// A file named after \p Model (sys::fs::createUniqueFile's, '%' a random
  /// character) that no other lease holds: a free one made for the same
  /// model, else a new one.
  llvm::Expected<Lease> take(llvm::StringRef Model);

private:
  std::mutex Mutex;
  llvm::StringMap<std::vector<std::string>> Free; ///< By model.
  std::vector<std::string> Created;
};

} // namespace ulto

#endif // ULTO_SUPPORT_REUSEDFILES_H
