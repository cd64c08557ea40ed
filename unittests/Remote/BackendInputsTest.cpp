//===- BackendInputsTest.cpp - Every input reaches key, action and explain ===//
//
// The one list of what determines a backend object (BackendInputs.h) feeds
// the local cache key, the REAPI action and explain's components. Each kind
// of input is changed in turn, alone, on one link's files: the key and the
// action must change, and explain must name the input. An input added to the
// list and not to one of the three fails here; so does a kind added without
// a way to change it.
//
//===----------------------------------------------------------------------===//

#include "RemoteAction.h"

#include "ulto/Distributor/CacheKey.h"
#include "ulto/Distributor/CompilerIdentity.h"

#include "Common/ErrorText.h"
#include "Common/TestJobs.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <optional>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

// What the key, the action and explain make of one link.
struct Derived {
  std::string Key;
  std::string Action;
  KeyComponents Components;
};

Error probe(const std::string &, StringRef OutputFile) {
  writeFile(OutputFile, "clang version 22.1.8\nInstalledDir: /usr/bin\n");
  return Error::success();
}

Derived derive(const JobList &List) {
  Derived D;
  Expected<std::string> Identity =
      computeCompilerIdentity(List.compiler(), probe);
  EXPECT_EQ(errorText(Identity), "");
  if (!Identity)
    return D;
  FileDigests Digests;
  Expected<std::string> Key =
      computeBackendKey(List, List.Jobs[0], *Identity, Digests,
                        /*Shard=*/std::nullopt, &D.Components);
  EXPECT_EQ(errorText(Key), "");
  D.Key = Key ? *Key : "";

  RemoteExecutorOptions Options;
  Options.Compiler = "clang"; // As the workers name it, wherever it lies here.
  Options.AskVersion = probe;
  ActionBuilder Actions(Options, /*OutputPaths=*/true);
  Expected<RemoteAction> Action = Actions.build(List, List.Jobs[0]);
  EXPECT_EQ(errorText(Action), "");
  D.Action = Action ? Action->Digest.hash() : "";
  return D;
}

// One link's files in \p Dir, all alike but \p Changed.
JobList writeLinkChanging(StringRef Dir, std::optional<BackendInput> Changed) {
  auto Is = [&](BackendInput Input) { return Changed == Input; };
  JobList List = writeLink(Dir, "m.o", "b.o",
                           Is(BackendInput::Imports) ? "import v2" : "import");
  const BackendJob &Job = List.Jobs[0];
  List.CommonArgs[0] = (Dir + "/clang").str();
  writeFile(List.CommonArgs[0],
            Is(BackendInput::Compiler) ? "another build" : "compiler");
  if (!Changed)
    return List;
  switch (*Changed) {
  case BackendInput::Compiler:
  case BackendInput::Imports:
    break;
  case BackendInput::Arguments:
    List.CommonArgs[2] = "-O3";
    break;
  case BackendInput::Module:
    writeFile(Job.module(), "other module bytes");
    break;
  case BackendInput::SharedInputs:
    writeFile(List.CommonInputs[0], "other profile");
    break;
  case BackendInput::Shard:
    writeFile(Job.indexShard(), shard(Job.module(), Job.imports()[0], 100,
                                      /*ImportHash=*/2, /*Declaration=*/true));
    break;
  }
  return List;
}

// What explain says when only \p Input changed in a link in \p Dir.
std::string reason(BackendInput Input, StringRef Dir) {
  switch (Input) {
  case BackendInput::Compiler:
    return "the compiler changed";
  case BackendInput::Arguments:
    return "the code generation options changed: removed -O2; added -O3";
  case BackendInput::Module:
    return "its own module changed";
  case BackendInput::Imports:
    return ("an imported module changed: " + Dir + "/b.o").str();
  case BackendInput::SharedInputs:
    return "a shared input changed";
  case BackendInput::Shard:
    return "the thin link's decisions for it changed (its index shard)";
  }
  return "";
}

TEST(BackendInputsTest, EachInputReachesKeyActionAndExplanation) {
  unittest::TempDir Dir("inputs", /*Unique=*/true);
  Derived Base = derive(writeLinkChanging(Dir.path(), std::nullopt));
  ASSERT_EQ(Base.Key.size(), 64u);
  ASSERT_EQ(Base.Action.size(), 64u);
  EXPECT_TRUE(Base.Components ==
              derive(writeLinkChanging(Dir.path(), std::nullopt)).Components);

  for (unsigned I = 0; I != NumBackendInputs; ++I) {
    BackendInput Input = BackendInput(I);
    SCOPED_TRACE(backendInputName(Input).str());
    Derived Changed = derive(writeLinkChanging(Dir.path(), Input));
    EXPECT_NE(Changed.Key, Base.Key);
    EXPECT_NE(Changed.Action, Base.Action);
    EXPECT_EQ(explainRun(Base.Components, Changed.Components),
              reason(Input, Dir.path()));
  }
}

TEST(BackendInputsTest, WhereTheLinkLiesIsNoInput) {
  unittest::TempDir One("one", /*Unique=*/true), Two("two", true);
  Derived A = derive(writeLinkChanging(One.path(), std::nullopt));
  Derived B = derive(writeLinkChanging(Two.path(), std::nullopt));
  EXPECT_EQ(A.Key, B.Key);
  EXPECT_EQ(A.Action, B.Action);
}

TEST(BackendInputsTest, FilesAreNamedWithTheirRoles) {
  unittest::TempDir Dir("roles", /*Unique=*/true);
  JobList List = writeLinkChanging(Dir.path(), std::nullopt);
  FileDigests Digests;
  Expected<BackendInputs> Inputs =
      collectBackendInputs(List, List.Jobs[0], "clang-22 id",
                           [&](StringRef Path) { return Digests.hex(Path); });
  ASSERT_EQ(errorText(Inputs), "");
  // The import ("b.o") sorts before the module ("m.o").
  ASSERT_EQ(Inputs->Files.Files.size(), 3u);
  EXPECT_EQ(Inputs->Files.Files[0].Role, PathRole::Import);
  EXPECT_EQ(Inputs->Files.Files[1].Role, PathRole::Module);
  EXPECT_EQ(Inputs->Files.Files[2].Role, PathRole::Common);
  EXPECT_EQ(Inputs->ModuleName, Inputs->Files.Files[1].Name);
  EXPECT_EQ(Inputs->Compiler, "clang-22 id");
  EXPECT_EQ(Inputs->Args, normaliseArgs(List, List.Jobs[0]));
}

} // namespace
