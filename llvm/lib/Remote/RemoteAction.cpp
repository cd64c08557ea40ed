//===- RemoteAction.cpp - A backend job as a REAPI action -----------------===//

#include "RemoteAction.h"

#include "InputTree.h"

#include "ulto/Distributor/BackendInputs.h"
#include "ulto/Distributor/CompilerIdentity.h"

#include "llvm/ADT/STLExtras.h"

using namespace llvm;

namespace ulto {

ActionBuilder::ActionBuilder(const RemoteExecutorOptions &Options,
                             bool OutputPaths)
    : Options(Options), OutputPaths(OutputPaths) {
  // Every action names the same platform, its properties in name order.
  auto Properties = Options.Platform;
  llvm::sort(Properties);
  for (const auto &[Name, Value] : Properties) {
    reapi::Platform::Property *P = Platform.add_properties();
    P->set_name(Name);
    P->set_value(Value);
  }
}

Expected<RemoteAction> ActionBuilder::build(const JobList &List,
                                            const BackendJob &Job) {
  RemoteAction A;
  // The CAS digests name the files in the input root too.
  const std::string &Identity = compilerIdentity(List.compiler());
  Expected<BackendInputs> Inputs = collectBackendInputs(
      List, Job, Identity, [&](StringRef Path) -> Expected<std::string> {
        Expected<reapi::Digest> D = Files.get(Path);
        if (!D)
          return D.takeError();
        return D->hash();
      });
  if (!Inputs)
    return Inputs.takeError();
  A.Job = makeHermetic(List, Job, *Inputs);

  std::vector<TreeFile> Tree;
  for (const HermeticJob::File &F : A.Job.Files) {
    Expected<reapi::Digest> D = Files.get(F.LocalPath);
    if (!D)
      return D.takeError();
    Tree.push_back({F.Path, *D, false});
    Blob B;
    B.Digest = *D;
    B.Path = F.LocalPath;
    A.Blobs.push_back(std::move(B));
    A.InputBytes += D->size_bytes();
  }
  Blob Shard;
  Shard.Bytes = A.Job.Shard;
  Shard.Digest = digestOf(Shard.Bytes);
  Tree.push_back({A.Job.ShardPath, Shard.Digest, false});
  A.InputBytes += Shard.Bytes.size();
  A.Blobs.push_back(std::move(Shard));

  std::string Compiler =
      Options.Compiler.empty() ? List.compiler().str() : Options.Compiler;
  if (Options.ShipCompiler) {
    std::call_once(ToolchainOnce, [&] {
      if (Error E = prepareToolchain(List.compiler()))
        ToolchainError = toString(std::move(E));
    });
    if (!Toolchain)
      return createStringError(ToolchainError);
    Compiler = Toolchain->Compiler;
    for (auto [File, D] : zip_equal(Toolchain->Files, ToolchainDigests)) {
      Tree.push_back({File.Path, D, File.Executable});
      Blob B;
      B.Digest = D;
      B.Path = File.LocalPath;
      A.Blobs.push_back(std::move(B));
    }
  }

  A.Compiler = Compiler;
  // The identity is long for an environment variable.
  if (!Identity.empty())
    A.Identity = digestOf(Identity).hash();
  // clang's reproducers of a crash would stay on the worker's disk, named as
  // if they were here; the job rerun here writes them where the user looks.
  A.Job.Args.push_back("-fno-crash-diagnostics");
  InputTree Root = buildInputTree(Tree);
  append_range(A.Blobs, Root.Directories);
  addActionBlobs(A, Root.Root);
  return A;
}

// The Command and the Action of \p A, whose input root is \p Root, as
// blobs; the Action's digest is \p A's.
void ActionBuilder::addActionBlobs(RemoteAction &A, const reapi::Digest &Root) {
  reapi::Command Command;
  Command.add_arguments(A.Compiler);
  for (const std::string &Arg : A.Job.Args)
    Command.add_arguments(Arg);
  if (OutputPaths)
    Command.add_output_paths(A.Job.OutputPath);
  else
    Command.add_output_files(A.Job.OutputPath);
  if (!A.Identity.empty()) {
    reapi::Command::EnvironmentVariable *Variable =
        Command.add_environment_variables();
    Variable->set_name("ULTO_COMPILER_IDENTITY");
    Variable->set_value(A.Identity);
  }
  *Command.mutable_platform() = Platform;
  Blob CommandBlob;
  CommandBlob.Bytes = Command.SerializeAsString();
  CommandBlob.Digest = digestOf(CommandBlob.Bytes);

  reapi::Action Message;
  *Message.mutable_command_digest() = CommandBlob.Digest;
  *Message.mutable_input_root_digest() = Root;
  Message.mutable_timeout()->set_seconds(Options.Timeout.count());
  *Message.mutable_platform() = Platform;
  A.Blobs.push_back(std::move(CommandBlob));
  Blob ActionBlob;
  ActionBlob.Bytes = Message.SerializeAsString();
  ActionBlob.Digest = digestOf(ActionBlob.Bytes);
  A.Digest = ActionBlob.Digest;
  A.Blobs.push_back(std::move(ActionBlob));
}

const std::string &ActionBuilder::compilerIdentity(StringRef Compiler) {
  std::call_once(IdentityOnce, [&] {
    if (!Options.AskVersion)
      return;
    // A compiler that cannot say who it is is named by its path alone, as a
    // farm's workers name theirs.
    Expected<std::string> Who =
        computeCompilerIdentity(Compiler, Options.AskVersion);
    if (Who)
      Identity = std::move(*Who);
    else
      consumeError(Who.takeError());
  });
  return Identity;
}

// Under ToolchainOnce: hashes the shipped files once for all jobs.
Error ActionBuilder::prepareToolchain(StringRef Compiler) {
  Expected<ShippedToolchain> Found = findShippedToolchain(Compiler);
  if (!Found)
    return Found.takeError();
  for (const ShippedFile &File : Found->Files) {
    Expected<reapi::Digest> D = Files.get(File.LocalPath);
    if (!D)
      return D.takeError();
    ToolchainDigests.push_back(*D);
  }
  Toolchain = std::move(*Found);
  return Error::success();
}

} // namespace ulto
