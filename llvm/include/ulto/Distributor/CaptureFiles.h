//===- CaptureFiles.h - Files for the jobs' stdout and stderr ---*- C++ -*-===//
//
// A local job's stdout and stderr go to a file, read once the job has ended.
// The files are reused from job to job: one per job running at once, not one
// per job. A file created and removed for every job cost the distributor's
// threads about 0.5 ms a job on a 1000-job link: ext4 allocates a new inode
// each time (after a burst of removals it searches for one), and LLVM's list
// of files to remove on a signal only grows, and is walked on every change.
//
// Each file is registered with sys::RemoveFileOnSignal once, when created:
// an interrupt removes it like any other capture (Cancellation.h).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_CAPTUREFILES_H
#define ULTO_DISTRIBUTOR_CAPTUREFILES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <mutex>
#include <string>
#include <vector>

namespace ulto {

class CaptureFiles {
public:
  /// A file of the pool, empty when taken, back in the pool when destroyed.
  class Lease {
  public:
    Lease(Lease &&Other) : Pool(Other.Pool), Path(std::move(Other.Path)) {
      Other.Pool = nullptr;
    }
    Lease &operator=(Lease &&) = delete;
    ~Lease();
    llvm::StringRef path() const { return Path; }

  private:
    friend class CaptureFiles;
    Lease(CaptureFiles *Pool, std::string Path)
        : Pool(Pool), Path(std::move(Path)) {}
    CaptureFiles *Pool;
    std::string Path;
  };

  CaptureFiles() = default;
  CaptureFiles(const CaptureFiles &) = delete;
  CaptureFiles &operator=(const CaptureFiles &) = delete;
  /// Removes every file of the pool; no lease may outlive it.
  ~CaptureFiles();

  /// An empty file no other lease holds: a free one, emptied, else a new
  /// temporary file.
  llvm::Expected<Lease> take();

private:
  std::mutex Mutex;
  std::vector<std::string> Free;
  std::vector<std::string> Created;
};

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_CAPTUREFILES_H
