//===- UnifiedPreLinkTest.cpp ---------------------------------------------===//

#include "ulto/Frontend/UnifiedPreLink.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticBuffer.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/IRObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "gtest/gtest.h"

using namespace clang;
using namespace llvm;
using namespace ulto;

namespace {

// Only internal definitions, with vtables that carry type metadata.
constexpr const char *Source = R"(
namespace { struct A { virtual ~A() = default; virtual int f() { return 1; } }; }
static A *volatile Keep = new A;
)";

class UnifiedPreLinkTest : public ::testing::Test {
protected:
  void SetUp() override {
    InitializeAllTargets();
    InitializeAllTargetMCs();
    InitializeAllAsmPrinters();
    InitializeAllAsmParsers();
    ASSERT_FALSE(sys::fs::createUniqueDirectory("ulto-prelink", Dir));
    sys::path::append(Input, Dir, "internal.cpp");
    sys::path::append(Output, Dir, "internal.o");
    std::error_code EC;
    raw_fd_ostream(Input, EC) << Source;
    ASSERT_FALSE(EC);
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  // Builds the invocation clang's driver makes for -flto -funified-lto;
  // \p Extra may name another action than -emit-llvm-bc.
  std::unique_ptr<CompilerInstance> compiler(ArrayRef<const char *> Extra) {
    const bool OtherAction = llvm::any_of(
        Extra, [](StringRef A) { return A == "-emit-obj" || A == "-S"; });
    SmallVector<const char *> Args = {"-triple",
                                      "x86_64-pc-linux-gnu",
                                      OtherAction ? "-O2" : "-emit-llvm-bc",
                                      "-flto=full",
                                      "-flto-unit",
                                      "-funified-lto",
                                      "-fsplit-lto-unit",
                                      "-fwhole-program-vtables",
                                      "-fvisibility=hidden",
                                      "-O2",
                                      "-x",
                                      "c++"};
    Args.append(Extra.begin(), Extra.end());
    Args.append({Input.c_str(), "-o", Output.c_str()});
    auto Invocation = std::make_shared<CompilerInvocation>();
    DiagnosticOptions DiagOpts;
    TextDiagnosticBuffer Buffer;
    DiagnosticsEngine Diags(DiagnosticIDs::create(), DiagOpts, &Buffer,
                            /*ShouldOwnClient=*/false);
    EXPECT_TRUE(CompilerInvocation::CreateFromArgs(*Invocation, Args, Diags));
    auto Clang = std::make_unique<CompilerInstance>(std::move(Invocation));
    Clang->createVirtualFileSystem();
    Clang->createDiagnostics();
    return Clang;
  }

  SmallString<128> Dir, Input, Output;
};

TEST_F(UnifiedPreLinkTest, RecognisesUnifiedBitcodeCompiles) {
  EXPECT_TRUE(isUnifiedPreLink(compiler({})->getInvocation()));
  EXPECT_FALSE(
      isUnifiedPreLink(compiler({"-disable-llvm-passes"})->getInvocation()));
  EXPECT_FALSE(
      isUnifiedPreLink(compiler({"-fno-unified-lto"})->getInvocation()));
  EXPECT_TRUE(isUnifiedPreLink(
      compiler({"-emit-obj", "-ffat-lto-objects"})->getInvocation()));
  EXPECT_TRUE(
      isUnifiedPreLink(compiler({"-S", "-ffat-lto-objects"})->getInvocation()));
  EXPECT_FALSE(isUnifiedPreLink(compiler({"-emit-obj"})->getInvocation()));
  // PlayStation's driver turns -funified-lto on; clang-22 compiles it.
  EXPECT_FALSE(isUnifiedPreLink(
      compiler({"-triple", "x86_64-sie-ps5"})->getInvocation()));
}

TEST_F(UnifiedPreLinkTest, WritesSplitUnifiedBitcode) {
  std::unique_ptr<CompilerInstance> Clang = compiler({});
  ASSERT_TRUE(runUnifiedPreLink(*Clang, {}));
  ErrorOr<std::unique_ptr<MemoryBuffer>> Bytes = MemoryBuffer::getFile(Output);
  ASSERT_TRUE(bool(Bytes));
  Expected<std::vector<BitcodeModule>> Modules =
      getBitcodeModuleList((*Bytes)->getMemBufferRef());
  ASSERT_TRUE(bool(Modules));
  ASSERT_EQ(Modules->size(), 2u);
  Expected<BitcodeLTOInfo> Thin = (*Modules)[0].getLTOInfo();
  ASSERT_TRUE(bool(Thin));
  EXPECT_TRUE(Thin->IsThinLTO);
  EXPECT_TRUE(Thin->UnifiedLTO);
  EXPECT_TRUE(Thin->EnableSplitLTOUnit);
}

// -ffile-prefix-map reaches cc1 as -fmacro-prefix-map; both halves of the
// module name their source as __FILE__ does.
TEST_F(UnifiedPreLinkTest, SourceFileNameIsMapped) {
  std::string Map = ("-fmacro-prefix-map=" + Dir + "=.").str();
  ASSERT_TRUE(runUnifiedPreLink(*compiler({Map.c_str()}), {}));
  ErrorOr<std::unique_ptr<MemoryBuffer>> Bytes = MemoryBuffer::getFile(Output);
  ASSERT_TRUE(bool(Bytes));
  Expected<std::vector<BitcodeModule>> Modules =
      getBitcodeModuleList((*Bytes)->getMemBufferRef());
  ASSERT_TRUE(bool(Modules));
  LLVMContext Context;
  for (BitcodeModule &BM : *Modules) {
    Expected<std::unique_ptr<llvm::Module>> M = BM.parseModule(Context);
    ASSERT_TRUE(bool(M));
    EXPECT_EQ((*M)->getSourceFileName(), "./internal.cpp");
  }
}

TEST_F(UnifiedPreLinkTest, BothPipelinesWork) {
  UnifiedPreLinkOptions Thin;
  Thin.Pipeline = UnifiedPipeline::Thin;
  ASSERT_TRUE(runUnifiedPreLink(*compiler({}), Thin));
  uint64_t ThinSize = 0, FullSize = 0;
  ASSERT_FALSE(sys::fs::file_size(Output, ThinSize));
  ASSERT_TRUE(runUnifiedPreLink(*compiler({}), {}));
  ASSERT_FALSE(sys::fs::file_size(Output, FullSize));
  EXPECT_GT(ThinSize, 0u);
  EXPECT_GT(FullSize, 0u);
}

// A C function gets the types of -fsanitize=cfi-icall, and the module stays
// one ThinLTO module; without the option it has none.
TEST_F(UnifiedPreLinkTest, IndirectCallTypesKeepOneThinModule) {
  {
    std::error_code EC;
    raw_fd_ostream(Input, EC) << "int twice(int x) { return 2 * x; }\n";
    ASSERT_FALSE(EC);
  }
  for (bool Types : {true, false}) {
    UnifiedPreLinkOptions Options;
    Options.IndirectCallTypes = Types;
    ASSERT_TRUE(runUnifiedPreLink(*compiler({"-x", "c"}), Options));
    ErrorOr<std::unique_ptr<MemoryBuffer>> Bytes =
        MemoryBuffer::getFile(Output);
    ASSERT_TRUE(bool(Bytes));
    Expected<std::vector<BitcodeModule>> Modules =
        getBitcodeModuleList((*Bytes)->getMemBufferRef());
    ASSERT_TRUE(bool(Modules));
    ASSERT_EQ(Modules->size(), 1u);
    LLVMContext Ctx;
    Expected<std::unique_ptr<llvm::Module>> M = (*Modules)[0].parseModule(Ctx);
    ASSERT_TRUE(bool(M));
    SmallVector<MDNode *, 2> MDs;
    (*M)->getFunction("twice")->getMetadata(LLVMContext::MD_type, MDs);
    EXPECT_EQ(MDs.size(), Types ? 2u : 0u);
    Expected<BitcodeLTOInfo> Info = (*Modules)[0].getLTOInfo();
    ASSERT_TRUE(bool(Info));
    EXPECT_TRUE(Info->IsThinLTO);
    EXPECT_TRUE(Info->EnableSplitLTOUnit);
  }
}

// A fat object: in .llvm.lto, the bytes of the compile without
// -ffat-lto-objects; in its native code, the vtable the bitcode writer moves
// to the regular-LTO half (llvm-project#139440).
TEST_F(UnifiedPreLinkTest, FatObjectHoldsTheSameBitcodeAndTheVtable) {
  ASSERT_TRUE(runUnifiedPreLink(*compiler({}), {}));
  ErrorOr<std::unique_ptr<MemoryBuffer>> Bitcode =
      MemoryBuffer::getFile(Output);
  ASSERT_TRUE(bool(Bitcode));
  ASSERT_TRUE(
      runUnifiedPreLink(*compiler({"-emit-obj", "-ffat-lto-objects"}), {}));
  ErrorOr<std::unique_ptr<MemoryBuffer>> Object = MemoryBuffer::getFile(Output);
  ASSERT_TRUE(bool(Object));

  Expected<MemoryBufferRef> Embedded =
      object::IRObjectFile::findBitcodeInMemBuffer(**Object);
  ASSERT_TRUE(bool(Embedded)) << toString(Embedded.takeError());
  EXPECT_EQ(Embedded->getBuffer(), (*Bitcode)->getBuffer());

  Expected<std::unique_ptr<object::ObjectFile>> Obj =
      object::ObjectFile::createObjectFile(**Object);
  ASSERT_TRUE(bool(Obj));
  bool DefinesVtable = false;
  for (const object::SymbolRef &Sym : (*Obj)->symbols()) {
    Expected<StringRef> Name = Sym.getName();
    Expected<uint32_t> Flags = Sym.getFlags();
    ASSERT_TRUE(Name && Flags);
    DefinesVtable |= Name->starts_with("_ZTV") &&
                     !(*Flags & object::SymbolRef::SF_Undefined);
  }
  EXPECT_TRUE(DefinesVtable);
}

// The Full pre-link's -mllvm settings are undone, for a fat object's native
// code and the process's next compile.
TEST_F(UnifiedPreLinkTest, PreLinkLeavesLLVMOptionsAsTheyWere) {
  cl::Option *Runtime = cl::getRegisteredOptions().lookup("unroll-runtime");
  ASSERT_NE(Runtime, nullptr);
  ASSERT_TRUE(runUnifiedPreLink(*compiler({}), {}));
  EXPECT_EQ(Runtime->getNumOccurrences(), 0);
}

TEST_F(UnifiedPreLinkTest, UnwritableOutputIsAnError) {
  Output = "/nonexistent-dir/out.o";
  std::unique_ptr<CompilerInstance> Clang = compiler({});
  EXPECT_FALSE(runUnifiedPreLink(*Clang, {}));
  EXPECT_TRUE(Clang->getDiagnostics().hasErrorOccurred());
}

TEST(UnifiedLTOOptionsTest, ParsesPipelines) {
  EXPECT_EQ(parseUnifiedPipeline("full"), UnifiedPipeline::Full);
  EXPECT_EQ(parseUnifiedPipeline("thin"), UnifiedPipeline::Thin);
  EXPECT_EQ(parseUnifiedPipeline("Thin"), std::nullopt);
  EXPECT_EQ(parseUnifiedPipeline(""), std::nullopt);
}

} // namespace
