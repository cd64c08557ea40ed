//===- LTOModuleInfoTest.cpp - readLTOModuleInfo() ------------------------===//
//
// Inputs are built in memory the way clang and llvm-ar would build them:
// IR text, then LLVM's own writers (WriteBitcodeToFile for plain modules,
// ThinLTOBitcodeWriterPass for (split) ThinLTO units, writeArchiveToBuffer).
//
//===----------------------------------------------------------------------===//

#include "ulto/Bitcode/LTOModuleInfo.h"
#include "Common/FatObjects.h"
#include "Common/UnifiedTestIR.h"
#include "ulto/Support/ReaderCrashRecovery.h"
#include "ulto/UnifiedLTO/PreLinkPipeline.h"
#include "ulto/UnifiedLTO/UnifiedBitcodeWriter.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ArchiveWriter.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

constexpr char Triple[] = "x86_64-pc-linux-gnu";

constexpr char NoTypeMetadataIR[] = R"(
target triple = "x86_64-pc-linux-gnu"
define i32 @f() {
  ret i32 0
}
)";

// A minimal ELF64 x86-64 relocatable object: just the file header.
std::string nativeObject() {
  std::string Obj(64, '\0');
  const unsigned char Ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  std::copy(std::begin(Ident), std::end(Ident), Obj.begin());
  Obj[16] = 1;  // e_type = ET_REL
  Obj[18] = 62; // e_machine = EM_X86_64
  Obj[20] = 1;  // e_version
  Obj[52] = 64; // e_ehsize
  Obj[58] = 64; // e_shentsize
  return Obj;
}

class LTOModuleInfoTest : public testing::Test {
protected:
  // When ThinLTOBitcodeWriter promotes locals it scans module asm with the
  // target's asm parser, and crashes if the target is not registered.
  static void SetUpTestSuite() {
    InitializeAllTargetInfos();
    InitializeAllTargets();
    InitializeAllTargetMCs();
    InitializeAllAsmParsers();
    InitializeAllAsmPrinters();
  }

  std::unique_ptr<Module> parse(StringRef IR) {
    SMDiagnostic Diag;
    std::unique_ptr<Module> M = parseAssemblyString(IR, Diag, Ctx);
    if (!M)
      ADD_FAILURE() << Diag.getMessage().str();
    return M;
  }

  // What `clang -flto=full` writes without a summary.
  std::string writeRegular(Module &M) {
    std::string Out;
    raw_string_ostream OS(Out);
    WriteBitcodeToFile(M, OS);
    return Out;
  }

  // What `clang -flto=thin` writes: split into thin and regular halves when
  // the module has type metadata and a module ID.
  std::string writeThinLTO(Module &M) {
    std::string Out;
    raw_string_ostream OS(Out);
    ulto::writeThinLTOBitcode(M, OS, /*ThinLinkOS=*/nullptr,
                              /*PreserveUseListOrder=*/false);
    return Out;
  }

  std::string archive(ArrayRef<std::pair<StringRef, StringRef>> Members) {
    std::vector<NewArchiveMember> NewMembers;
    for (auto [Name, Data] : Members)
      NewMembers.emplace_back(MemoryBufferRef(Data, Name));
    Expected<std::unique_ptr<MemoryBuffer>> Archive = writeArchiveToBuffer(
        NewMembers, SymtabWritingMode::NoSymtab, object::Archive::K_GNU,
        /*Deterministic=*/true, /*Thin=*/false);
    if (!Archive) {
      ADD_FAILURE() << toString(Archive.takeError());
      return "";
    }
    return (*Archive)->getBuffer().str();
  }

  static std::vector<LTOModuleInfo> read(StringRef Data) {
    Expected<std::vector<LTOModuleInfo>> Infos =
        readLTOModuleInfo(MemoryBufferRef(Data, "test"));
    if (!Infos) {
      ADD_FAILURE() << toString(Infos.takeError());
      return {};
    }
    return std::move(*Infos);
  }

  static std::string readError(StringRef Data) {
    Expected<std::vector<LTOModuleInfo>> Infos =
        readLTOModuleInfo(MemoryBufferRef(Data, "test"));
    if (Infos) {
      ADD_FAILURE() << "expected an error";
      return "";
    }
    return toString(Infos.takeError());
  }

  static bool isModuleID(StringRef ID) {
    return ID.size() == 33 && ID[0] == '.' &&
           ID.drop_front().find_first_not_of("0123456789abcdef") ==
               StringRef::npos;
  }

  LLVMContext Ctx;
};

TEST_F(LTOModuleInfoTest, RegularModuleWithoutSummary) {
  std::unique_ptr<Module> M = parse(std::string(VTableIR) + UnifiedFlags);
  std::string ExpectedID = getUniqueModuleId(M.get());
  std::vector<LTOModuleInfo> Infos = read(writeRegular(*M));
  ASSERT_EQ(Infos.size(), 1u);
  const LTOModuleInfo &Info = Infos[0];
  EXPECT_EQ(Info.Member, "");
  EXPECT_EQ(Info.Index, 0u);
  EXPECT_EQ(Info.Kind, LTOKind::Regular);
  // The linker reads these flags from the summary, and there is none.
  EXPECT_FALSE(Info.Unified);
  EXPECT_FALSE(Info.Split);
  EXPECT_TRUE(isModuleID(Info.ModuleID)) << Info.ModuleID;
  EXPECT_EQ(Info.ModuleID, ExpectedID);
  EXPECT_TRUE(Info.HasTypeMetadata);
  EXPECT_EQ(Info.Triple, Triple);
}

TEST_F(LTOModuleInfoTest, SplitUnifiedUnit) {
  std::unique_ptr<Module> M = parse(std::string(VTableIR) + UnifiedFlags);
  std::string ExpectedID = getUniqueModuleId(M.get());
  std::vector<LTOModuleInfo> Infos = read(writeThinLTO(*M));
  ASSERT_EQ(Infos.size(), 2u);
  EXPECT_EQ(Infos[0].Index, 0u);
  EXPECT_EQ(Infos[0].Kind, LTOKind::Thin);
  EXPECT_FALSE(Infos[0].HasTypeMetadata);
  EXPECT_EQ(Infos[1].Index, 1u);
  EXPECT_EQ(Infos[1].Kind, LTOKind::Regular);
  EXPECT_TRUE(Infos[1].HasTypeMetadata);
  for (const LTOModuleInfo &Info : Infos) {
    EXPECT_TRUE(Info.Unified);
    EXPECT_TRUE(Info.Split);
    EXPECT_EQ(Info.Triple, Triple);
    // Neither half hashes to this ID by itself: the vtable definition moved.
    EXPECT_EQ(Info.ModuleID, ExpectedID);
  }
}

// Both halves of a split unit carry the pipeline's name; other bitcode has
// none.
TEST_F(LTOModuleInfoTest, PreLinkPipeline) {
  std::string IR = std::string(VTableIR) + UnifiedFlags;
  EXPECT_EQ(read(writeThinLTO(*parse(IR)))[0].PreLinkPipeline, "");
  std::unique_ptr<Module> M = parse(IR);
  recordPreLinkPipeline(*M, "full");
  std::vector<LTOModuleInfo> Infos = read(writeThinLTO(*M));
  ASSERT_EQ(Infos.size(), 2u);
  EXPECT_EQ(Infos[0].PreLinkPipeline, "full");
  EXPECT_EQ(Infos[1].PreLinkPipeline, "full");
  EXPECT_EQ(read(nativeObject())[0].PreLinkPipeline, "");
}

TEST_F(LTOModuleInfoTest, SplitUnitWithPromotedLocals) {
  std::unique_ptr<Module> M = parse(std::string(LocalVTableIR) + UnifiedFlags);
  std::string ExpectedID = getUniqueModuleId(M.get());
  ASSERT_TRUE(isModuleID(ExpectedID));
  std::string Bitcode = writeThinLTO(*M);
  // The writer renamed the shared locals after the ID.
  EXPECT_NE(StringRef(Bitcode).find("vf" + ExpectedID), StringRef::npos);

  std::vector<LTOModuleInfo> Infos = read(Bitcode);
  ASSERT_EQ(Infos.size(), 2u);
  EXPECT_EQ(Infos[0].ModuleID, ExpectedID);
  EXPECT_EQ(Infos[1].ModuleID, ExpectedID);
}

TEST_F(LTOModuleInfoTest, UniqueSourceFileIdentifierFixesTheID) {
  // Different definitions, same identifier: the same ID (MD5 of "x"), which
  // is how two objects built from one source file collide.
  for (StringRef IR : {VTableIR, LocalVTableIR}) {
    std::unique_ptr<Module> M = parse(std::string(IR) + uniqueSourceFlags("x"));
    std::vector<LTOModuleInfo> Infos = read(writeThinLTO(*M));
    ASSERT_EQ(Infos.size(), 2u);
    EXPECT_EQ(Infos[0].ModuleID, ".9dd4e461268c8034f5c8564e155c67a6");
    EXPECT_EQ(Infos[1].ModuleID, ".9dd4e461268c8034f5c8564e155c67a6");
  }
}

TEST_F(LTOModuleInfoTest, InternalOnlyModuleIsNotSplit) {
  std::unique_ptr<Module> M = parse(std::string(InternalOnlyIR) + UnifiedFlags);
  std::vector<LTOModuleInfo> Infos = read(writeThinLTO(*M));
  ASSERT_EQ(Infos.size(), 1u);
  EXPECT_EQ(Infos[0].Kind, LTOKind::Regular);
  EXPECT_TRUE(Infos[0].Unified);
  EXPECT_TRUE(Infos[0].Split);
  EXPECT_EQ(Infos[0].ModuleID, "");
  EXPECT_TRUE(Infos[0].HasTypeMetadata);
}

TEST_F(LTOModuleInfoTest, ThinModuleWithoutTypeMetadataIsNotSplit) {
  std::unique_ptr<Module> M =
      parse(std::string(NoTypeMetadataIR) + UnifiedFlags);
  std::string ExpectedID = getUniqueModuleId(M.get());
  std::vector<LTOModuleInfo> Infos = read(writeThinLTO(*M));
  ASSERT_EQ(Infos.size(), 1u);
  EXPECT_EQ(Infos[0].Kind, LTOKind::Thin);
  EXPECT_TRUE(Infos[0].Unified);
  EXPECT_TRUE(Infos[0].Split);
  EXPECT_EQ(Infos[0].ModuleID, ExpectedID);
  EXPECT_FALSE(Infos[0].HasTypeMetadata);
}

TEST_F(LTOModuleInfoTest, NativeObject) {
  std::vector<LTOModuleInfo> Infos = read(nativeObject());
  ASSERT_EQ(Infos.size(), 1u);
  EXPECT_EQ(Infos[0].Kind, LTOKind::Native);
  EXPECT_FALSE(Infos[0].Unified);
  EXPECT_EQ(Infos[0].ModuleID, "");
  EXPECT_EQ(Infos[0].Triple, "x86_64-unknown-unknown");
}

// A fat object reads as its bitcode's modules, with the strong definitions
// of the bitcode that its native code lacks.
TEST_F(LTOModuleInfoTest, FatObject) {
  constexpr char BothIR[] = R"(
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
define i32 @f() {
  ret i32 0
}
define i32 @g() {
  ret i32 1
}
define linkonce_odr i32 @inline() {
  ret i32 2
}
)";
  std::unique_ptr<Module> Both = parse(BothIR);
  std::string Bitcode = writeRegular(*Both);
  std::vector<LTOModuleInfo> Complete = read(elfObject(*Both, Bitcode));
  ASSERT_EQ(Complete.size(), 1u);
  EXPECT_TRUE(Complete[0].Fat);
  EXPECT_EQ(Complete[0].Kind, LTOKind::Regular);
  EXPECT_TRUE(Complete[0].MissingFromNativeCode.empty());
  EXPECT_EQ(Complete[0].Producer.rfind("LLVM", 0), 0u);

  // Native code that lacks @g (and the linkonce @inline, which any user
  // defines itself).
  std::unique_ptr<Module> OnlyF = parse(NoTypeMetadataIR);
  std::vector<LTOModuleInfo> Lacking = read(elfObject(*OnlyF, Bitcode));
  ASSERT_EQ(Lacking.size(), 1u);
  EXPECT_EQ(Lacking[0].MissingFromNativeCode, std::vector<std::string>{"g"});

  // Without .llvm.lto: native.
  std::unique_ptr<Module> Plain = parse(NoTypeMetadataIR);
  EXPECT_EQ(read(elfObject(*Plain))[0].Kind, LTOKind::Native);
}

TEST_F(LTOModuleInfoTest, Archive) {
  std::unique_ptr<Module> A = parse(NoTypeMetadataIR);
  std::unique_ptr<Module> B = parse(std::string(VTableIR) + UnifiedFlags);
  std::string Regular = writeRegular(*A);
  std::string Split = writeThinLTO(*B);
  std::string Native = nativeObject();
  std::vector<LTOModuleInfo> Infos =
      read(archive({{"a.o", Regular}, {"b.o", Split}, {"c.o", Native}}));
  ASSERT_EQ(Infos.size(), 4u);
  EXPECT_EQ(Infos[0].Member, "a.o");
  EXPECT_EQ(Infos[0].Kind, LTOKind::Regular);
  EXPECT_EQ(Infos[1].Member, "b.o");
  EXPECT_EQ(Infos[1].Index, 0u);
  EXPECT_EQ(Infos[1].Kind, LTOKind::Thin);
  EXPECT_EQ(Infos[2].Member, "b.o");
  EXPECT_EQ(Infos[2].Index, 1u);
  EXPECT_EQ(Infos[2].Kind, LTOKind::Regular);
  EXPECT_EQ(Infos[1].ModuleID, Infos[2].ModuleID);
  EXPECT_EQ(Infos[3].Member, "c.o");
  EXPECT_EQ(Infos[3].Kind, LTOKind::Native);
}

TEST_F(LTOModuleInfoTest, EmptyArchive) {
  EXPECT_TRUE(read(archive({})).empty());
}

TEST_F(LTOModuleInfoTest, NotAnObject) {
  EXPECT_EQ(readError(""), "empty file");
  EXPECT_EQ(readError("hello\n"),
            "not LLVM bitcode, an ELF object or an archive");
  EXPECT_EQ(readError(StringRef("BC\xc0\xde", 4)),
            "bitcode file contains no module");
}

TEST_F(LTOModuleInfoTest, BadArchiveMembers) {
  std::unique_ptr<Module> M = parse(NoTypeMetadataIR);
  std::string Bitcode = writeRegular(*M);
  std::string Truncated = Bitcode.substr(0, Bitcode.size() / 2);
  EXPECT_EQ(readError(archive({{"a.o", Bitcode}, {"junk.o", "hello\n"}})),
            "member 'junk.o': not LLVM bitcode or an ELF object");
  EXPECT_EQ(readError(archive({{"empty.o", ""}})),
            "member 'empty.o': empty member");
  EXPECT_TRUE(StringRef(readError(archive({{"t.o", Truncated}})))
                  .starts_with("member 't.o': "));
}

TEST_F(LTOModuleInfoTest, TruncatedArchive) {
  std::unique_ptr<Module> M = parse(NoTypeMetadataIR);
  std::string Bitcode = writeRegular(*M);
  std::string Archive = archive({{"a.o", Bitcode}});
  EXPECT_TRUE(StringRef(readError(Archive.substr(0, Archive.size() - 10)))
                  .starts_with("truncated or malformed archive"));
}

// Every prefix and many byte flips of a split unit and of an archive: each
// read must end in a result or a one-line error.
TEST_F(LTOModuleInfoTest, CorruptInputNeverCrashes) {
  enableReaderCrashRecovery();
  std::unique_ptr<Module> M = parse(std::string(LocalVTableIR) + UnifiedFlags);
  std::string Split = writeThinLTO(*M);
  std::string Archive = archive({{"a.o", Split}, {"b.o", nativeObject()}});

  auto Check = [](StringRef Data) {
    Expected<std::vector<LTOModuleInfo>> Infos =
        readLTOModuleInfo(MemoryBufferRef(Data, "test"));
    if (!Infos) {
      std::string Message = toString(Infos.takeError());
      EXPECT_FALSE(Message.empty());
      EXPECT_EQ(Message.find('\n'), std::string::npos) << Message;
    }
  };
  for (StringRef Input : {StringRef(Split), StringRef(Archive)}) {
    for (size_t Size = 0; Size < Input.size(); ++Size)
      Check(Input.take_front(Size));
    uint32_t Seed = 1;
    for (int I = 0; I < 2000; ++I) {
      std::string Corrupt = Input.str();
      for (int Flips = 0; Flips < 1 + I % 4; ++Flips) {
        Seed = Seed * 1664525 + 1013904223; // deterministic LCG
        Corrupt[(Seed >> 8) % Corrupt.size()] ^= 1 << (Seed % 8);
      }
      Check(Corrupt);
    }
  }
}

} // namespace
