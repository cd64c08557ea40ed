//===- LinkTestInputs.h - Link inputs built in memory -----------*- C++ -*-===//
//
// Link inputs made the way clang and llvm-ar make them, from IR text: LLVM's
// WriteBitcodeToFile (a plain module, as `clang -flto=full` without a
// summary), ThinLTOBitcodeWriterPass (what `clang -flto=thin` writes: split
// into a ThinLTO and a regular half when the module has type metadata and a
// module ID) and writeArchive. Files go to a fresh directory per test.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_UNITTESTS_LINK_LINKTESTINPUTS_H
#define ULTO_UNITTESTS_LINK_LINKTESTINPUTS_H

#include "Common/FatObjects.h"
#include "Common/UnifiedTestIR.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/IPO/ThinLTOBitcodeWriter.h"

#include "gtest/gtest.h"

#include <string>
#include <utility>
#include <vector>

namespace ulto::test {

/// What clang writes first (lto::InputFile needs the data layout).
inline constexpr char TargetHeader[] =
    R"(target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
)";

/// A module defining Defs (i32 functions) and calling Refs.
inline std::string functionsIR(const std::vector<std::string> &Defs,
                               const std::vector<std::string> &Refs = {},
                               bool WeakRefs = false) {
  std::string IR = TargetHeader;
  for (const std::string &R : Refs)
    IR += "declare " + std::string(WeakRefs ? "extern_weak " : "") + "i32 @" +
          R + "()\n";
  for (const std::string &D : Defs) {
    IR += "define i32 @" + D + "() {\n";
    for (const std::string &R : Refs)
      IR += "  %" + R + " = call i32 @" + R + "()\n";
    IR += "  ret i32 0\n}\n";
  }
  return IR;
}

class LinkTest : public testing::Test {
protected:
  // ThinLTOBitcodeWriter scans module asm with the target's asm parser when
  // it promotes locals, and crashes if no target is registered.
  static void SetUpTestSuite() {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmParsers();
    llvm::InitializeAllAsmPrinters();
  }

  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("ulto-link-test", Dir));
  }
  void TearDown() override { llvm::sys::fs::remove_directories(Dir); }

  std::unique_ptr<llvm::Module> parse(llvm::StringRef IR) {
    llvm::SMDiagnostic Diag;
    std::unique_ptr<llvm::Module> M = llvm::parseAssemblyString(IR, Diag, Ctx);
    if (!M)
      ADD_FAILURE() << Diag.getMessage().str() << "\n" << IR.str();
    return M;
  }

  /// `clang -flto=full` without a summary.
  std::string regularBitcode(llvm::StringRef IR) {
    std::unique_ptr<llvm::Module> M = parse(IR);
    std::string Out;
    if (!M)
      return Out;
    llvm::raw_string_ostream OS(Out);
    llvm::WriteBitcodeToFile(*M, OS);
    return Out;
  }

  /// `clang -flto=thin`: LLVM's ThinLTO writer, which splits when it can.
  std::string thinBitcode(llvm::StringRef IR) {
    std::unique_ptr<llvm::Module> M = parse(IR);
    std::string Out;
    if (!M)
      return Out;
    llvm::LoopAnalysisManager LAM;
    llvm::FunctionAnalysisManager FAM;
    llvm::CGSCCAnalysisManager CGAM;
    llvm::ModuleAnalysisManager MAM;
    llvm::PassBuilder PB;
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    llvm::raw_string_ostream OS(Out);
    llvm::ModulePassManager MPM;
    MPM.addPass(llvm::ThinLTOBitcodeWriterPass(OS, /*ThinLinkOS=*/nullptr));
    MPM.run(*M, MAM);
    return Out;
  }

  /// An ELF object of the module's native code; with \p FatBitcode, as
  /// `clang -ffat-lto-objects` writes it: that bitcode in .llvm.lto.
  std::string elfObject(llvm::StringRef IR, llvm::StringRef FatBitcode = "") {
    std::unique_ptr<llvm::Module> M = parse(IR);
    return M ? test::elfObject(*M, FatBitcode) : "";
  }

  /// Writes Data to Name in the test directory; returns the path.
  std::string file(llvm::StringRef Name, llvm::StringRef Data) {
    std::string Path = path(Name);
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC);
    EXPECT_FALSE(EC) << Path << ": " << EC.message();
    OS << Data;
    return Path;
  }

  /// An archive of (member name, data), with llvm-ar's symbol index unless
  /// WithIndex is false.
  std::string
  archive(llvm::StringRef Name,
          const std::vector<std::pair<std::string, std::string>> &Members,
          bool WithIndex = true) {
    std::vector<llvm::NewArchiveMember> NewMembers;
    for (const auto &[MemberName, Data] : Members)
      NewMembers.emplace_back(llvm::MemoryBufferRef(Data, MemberName));
    std::string Path = path(Name);
    llvm::Error E = llvm::writeArchive(
        Path, NewMembers,
        WithIndex ? llvm::SymtabWritingMode::NormalSymtab
                  : llvm::SymtabWritingMode::NoSymtab,
        llvm::object::Archive::K_GNU, /*Deterministic=*/true, /*Thin=*/false);
    if (E)
      ADD_FAILURE() << llvm::toString(std::move(E));
    return Path;
  }

  std::string path(llvm::StringRef Name) const {
    llvm::SmallString<256> P(Dir);
    llvm::sys::path::append(P, Name);
    return std::string(P);
  }

  llvm::SmallString<256> Dir;
  llvm::LLVMContext Ctx;
};

} // namespace ulto::test

#endif
