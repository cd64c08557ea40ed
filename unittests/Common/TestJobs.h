//===- TestJobs.h - Hand-made backend jobs and their files ------*- C++ -*-===//
//
// One-job DTLTO job lists as lld writes them, index shards written by LLVM's
// own bitcode writer, the files of a whole link on disk, and objects.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_UNITTESTS_COMMON_TESTJOBS_H
#define ULTO_UNITTESTS_COMMON_TESTJOBS_H

#include "ulto/Distributor/JobList.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/ModuleSummaryIndex.h"
#include "llvm/ObjectYAML/yaml2obj.h"
#include "llvm/Support/YAMLTraits.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <string>

namespace ulto::test {

/// A job for \p Module importing from \p Import, all under \p Dir, with a
/// shared input (a sample profile).
inline JobList jobList(llvm::StringRef Dir, llvm::StringRef Module,
                       llvm::StringRef Import) {
  auto In = [&](llvm::StringRef Name) { return (Dir + "/" + Name).str(); };
  JobList List;
  List.LinkerOutput = In("app");
  List.CommonArgs = {"clang", "-c", "-O2",
                     "-fprofile-sample-use=" + In("prof.txt")};
  List.CommonInputs = {In("prof.txt")};
  BackendJob Job;
  Job.Inputs = {In(Module), In(Module) + ".1.thinlto.bc", In(Import)};
  Job.Outputs = {In(Module) + ".1.native.o"};
  Job.Args = {Job.Inputs[0], "-fthinlto-index=" + Job.Inputs[1], "-o",
              Job.Outputs[0]};
  List.Jobs = {Job};
  return List;
}

/// A shard naming \p ModulePath (which defines \p GUID) and \p ImportPath
/// (which defines GUID + 1, imported as a declaration if \p Declaration).
inline std::string shard(llvm::StringRef ModulePath, llvm::StringRef ImportPath,
                         llvm::GlobalValue::GUID GUID, uint32_t ImportHash = 2,
                         bool Declaration = false) {
  using namespace llvm;
  ModuleSummaryIndex Index(/*HaveGVs=*/false);
  Index.addModule(ModulePath, ModuleHash{{1, 1, 1, 1, 1}});
  Index.addModule(ImportPath, ModuleHash{{ImportHash, 2, 2, 2, 2}});
  GVSummaryPtrSet Declarations;
  for (auto [Path, G] :
       {std::pair(ModulePath, GUID), std::pair(ImportPath, GUID + 1)}) {
    SmallVector<FunctionSummary::EdgeTy, 0> NoCalls;
    auto Summary = std::make_unique<FunctionSummary>(
        FunctionSummary::makeDummyFunctionSummary(std::move(NoCalls)));
    Summary->setModulePath(Index.getModule(Path)->first());
    if (Declaration && Path == ImportPath)
      Declarations.insert(Summary.get());
    Index.addGlobalValueSummary(Index.getOrInsertValueInfo(G),
                                std::move(Summary));
  }
  std::string Bytes;
  raw_string_ostream OS(Bytes);
  writeIndexToFile(Index, OS, /*ModuleToSummariesForIndex=*/nullptr,
                   &Declarations);
  return Bytes;
}

/// The index shard in \p Bytes; null, failing the test, if it is not one.
inline std::unique_ptr<llvm::ModuleSummaryIndex>
readShard(llvm::StringRef Bytes) {
  llvm::Expected<std::unique_ptr<llvm::ModuleSummaryIndex>> Index =
      llvm::getModuleSummaryIndex(llvm::MemoryBufferRef(Bytes, "shard"));
  if (!Index) {
    ADD_FAILURE() << llvm::toString(Index.takeError());
    return nullptr;
  }
  return std::move(*Index);
}

/// \p ModulePath's shard as lld writes it from the whole link's index: the
/// module's table points at f1 and f2 in \p OtherPath, which the job does not
/// import, so the shard holds the table's summary but not f1's or f2's, and
/// its CFI lists name f1 and f2 all the same (f2 as a definition if
/// \p F2IsDef). g, which nothing references, is left out as lld leaves it.
inline std::string shardWithCfi(llvm::StringRef ModulePath,
                                llvm::StringRef OtherPath, bool F2IsDef) {
  using namespace llvm;
  ModuleSummaryIndex Index(/*HaveGVs=*/false);
  Index.addModule(ModulePath, ModuleHash{{1, 1, 1, 1, 1}});
  Index.addModule(OtherPath, ModuleHash{{2, 2, 2, 2, 2}});
  SmallVector<ValueInfo, 2> Refs;
  for (StringRef Name : {"f1", "f2"}) {
    GlobalValue::GUID GUID = GlobalValue::getGUIDAssumingExternalLinkage(Name);
    SmallVector<FunctionSummary::EdgeTy, 0> NoCalls;
    auto F = std::make_unique<FunctionSummary>(
        FunctionSummary::makeDummyFunctionSummary(std::move(NoCalls)));
    F->setModulePath(Index.getModule(OtherPath)->first());
    Index.addGlobalValueSummary(Index.getOrInsertValueInfo(GUID), std::move(F));
    Refs.push_back(Index.getValueInfo(GUID));
  }
  GlobalValueSummary::GVFlags Flags(
      GlobalValue::ExternalLinkage, GlobalValue::DefaultVisibility,
      /*NotEligibleToImport=*/false, /*Live=*/true, /*IsLocal=*/true,
      /*CanAutoHide=*/false, GlobalValueSummary::Definition);
  auto Table = std::make_unique<GlobalVarSummary>(
      Flags,
      GlobalVarSummary::GVarFlags(/*ReadOnly=*/false, /*WriteOnly=*/false,
                                  /*Constant=*/false,
                                  GlobalObject::VCallVisibilityPublic),
      std::move(Refs));
  Table->setModulePath(Index.getModule(ModulePath)->first());
  GlobalVarSummary *TableSummary = Table.get();
  GlobalValue::GUID TableGUID =
      GlobalValue::getGUIDAssumingExternalLinkage("table");
  Index.addGlobalValueSummary(Index.getOrInsertValueInfo(TableGUID),
                              std::move(Table));
  Index.cfiFunctionDecls().emplace("f1");
  (F2IsDef ? Index.cfiFunctionDefs() : Index.cfiFunctionDecls()).emplace("f2");
  Index.cfiFunctionDefs().emplace("g");

  ModuleToSummariesForIndexTy ForModule;
  ForModule[ModulePath.str()][TableGUID] = TableSummary;
  std::string Bytes;
  raw_string_ostream OS(Bytes);
  writeIndexToFile(Index, OS, &ForModule);
  return Bytes;
}

/// Writes \p Bytes to \p Path.
inline void writeFile(llvm::StringRef Path, llvm::StringRef Bytes) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  ASSERT_FALSE(EC) << Path.str();
  OS << Bytes;
}

/// One link's files under \p Dir, with the given names and contents.
inline JobList writeLink(llvm::StringRef Dir, llvm::StringRef Module,
                         llvm::StringRef Import, llvm::StringRef ImportBytes) {
  JobList List = jobList(Dir, Module, Import);
  const BackendJob &Job = List.Jobs[0];
  writeFile(Job.module(), "module bytes");
  writeFile(Job.imports()[0], ImportBytes);
  writeFile(List.CommonInputs[0], "profile");
  writeFile(Job.indexShard(), shard(Job.module(), Job.imports()[0], 100));
  return List;
}

/// An ELF file's bytes: its header only, of \p Type ("ET_REL") for
/// \p Machine ("EM_X86_64").
inline std::string elfObject(llvm::StringRef Type, llvm::StringRef Machine) {
  std::string YAML = ("--- !ELF\nFileHeader:\n  Class: ELFCLASS64\n"
                      "  Data: ELFDATA2LSB\n  Type: " +
                      Type + "\n  Machine: " + Machine + "\n")
                         .str();
  std::string Bytes;
  llvm::raw_string_ostream OS(Bytes);
  llvm::yaml::Input YIn(YAML);
  EXPECT_TRUE(llvm::yaml::convertYAML(YIn, OS, [](const llvm::Twine &) {}));
  return Bytes;
}

} // namespace ulto::test

#endif // ULTO_UNITTESTS_COMMON_TESTJOBS_H
