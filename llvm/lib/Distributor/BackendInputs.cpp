//===- BackendInputs.cpp - What determines a backend job's object ---------===//

#include "ulto/Distributor/BackendInputs.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace ulto {

StringRef backendInputName(BackendInput Input) {
  switch (Input) {
  case BackendInput::Compiler:
    return "compiler";
  case BackendInput::Arguments:
    return "code generation options";
  case BackendInput::Module:
    return "module";
  case BackendInput::Imports:
    return "imported modules";
  case BackendInput::SharedInputs:
    return "shared inputs";
  case BackendInput::Shard:
    return "index shard";
  }
  llvm_unreachable("unknown backend input");
}

Expected<BackendInputs> collectBackendInputs(const JobList &List,
                                             const BackendJob &Job,
                                             StringRef CompilerIdentity,
                                             ContentHexFunction ContentHex,
                                             std::optional<StringRef> Shard) {
  BackendInputs Inputs;
  Inputs.Compiler = CompilerIdentity.str();
  Inputs.Args = normaliseArgs(List, Job);
  Expected<ContentNames> Names = nameByContent(List, Job, ContentHex);
  if (!Names)
    return Names.takeError();
  Inputs.Files = std::move(*Names);
  Inputs.ModuleName = Inputs.Files.NameOf.lookup(Job.module());
  Expected<std::string> Renamed =
      renameShardByContent(Job, Inputs.Files, Shard);
  if (!Renamed)
    return Renamed.takeError();
  Inputs.Shard = std::move(*Renamed);
  return Inputs;
}

std::vector<std::string> replaceJobPaths(
    const JobList &List, const BackendJob &Job,
    function_ref<std::string(StringRef Path, PathRole Role, size_t Index)>
        Replacement) {
  std::vector<std::pair<StringRef, std::string>> Paths;
  Paths.push_back(
      {Job.module(), Replacement(Job.module(), PathRole::Module, 0)});
  Paths.push_back(
      {Job.indexShard(), Replacement(Job.indexShard(), PathRole::Shard, 0)});
  for (auto [I, Import] : enumerate(Job.imports()))
    Paths.push_back({Import, Replacement(Import, PathRole::Import, I)});
  Paths.push_back(
      {Job.output(), Replacement(Job.output(), PathRole::Output, 0)});
  for (auto [I, Input] : enumerate(List.CommonInputs))
    Paths.push_back({Input, Replacement(Input, PathRole::Common, I)});

  std::vector<std::string> Args;
  auto Replace = [&](StringRef Arg) {
    for (auto &[Path, New] : Paths) {
      if (Arg == Path)
        return New;
      if (Arg.ends_with(Path) && Arg.drop_back(Path.size()).ends_with("="))
        return Arg.drop_back(Path.size()).str() + New;
    }
    return Arg.str();
  };
  for (StringRef Arg : ArrayRef(List.CommonArgs).drop_front())
    Args.push_back(Replace(Arg));
  for (StringRef Arg : Job.Args)
    Args.push_back(Replace(Arg));
  return Args;
}

std::vector<std::string> normaliseArgs(const JobList &List,
                                       const BackendJob &Job) {
  return replaceJobPaths(
      List, Job, [](StringRef, PathRole Role, size_t Index) -> std::string {
        switch (Role) {
        case PathRole::Module:
          return "%module";
        case PathRole::Shard:
          return "%shard";
        case PathRole::Import:
          return "%import";
        case PathRole::Output:
          return "%output";
        case PathRole::Common:
          return "%common" + std::to_string(Index);
        }
        llvm_unreachable("unknown path role");
      });
}

} // namespace ulto
