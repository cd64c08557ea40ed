//===- JobList.h - The backend jobs of a DTLTO link -------------*- C++ -*-===//
//
// The linker's thin link writes one JSON file per link (LLVM 22's DTLTO
// protocol, lld --thinlto-distributor=) and waits for the distributor:
//
//   {"common": {"linker_output": S, "args": [...], "inputs": [...]},
//    "jobs": [{"args": [...], "inputs": [...], "outputs": [...]}]}
//
// A job's command is common.args + job.args (args[0] is the compiler).
// inputs[0] is the bitcode module, inputs[1] its index shard, inputs[2:] the
// modules it imports from; outputs[0] is the native object, a path relative
// to the linker's working directory.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_JOBLIST_H
#define ULTO_DISTRIBUTOR_JOBLIST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ulto {

struct BackendJob {
  std::vector<std::string> Args;
  std::vector<std::string> Inputs;
  std::vector<std::string> Outputs;
  /// Bytes of the module: the scheduler's estimate of the job's cost, as
  /// lld's in-process backends estimate theirs.
  uint64_t ModuleBytes = 0;

  llvm::StringRef module() const { return Inputs[0]; }
  llvm::StringRef indexShard() const { return Inputs[1]; }
  llvm::ArrayRef<std::string> imports() const {
    return llvm::ArrayRef(Inputs).drop_front(2);
  }
  llvm::StringRef output() const { return Outputs[0]; }
};

struct JobList {
  std::string LinkerOutput;
  std::vector<std::string> CommonArgs;
  std::vector<std::string> CommonInputs;
  std::vector<BackendJob> Jobs;

  llvm::StringRef compiler() const { return CommonArgs[0]; }
  /// The job's full command line, compiler first.
  std::vector<std::string> command(const BackendJob &Job) const;
};

/// Parses a job list; \p Name names the file in errors. Checks the shape the
/// protocol promises (a compiler, a module and a shard per job, one output)
/// and that no output is an input or another job's output.
llvm::Expected<JobList> parseJobList(llvm::StringRef JSON,
                                     llvm::StringRef Name);

/// Reads and parses the job list at \p Path, and sizes each job's inputs.
/// An output that exists must be an object or empty.
llvm::Expected<JobList> readJobList(llvm::StringRef Path);

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_JOBLIST_H
