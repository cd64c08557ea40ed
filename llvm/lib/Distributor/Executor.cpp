//===- Executor.cpp - Where backend jobs run ------------------------------===//

#include "ulto/Distributor/Executor.h"
#include "ulto/Distributor/ForkServer.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

using namespace llvm;

namespace ulto {

Executor::~Executor() = default;

// A new process of \p Command[0], stdout and stderr to \p OutputFile.
static ExecutionResult spawn(ArrayRef<std::string> Command,
                             StringRef OutputFile) {
  ExecutionResult Result;
  ErrorOr<std::string> Compiler = sys::findProgramByName(Command[0]);
  if (!Compiler) {
    Result.Started = false;
    Result.Failure =
        "could not be started: compiler '" + Command[0] + "' not found";
    return Result;
  }
  std::vector<StringRef> Args(Command.begin(), Command.end());
  std::optional<StringRef> Redirects[] = {StringRef(), OutputFile, OutputFile};
  std::string ErrMsg;
  bool ExecutionFailed = false;
  int Status = sys::ExecuteAndWait(*Compiler, Args, std::nullopt, Redirects,
                                   /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                   &ErrMsg, &ExecutionFailed);
  if (ExecutionFailed) {
    Result.Started = false;
    Result.Failure = "could not be started: " + ErrMsg;
  } else if (Status == -2)
    Result.Failure = "crashed: " + ErrMsg;
  else if (Status != 0)
    Result.Failure = "exited with status " + std::to_string(Status);
  return Result;
}

ExecutionResult LocalExecutor::run(const JobList &List, const BackendJob &Job) {
  // stdout and stderr go to one file, shown if the job fails.
  SmallString<128> OutputFile;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("ulto-backend", "txt", OutputFile)) {
    ExecutionResult Result;
    Result.Started = false;
    Result.Failure = "could not be started: " + EC.message();
    return Result;
  }
  FileRemover Remover(OutputFile);
  std::vector<std::string> Command = List.command(Job);
  ExecutionResult Result =
      Server ? Server->run(Command, OutputFile) : spawn(Command, OutputFile);
  if (ErrorOr<std::unique_ptr<MemoryBuffer>> Output =
          MemoryBuffer::getFile(OutputFile, /*IsText=*/true))
    Result.Output = (*Output)->getBuffer().str();
  return Result;
}

} // namespace ulto
