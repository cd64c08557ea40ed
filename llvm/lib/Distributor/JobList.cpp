//===- JobList.cpp - The backend jobs of a distributed ThinLTO link -------===//

#include "ulto/Distributor/JobList.h"
#include "ulto/Support/TrustedFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

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

// A path as the file system would resolve it from the linker's directory,
// for comparing names ("./a.o" is "a.o").
// The file \p Path names, as the kernel finds it: its directory's real path
// (links and "..", which name the same directory other ways; made absolute
// by the text when the directory does not exist), then its name; each
// directory resolved once, in \p Real.
static std::string normalized(StringRef Path, StringMap<std::string> &Real) {
  StringRef Parent = sys::path::parent_path(Path);
  auto [It, New] = Real.try_emplace(Parent);
  if (New) {
    SmallString<256> Dir(Parent.empty() ? "." : Parent), Resolved;
    if (sys::fs::real_path(Dir, Resolved)) {
      sys::fs::make_absolute(Dir);
      sys::path::remove_dots(Dir, /*remove_dot_dot=*/true);
      Resolved = Dir;
    }
    It->second = std::string(Resolved);
  }
  SmallString<256> P(It->second);
  sys::path::append(P, sys::path::filename(Path));
  return std::string(P);
}

// Whether \p Command writes \p Output: its last -o names it. Without -o a
// compiler writes beside its input (clang -c m.o would write m.o itself).
static bool writesOutput(ArrayRef<std::string> Command, StringRef Output) {
  for (size_t I = Command.size(); I-- > 1;) {
    if (Command[I - 1] == "-o")
      return Command[I] == Output;
    if (Command[I] == "-o")
      return false;
    if (StringRef(Command[I]).starts_with("-o") &&
        StringRef(Command[I]).drop_front(2) == Output)
      return true;
  }
  return false;
}

// Outputs are files ulto dist may write and, on failure, remove: never an
// input, never two jobs' at once, and what the job's command writes.
static Error checkOutputNames(const JobList &List) {
  StringMap<size_t> Inputs, Outputs;
  StringMap<std::string> Real;
  for (StringRef Input : List.CommonInputs)
    Inputs.try_emplace(normalized(Input, Real), 0);
  for (size_t I = 0; I != List.Jobs.size(); ++I)
    for (StringRef Input : List.Jobs[I].Inputs)
      Inputs.try_emplace(normalized(Input, Real), I + 1);
  for (size_t I = 0; I != List.Jobs.size(); ++I) {
    StringRef Output = List.Jobs[I].output();
    std::string Name = normalized(Output, Real);
    if (Inputs.count(Name))
      return createStringError("job %zu's output '%s' is also an input", I + 1,
                               Output.str().c_str());
    auto [It, New] = Outputs.try_emplace(Name, I + 1);
    if (!New)
      return createStringError("job %zu's output '%s' is job %zu's output too",
                               I + 1, Output.str().c_str(), It->second);
  }
  for (size_t I = 0; I != List.Jobs.size(); ++I)
    if (!writesOutput(List.command(List.Jobs[I]), List.Jobs[I].output()))
      return createStringError("job %zu's command does not write its output "
                               "'%s': its last -o must name it",
                               I + 1, List.Jobs[I].output().str().c_str());
  return Error::success();
}

// LLVM 22 writes a module path with a byte above 127 into the index shards
// corrupted (that byte and those after it), so the job's backend cannot find
// its modules ("Error loading imported file ..."): said before any job runs,
// naming the file.
static Error checkModulePaths(const JobList &List) {
  for (size_t I = 0; I != List.Jobs.size(); ++I) {
    const BackendJob &Job = List.Jobs[I];
    SmallVector<StringRef, 8> Modules = {Job.module()};
    llvm::append_range(Modules, Job.imports());
    for (StringRef Module : Modules)
      if (!isASCII(Module))
        return createStringError(
            "module '%s' has a path that is not ASCII: LLVM 22 writes it "
            "corrupted into the index shards, and no backend could load it; "
            "rename the file, link with ld.ulto --lto=distributed (which "
            "names such inputs for the link), or link with --lto=thin",
            Module.str().c_str());
  }
  return Error::success();
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
  for (auto Check : {checkOutputNames, checkModulePaths})
    if (Error E = Check(List))
      return createStringError("%s: %s", Name.str().c_str(),
                               toString(std::move(E)).c_str());
  return List;
}

Expected<JobList> readJobList(StringRef Path) {
  // Its commands run as the user (TrustedFile.h).
  Expected<std::unique_ptr<MemoryBuffer>> Buffer = readTrustedFile(Path);
  if (!Buffer)
    return Buffer.takeError();
  Expected<JobList> List = parseJobList((*Buffer)->getBuffer(), Path);
  if (!List)
    return List.takeError();
  if (ErrorOr<std::string> Compiler = sys::findProgramByName(List->compiler()))
    if (Error E = checkTrustedProgram(*Compiler))
      return createStringError("%s: the jobs' compiler %s", Path.str().c_str(),
                               toString(std::move(E)).c_str());
  // ulto dist writes its outputs and removes them after a failure: a file
  // already there must be an object (left by an earlier link) or empty, not
  // a file of the user's that a job list names by mistake.
  for (size_t I = 0; I != List->Jobs.size(); ++I) {
    StringRef Output = List->Jobs[I].output();
    uint64_t Size = 0;
    file_magic Magic;
    if (sys::fs::file_size(Output, Size) || Size == 0 ||
        identify_magic(Output, Magic))
      continue;
    if (Magic != file_magic::elf_relocatable &&
        Magic != file_magic::coff_object && Magic != file_magic::macho_object)
      return createStringError("%s: job %zu's output '%s' exists and is not "
                               "an object file; ulto dist does not replace it",
                               Path.str().c_str(), I + 1, Output.str().c_str());
  }
  // A missing module is the job's own error, reported when it runs.
  for (BackendJob &Job : List->Jobs)
    if (sys::fs::file_size(Job.module(), Job.ModuleBytes))
      Job.ModuleBytes = 0;
  return List;
}

} // namespace ulto
