//===- CaptureFiles.h - Files for the jobs' stdout and stderr ---*- C++ -*-===//
//
// A local job's stdout and stderr go to a file, read once the job has ended.
// The files are reused from job to job: one per job running at once, not one
// per job. A file created and removed for every job cost the distributor's
// threads about 0.5 ms a job on a 1000-job link: ext4 allocates a new inode
// each time (after a burst of removals it searches for one), and LLVM's list
// of files to remove on a signal only grows, and is walked on every change.
//
// The files are a ReusedFiles pool: each is registered with
// sys::RemoveFileOnSignal once, when created, and an interrupt removes it
// like any other capture (Cancellation.h).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_CAPTUREFILES_H
#define ULTO_DISTRIBUTOR_CAPTUREFILES_H

#include "ulto/Support/ReusedFiles.h"

#include "llvm/Support/Error.h"

#include <string>

namespace ulto {

class CaptureFiles {
public:
  using Lease = ReusedFiles::Lease;

  CaptureFiles();
  /// An empty file no other lease holds: a free one, emptied, else a new
  /// temporary file.
  llvm::Expected<Lease> take();

private:
  ReusedFiles Files;
  std::string Model;
};

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_CAPTUREFILES_H
