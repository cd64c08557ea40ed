//===- JobList.cpp - The backend jobs of a distributed ThinLTO link -------===//

#include "ulto/Distributor/JobList.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace ulto {

// The protocol's field names, read with LLVM's JSON mapper so that an error
// names the offending value by its path, e.g. "(root).jobs[2].outputs".
static bool fromJSON(const json::Value &V, BackendJob &Job, json::Path P) {
  json::ObjectMapper O(V, P);
  if (!O || !O.map("args", Job.Args) || !O.map("inputs", Job.Inputs) ||
      !O.map("outputs", Job.Outputs))
    return false;
  if (Job.Inputs.size() < 2) {
    P.field("inputs").report("expected the module and its index shard");
    return false;
  }
  if (Job.Outputs.size() != 1) {
    P.field("outputs").report("expected exactly one output");
    return false;
  }
  return true;
}

namespace {
struct CommonPart {
  std::string LinkerOutput;
  std::vector<std::string> Args, Inputs;
};

bool fromJSON(const json::Value &V, CommonPart &C, json::Path P) {
  json::ObjectMapper O(V, P);
  return O && O.map("linker_output", C.LinkerOutput) && O.map("args", C.Args) &&
         O.mapOptional("inputs", C.Inputs);
}
} // namespace

static bool fromJSON(const json::Value &V, JobList &List, json::Path P) {
  json::ObjectMapper O(V, P);
  CommonPart Common;
  if (!O || !O.map("common", Common) || !O.map("jobs", List.Jobs))
    return false;
  List.LinkerOutput = std::move(Common.LinkerOutput);
  List.CommonArgs = std::move(Common.Args);
  List.CommonInputs = std::move(Common.Inputs);
  return true;
}

std::vector<std::string> JobList::command(const BackendJob &Job) const {
  std::vector<std::string> Command = CommonArgs;
  Command.insert(Command.end(), Job.Args.begin(), Job.Args.end());
  return Command;
}

// LLVM's JSON parser recurses once per level of nesting, so a hostile file
// ('[' * 100000) would overflow the stack. A job list nests four levels deep;
// anything past MaxNesting is refused before parsing.
static constexpr unsigned MaxNesting = 64;

static bool nestsTooDeep(StringRef JSON) {
  unsigned Depth = 0;
  bool InString = false, Escaped = false;
  for (char C : JSON) {
    if (InString) {
      if (Escaped)
        Escaped = false;
      else if (C == '\\')
        Escaped = true;
      else if (C == '"')
        InString = false;
    } else if (C == '"') {
      InString = true;
    } else if (C == '[' || C == '{') {
      if (++Depth > MaxNesting)
        return true;
    } else if ((C == ']' || C == '}') && Depth) {
      --Depth;
    }
  }
  return false;
}

Expected<JobList> parseJobList(StringRef JSON, StringRef Name) {
  if (nestsTooDeep(JSON))
    return createStringError("%s: not a DTLTO job list: nested more than %u "
                             "levels deep",
                             Name.str().c_str(), MaxNesting);
  Expected<json::Value> Value = json::parse(JSON);
  if (!Value)
    return createStringError("%s: not a DTLTO job list: %s", Name.str().c_str(),
                             toString(Value.takeError()).c_str());
  JobList List;
  json::Path::Root Root("(root)");
  if (!fromJSON(*Value, List, Root)) {
    std::string Message;
    raw_string_ostream OS(Message);
    OS << Root.getError();
    return createStringError("%s: not a DTLTO job list: %s", Name.str().c_str(),
                             Message.c_str());
  }
  if (List.CommonArgs.empty())
    return createStringError("%s: not a DTLTO job list: common.args names "
                             "no compiler",
                             Name.str().c_str());
  return List;
}

Expected<JobList> readJobList(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
      MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buffer)
    return createStringError(Buffer.getError(), "%s: %s", Path.str().c_str(),
                             Buffer.getError().message().c_str());
  Expected<JobList> List = parseJobList((*Buffer)->getBuffer(), Path);
  if (!List)
    return List.takeError();
  // A missing input is the job's own error, reported when it runs.
  for (BackendJob &Job : List->Jobs) {
    for (size_t I = 0; I != Job.Inputs.size(); ++I) {
      uint64_t Size = 0;
      if (I != 1 && !sys::fs::file_size(Job.Inputs[I], Size))
        Job.InputBytes += Size;
    }
  }
  return List;
}

} // namespace ulto
