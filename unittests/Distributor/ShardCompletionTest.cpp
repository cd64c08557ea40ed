//===- ShardCompletionTest.cpp - What lld's index shards leave out --------===//
//
// ShardCompletion on links made here: bitcode written by LLVM's ThinLTO
// writer, shards written as lld writes them (the thin link's index of the
// ThinLTO halves, each shard its module's summaries and its imports').
//
//===----------------------------------------------------------------------===//

#include "ulto/Distributor/ShardCompletion.h"

#include "Common/TestJobs.h"
#include "Common/UnifiedTestIR.h"
#include "ulto/Support/ReaderCrashRecovery.h"
#include "ulto/UnifiedLTO/UnifiedBitcodeWriter.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Testing/Support/SupportHelpers.h"

#include <random>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

constexpr char Triple[] = R"(
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
)";

/// shape.o: a vtable with type metadata, which the split puts in the regular
/// LTO half, and a function in the ThinLTO half.
constexpr char ShapeIR[] = R"(
@vt = dso_local constant [1 x ptr] [ptr @area], !type !0
define dso_local i32 @area(ptr %this) {
  ret i32 1
}
!0 = !{i64 0, !"_ZTS5Shape"}
)";

/// make.o: a constructor storing the vtable, and a call of count().
constexpr char MakeIR[] = R"(
@vt = external global [1 x ptr]
declare i32 @count()
define dso_local void @make(ptr %p) {
  store ptr @vt, ptr %p
  %n = call i32 @count()
  ret void
}
)";

/// counter.o: count(), which make.o imports, and the variable it reads.
constexpr char CounterIR[] = R"(
@counter = dso_local global i32 0
define dso_local i32 @count() {
  %n = load i32, ptr @counter
  ret i32 %n
}
)";

/// counter.o again, count() an alias of its body, as clang emits a C1
/// constructor: a job that imports count() copies the body.
constexpr char AliasedCounterIR[] = R"(
@counter = dso_local global i32 0
@count = dso_local alias i32 (), ptr @countBody
define dso_local i32 @countBody() {
  %n = load i32, ptr @counter
  ret i32 %n
}
)";

GlobalValue::GUID guid(StringRef Name) {
  return GlobalValue::getGUIDAssumingExternalLinkage(Name);
}

/// A link of bitcode files in a temporary directory, with one job each.
class Link {
public:
  Link() : Dir("shard-completion", /*Unique=*/true) {}

  /// Writes \p IR as clang -flto=thin -funified-lto writes it, as \p Name.
  void addModule(StringRef Name, StringRef IR) {
    LLVMContext Context;
    SMDiagnostic Diagnostic;
    std::unique_ptr<Module> M = parseAssemblyString(
        (Twine(Triple) + IR + UnifiedFlags).str(), Diagnostic, Context);
    ASSERT_TRUE(M) << Diagnostic.getMessage().str();
    std::string Bytes;
    raw_string_ostream OS(Bytes);
    writeThinLTOBitcode(*M, OS, nullptr, /*PreserveUseListOrder=*/false);
    std::string Path = path(Name);
    writeFile(Path, Bytes);
    Modules.push_back(Path);
    Buffers.push_back(MemoryBuffer::getMemBufferCopy(Bytes, Path));
    for (BitcodeModule &BM : cantFail(getBitcodeModuleList(*Buffers.back()))) {
      if (cantFail(BM.getLTOInfo()).IsThinLTO) {
        ASSERT_FALSE(errorToBool(BM.readSummary(Index, Path)));
      }
    }
  }

  /// The shards as lld writes them, with \p Imports[M] the globals module M
  /// imports (from the module that defines them) and every definition marked
  /// dso_local unless \p NotLocal names it; and the job list.
  JobList write(const std::map<std::string, std::vector<std::string>> &Imports,
                StringRef NotLocal = "") {
    JobList List;
    List.LinkerOutput = path("app");
    List.CommonArgs = {"clang", "-c"};
    for (auto &[G, Summaries] : Index)
      for (const std::unique_ptr<GlobalValueSummary> &S :
           Summaries.getSummaryList()) {
        S->setLive(true);
        S->setDSOLocal(G != guid(NotLocal));
      }
    Index.setWithDSOLocalPropagation();
    for (const std::string &Module : Modules) {
      ModuleToSummariesForIndexTy ForModule;
      BackendJob Job;
      Job.Inputs = {Module, Module + ".thinlto.bc"};
      for (auto &[G, Summaries] : Index)
        for (const std::unique_ptr<GlobalValueSummary> &S :
             Summaries.getSummaryList()) {
          std::string Name = path(sys::path::filename(S->modulePath()));
          auto It = Imports.find(sys::path::filename(Module).str());
          bool Imported = It != Imports.end() &&
                          llvm::any_of(It->second, [&](const std::string &N) {
                            return guid(N) == G;
                          });
          if (S->modulePath() == Module || Imported)
            ForModule[S->modulePath().str()][G] = S.get();
          if (Imported && !llvm::is_contained(Job.Inputs, Name))
            Job.Inputs.push_back(Name);
        }
      std::string Bytes;
      raw_string_ostream OS(Bytes);
      writeIndexToFile(Index, OS, &ForModule);
      writeFile(Job.indexShard(), Bytes);
      Job.Outputs = {Module + ".native.o"};
      Job.Args = {Module, "-fthinlto-index=" + Job.Inputs[1], "-o",
                  Job.Outputs[0]};
      List.Jobs.push_back(std::move(Job));
    }
    return List;
  }

  std::string dir() const { return Dir.path().str(); }
  std::string path(StringRef Name) const {
    return (Dir.path() + "/" + Name).str();
  }

private:
  unittest::TempDir Dir;
  ModuleSummaryIndex Index{/*HaveGVs=*/false};
  std::vector<std::string> Modules;
  std::vector<std::unique_ptr<MemoryBuffer>> Buffers;
};

std::string contents(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  return Buffer ? (*Buffer)->getBuffer().str() : "";
}

/// The summaries the shard at \p Path holds for \p Name.
std::vector<const GlobalValueSummary *>
summariesOf(const ModuleSummaryIndex &Index, StringRef Name) {
  std::vector<const GlobalValueSummary *> Result;
  if (ValueInfo VI = Index.getValueInfo(guid(Name)))
    for (const std::unique_ptr<GlobalValueSummary> &S : VI.getSummaryList())
      Result.push_back(S.get());
  return Result;
}

/// Every job's shard completed and written, as ulto dist does for jobs that
/// run; the errors.
std::vector<std::string> completeAll(const JobList &List) {
  ShardCompletion Completion(List);
  std::vector<std::string> Errors;
  for (size_t I = 0; I != List.Jobs.size(); ++I) {
    Expected<std::optional<std::string>> Shard = Completion.complete(I);
    if (!Shard)
      Errors.push_back(toString(Shard.takeError()));
    else if (*Shard)
      if (Error E = Completion.write(I, **Shard))
        Errors.push_back(toString(std::move(E)));
  }
  return Errors;
}

TEST(ShardCompletionTest, AddsWhatTheModuleReferencesAndTheShardLacks) {
  Link L;
  L.addModule("shape.o", ShapeIR);
  L.addModule("make.o", MakeIR);
  L.addModule("counter.o", CounterIR);
  JobList List = L.write({{"make.o", {"count"}}});
  std::string ShapeShard = contents(List.Jobs[0].indexShard());
  std::string CounterShard = contents(List.Jobs[2].indexShard());
  // The premise: lld's shard for make.o has count() but neither the vtable
  // (in shape.o's regular half) nor the variable count() reads.
  std::unique_ptr<ModuleSummaryIndex> Before =
      readShard(contents(List.Jobs[1].indexShard()));
  ASSERT_TRUE(Before);
  EXPECT_EQ(summariesOf(*Before, "count").size(), 1u);
  EXPECT_TRUE(summariesOf(*Before, "vt").empty());
  EXPECT_TRUE(summariesOf(*Before, "counter").empty());

  EXPECT_EQ(completeAll(List), std::vector<std::string>());
  std::unique_ptr<ModuleSummaryIndex> After =
      readShard(contents(List.Jobs[1].indexShard()));
  ASSERT_TRUE(After);
  StringRef Make = List.Jobs[1].module();
  for (StringRef Name : {"vt", "counter"}) {
    SCOPED_TRACE(Name.str());
    std::vector<const GlobalValueSummary *> Added = summariesOf(*After, Name);
    ASSERT_EQ(Added.size(), 1u);
    EXPECT_EQ(Added[0]->modulePath().str(), Make.str());
    EXPECT_TRUE(Added[0]->isDSOLocal());
    EXPECT_TRUE(Added[0]->isLive());
    EXPECT_TRUE(isa<GlobalVarSummary>(Added[0]));
  }
  // What was there is still there, count() still imported from counter.o.
  std::vector<const GlobalValueSummary *> Count = summariesOf(*After, "count");
  ASSERT_EQ(Count.size(), 1u);
  EXPECT_EQ(Count[0]->modulePath().str(), List.Jobs[2].module().str());
  EXPECT_EQ(summariesOf(*After, "make").size(), 1u);
  EXPECT_TRUE(After->withDSOLocalPropagation());

  // Shards that miss nothing are left as they were.
  EXPECT_EQ(contents(List.Jobs[0].indexShard()), ShapeShard);
  EXPECT_EQ(contents(List.Jobs[2].indexShard()), CounterShard);

  // Done again, nothing changes.
  std::string Completed = contents(List.Jobs[1].indexShard());
  EXPECT_EQ(completeAll(List), std::vector<std::string>());
  EXPECT_EQ(contents(List.Jobs[1].indexShard()), Completed);
}

// lld writes an imported alias without its aliasee: what the aliasee's body
// refers to is the job's too.
TEST(ShardCompletionTest, AddsWhatAnImportedAliasesBodyReferences) {
  Link L;
  L.addModule("shape.o", ShapeIR);
  L.addModule("make.o", MakeIR);
  L.addModule("counter.o", AliasedCounterIR);
  JobList List = L.write({{"make.o", {"count"}}});
  std::unique_ptr<ModuleSummaryIndex> Before =
      readShard(contents(List.Jobs[1].indexShard()));
  ASSERT_TRUE(Before);
  std::vector<const GlobalValueSummary *> Count = summariesOf(*Before, "count");
  ASSERT_EQ(Count.size(), 1u);
  EXPECT_TRUE(isa<AliasSummary>(Count[0]));
  EXPECT_TRUE(summariesOf(*Before, "countBody").empty());
  EXPECT_TRUE(summariesOf(*Before, "counter").empty());

  EXPECT_EQ(completeAll(List), std::vector<std::string>());
  std::unique_ptr<ModuleSummaryIndex> After =
      readShard(contents(List.Jobs[1].indexShard()));
  ASSERT_TRUE(After);
  std::vector<const GlobalValueSummary *> Counter =
      summariesOf(*After, "counter");
  ASSERT_EQ(Counter.size(), 1u);
  EXPECT_TRUE(Counter[0]->isDSOLocal());
  EXPECT_EQ(Counter[0]->modulePath().str(), List.Jobs[1].module().str());
}

TEST(ShardCompletionTest, NothingForAGlobalSomeCopyCallsPreemptible) {
  Link L;
  L.addModule("shape.o", ShapeIR);
  L.addModule("make.o", MakeIR);
  L.addModule("counter.o", CounterIR);
  // The thin link did not find counter defined in the output.
  JobList List = L.write({{"make.o", {"count"}}}, "counter");
  EXPECT_EQ(completeAll(List), std::vector<std::string>());
  std::unique_ptr<ModuleSummaryIndex> After =
      readShard(contents(List.Jobs[1].indexShard()));
  ASSERT_TRUE(After);
  EXPECT_TRUE(summariesOf(*After, "counter").empty());
  EXPECT_EQ(summariesOf(*After, "vt").size(), 1u);
}

TEST(ShardCompletionTest, NothingForARegularHalfCompiledPreemptible) {
  Link L;
  std::string Preemptible = ShapeIR;
  Preemptible.replace(Preemptible.find("dso_local"), strlen("dso_local"), "");
  L.addModule("shape.o", Preemptible);
  L.addModule("make.o", MakeIR);
  JobList List = L.write({});
  std::string MakeShard = contents(List.Jobs[1].indexShard());
  EXPECT_EQ(completeAll(List), std::vector<std::string>());
  EXPECT_EQ(contents(List.Jobs[1].indexShard()), MakeShard);
}

TEST(ShardCompletionTest, InputsThatAreNotBitcodeCompleteNothing) {
  Link L;
  L.addModule("shape.o", ShapeIR);
  L.addModule("make.o", MakeIR);
  JobList List = L.write({});
  std::string MakeShard = contents(List.Jobs[1].indexShard());
  // The module whose references count is not bitcode: nothing to add.
  writeFile(List.Jobs[1].module(), "not bitcode");
  EXPECT_EQ(completeAll(List), std::vector<std::string>());
  EXPECT_EQ(contents(List.Jobs[1].indexShard()), MakeShard);
  // A shard that is not one, and one that is missing: left alone.
  writeFile(List.Jobs[0].indexShard(), "not a shard");
  ASSERT_FALSE(sys::fs::remove(List.Jobs[1].indexShard()));
  EXPECT_EQ(completeAll(List), std::vector<std::string>());
  EXPECT_EQ(contents(List.Jobs[0].indexShard()), "not a shard");
  EXPECT_FALSE(sys::fs::exists(List.Jobs[1].indexShard()));
}

TEST(ShardCompletionTest, AShardThatCannotBeWrittenIsLeftAsItWas) {
  Link L;
  L.addModule("shape.o", ShapeIR);
  L.addModule("make.o", MakeIR);
  JobList List = L.write({});
  ShardCompletion Completion(List);
  // The directory of the shards is gone, a file in its place, by the time
  // the job runs.
  std::string Dir = L.dir(), Moved = L.dir() + ".moved";
  ASSERT_FALSE(sys::fs::rename(Dir, Moved));
  writeFile(Dir, "not a directory");
  Expected<std::optional<std::string>> Shard = Completion.complete(1);
  ASSERT_TRUE(Shard && *Shard);
  std::string Message = toString(Completion.write(1, **Shard));
  EXPECT_TRUE(StringRef(Message).starts_with(
      ("cannot write the completed index shard '" + List.Jobs[1].indexShard() +
       "': ")
          .str()))
      << Message;
  EXPECT_TRUE(StringRef(Message).ends_with(
      "; its backend reaches the globals the link defines but it does not "
      "import as if they might not be defined in the output"))
      << Message;
  ASSERT_FALSE(sys::fs::remove(Dir));
  ASSERT_FALSE(sys::fs::rename(Moved, Dir));
  Expected<std::optional<std::string>> Other = Completion.complete(0);
  ASSERT_TRUE(bool(Other));
  EXPECT_FALSE(*Other);
}

// A shard that is empty, cut or corrupt is no index: its job cannot run
// (lld's empty shard would have the backend compile without its index).
TEST(ShardCompletionTest, AShardThatCannotBeReadIsSaidOnce) {
  Link L;
  L.addModule("shape.o", ShapeIR);
  L.addModule("make.o", MakeIR);
  JobList List = L.write({});
  writeFile(List.Jobs[1].indexShard(), "");
  ShardCompletion Completion(List);
  EXPECT_EQ(toString(Completion.unreadable(0)), "");
  EXPECT_EQ(toString(Completion.unreadable(1)),
            ("its index shard cannot be read: " + List.Jobs[1].indexShard() +
             ": not a ThinLTO index: file too small to contain bitcode header")
                .str());
}

// Seeded mutations of a real shard (byte flips, insertions, cuts): each is
// read, and completed if it reads, and none takes the process down. LLVM
// 22's reader faults or calls report_fatal_error on some of them, as clang-22
// does; one that names other modules than the job's made completion read
// through ModuleSummaryIndex::getModule's end() (seed 36).
TEST(ShardCompletionTest, MutatedShardsFailTheirJobNeverTheProcess) {
  enableReaderCrashRecovery();
  Link L;
  L.addModule("shape.o", ShapeIR);
  L.addModule("make.o", MakeIR);
  L.addModule("counter.o", CounterIR);
  JobList List = L.write({{"make.o", {"count"}}});
  const std::string Shard = List.Jobs[1].indexShard().str();
  const std::string Original = contents(Shard);
  unsigned Unreadable = 0;
  for (unsigned Seed = 0; Seed != 1000; ++Seed) {
    std::mt19937 Random(Seed);
    std::string Bytes = Original;
    for (unsigned Edits = 1u << (Random() % 4); Edits-- && !Bytes.empty();) {
      size_t At = Random() % Bytes.size();
      switch (Random() % 4) {
      case 0:
        Bytes.resize(At);
        break;
      case 1:
        Bytes.insert(At, 1, char(Random()));
        break;
      default:
        Bytes[At] = char(Random());
      }
    }
    writeFile(Shard, Bytes);
    ShardCompletion Completion(List);
    if (Error E = Completion.unreadable(1)) {
      ++Unreadable;
      EXPECT_TRUE(StringRef(toString(std::move(E)))
                      .starts_with("its index shard cannot be read: "));
      continue;
    }
    consumeError(Completion.complete(1).takeError());
  }
  // Most mutations make no index.
  EXPECT_GT(Unreadable, 900u) << Unreadable;
}

} // namespace
