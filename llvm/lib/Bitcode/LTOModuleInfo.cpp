//===- LTOModuleInfo.cpp - What an object file or archive holds -----------===//
//
// Everything here goes through LLVM's own readers, so the answers are the
// ones the LTO linker acts on: getLTOInfo() for the summary flags, a parsed
// module for the triple and !type metadata, getUniqueModuleId() for the ID.
//
// Two things need care.
//
// Robustness: inspect runs on whatever it is given. The bitcode reader
// reports most corruption as an llvm::Error, but it also reports some errors
// through the LLVMContext, whose default handler prints and exits, and
// Module::materializeAll() runs the verifier through UpgradeDebugInfo(), which
// calls report_fatal_error() on a broken module. So each context gets a
// recording diagnostic handler, and modules are loaded lazily and
// materialized function by function, which skips that verifier run. Fuzzing
// (byte flips, truncation) still makes LLVM 22's reader fault, trap or run
// out of memory on a few inputs, which llvm-dis does too; those are caught by
// a CrashRecoveryContext per bitcode file (ReaderCrashRecovery.h).
//
// Module IDs of split files: neither half, read back, hashes to the ID the
// split was made with; splitModuleID() reconstructs it from both halves, by
// the rule ld.ulto uses too (see ulto/UnifiedLTO/SplitModuleID.h).
//
//===----------------------------------------------------------------------===//

#include "ulto/Bitcode/LTOModuleInfo.h"
#include "ulto/Support/ReaderCrashRecovery.h"
#include "ulto/UnifiedLTO/PreLinkPipeline.h"
#include "ulto/UnifiedLTO/SplitModuleID.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/Magic.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/LTO/LTO.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/IRObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <csignal>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <unistd.h>

using namespace llvm;

namespace ulto {

StringRef toString(LTOKind Kind) {
  switch (Kind) {
  case LTOKind::Thin:
    return "thin";
  case LTOKind::Regular:
    return "regular";
  case LTOKind::Native:
    return "native";
  }
  llvm_unreachable("unknown LTOKind");
}

namespace {

Error makeError(const Twine &Message) {
  return createStringError(inconvertibleErrorCode(), Message);
}

// Diagnostics are one line each, but LLVM's messages can quote raw bytes of
// a corrupt file, newlines included.
std::string escapeControls(StringRef S) {
  std::string Out;
  raw_string_ostream OS(Out);
  for (unsigned char C : S) {
    if (C == '\n')
      OS << "\\n";
    else if (C < 0x20 || C == 0x7f)
      OS << "\\x" << hexdigit(C >> 4, /*LowerCase=*/true)
         << hexdigit(C & 15, /*LowerCase=*/true);
    else
      OS << C;
  }
  return Out;
}

// LLVM's readers capitalize some messages ("Invalid record"); ulto's
// diagnostics embed them mid-line, so lower the first letter of a word.
std::string describe(Error Err) {
  std::string Message = escapeControls(toString(std::move(Err)));
  if (Message.size() > 1 && isUpper(Message[0]) && isLower(Message[1]))
    Message[0] = toLower(Message[0]);
  return Message;
}

// Keeps the first error reported through the context; the default handler
// would print it and exit the process.
class DiagnosticRecorder final : public DiagnosticHandler {
public:
  explicit DiagnosticRecorder(std::string &FirstError)
      : FirstError(FirstError) {}

  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    if (DI.getSeverity() == DS_Error && FirstError.empty()) {
      raw_string_ostream OS(FirstError);
      DiagnosticPrinterRawOStream DP(OS);
      DI.print(DP);
    }
    return true;
  }

private:
  std::string &FirstError;
};

// Parses all of a module except what can only fail through the verifier (see
// the file comment). Function bodies are needed because a definition's own
// !type attachment lives in its function block.
Expected<std::unique_ptr<Module>> loadModule(BitcodeModule &BM,
                                             LLVMContext &Ctx) {
  Expected<std::unique_ptr<Module>> M =
      BM.getLazyModule(Ctx, /*ShouldLazyLoadMetadata=*/false,
                       /*IsImporting=*/false);
  if (!M)
    return M.takeError();
  if (Error Err = (*M)->materializeMetadata())
    return Err;
  for (Function &F : **M)
    if (Error Err = F.materialize())
      return Err;
  return M;
}

bool hasTypeMetadata(const Module &M) {
  for (const GlobalObject &GO : M.global_objects())
    if (GO.hasMetadata(LLVMContext::MD_type))
      return true;
  return false;
}

bool definesVTables(const Module &M) {
  return any_of(M.globals(), [](const GlobalVariable &GV) {
    return !GV.isDeclaration() && GV.getName().starts_with("_ZTV");
  });
}

// -fsanitize=cfi-icall sets a module flag; CFI's other checks branch on
// llvm.type.test, where devirtualization only assumes its result.
bool hasCFIChecks(const Module &M) {
  if (M.getModuleFlag("CFI Canonical Jump Tables"))
    return true;
  if (const Function *Checked = M.getFunction("llvm.type.checked.load"))
    if (!Checked->use_empty())
      return true;
  const Function *TypeTest = M.getFunction("llvm.type.test");
  if (!TypeTest)
    return false;
  for (const User *Call : TypeTest->users())
    for (const User *Use : Call->users())
      if (const auto *II = dyn_cast<IntrinsicInst>(Use);
          !II || II->getIntrinsicID() != Intrinsic::assume)
        return true;
  return false;
}

LTOModuleInfo makeInfo(StringRef Member, unsigned Index, LTOKind Kind) {
  LTOModuleInfo Info;
  Info.Member = Member.str();
  Info.Index = Index;
  Info.Kind = Kind;
  return Info;
}

// Reads all modules of a bitcode file; \p Progress tracks the module being
// read for a crash report.
Expected<std::vector<LTOModuleInfo>> readBitcodeModules(MemoryBufferRef Buffer,
                                                        StringRef Member,
                                                        unsigned &Progress) {
  // Validates the top-level block structure before any module is parsed.
  Expected<BitcodeFileContents> Contents = getBitcodeFileContents(Buffer);
  if (!Contents)
    return makeError(describe(Contents.takeError()));
  if (Contents->Mods.empty())
    return makeError("bitcode file contains no module");

  // Where this fails, the module's reading says why.
  Expected<std::string> Producer = getBitcodeProducerString(Buffer);
  if (!Producer) {
    consumeError(Producer.takeError());
    Producer = "";
  }
  std::string DiagError;
  LLVMContext Ctx;
  Ctx.setDiagnosticHandler(std::make_unique<DiagnosticRecorder>(DiagError));

  std::vector<LTOModuleInfo> Infos;
  std::vector<std::unique_ptr<Module>> Modules;
  for (auto [Index, BM] : enumerate(Contents->Mods)) {
    Progress = Index;
    auto ModuleError = [&, Index = Index](const Twine &Message) {
      return makeError("module " + Twine(Index) + ": " + Message);
    };
    Expected<BitcodeLTOInfo> LTOInfo = BM.getLTOInfo();
    if (!LTOInfo)
      return ModuleError(describe(LTOInfo.takeError()));
    Expected<std::unique_ptr<Module>> M = loadModule(BM, Ctx);
    if (!M)
      return ModuleError(describe(M.takeError()));
    if (!DiagError.empty())
      return ModuleError(escapeControls(DiagError));

    LTOModuleInfo Info = makeInfo(
        Member, Index, LTOInfo->IsThinLTO ? LTOKind::Thin : LTOKind::Regular);
    Info.Unified = LTOInfo->UnifiedLTO;
    Info.Split = LTOInfo->EnableSplitLTOUnit;
    Info.HasTypeMetadata = hasTypeMetadata(**M);
    Info.Triple = (*M)->getTargetTriple().str();
    Info.DataLayout = (*M)->getDataLayoutStr();
    Info.DefinesVTables = definesVTables(**M);
    Info.HasCFIChecks = hasCFIChecks(**M);
    Info.PreLinkPipeline = preLinkPipelines(**M);
    Info.Producer = *Producer;
    Infos.push_back(std::move(Info));
    Modules.push_back(std::move(*M));
  }

  // ThinLTOBitcodeWriter writes a split unit as the thin half followed by the
  // regular half; both report the ID of the whole unit.
  bool IsSplitUnit = Infos.size() == 2 && Infos[0].Kind == LTOKind::Thin &&
                     Infos[1].Kind == LTOKind::Regular && Infos[0].Split &&
                     Infos[1].Split;
  if (IsSplitUnit) {
    std::string ID =
        cantFail(splitModuleID(*Modules[0], [&]() -> Expected<const Module &> {
          return *Modules[1];
        }));
    Infos[0].ModuleID = ID;
    Infos[1].ModuleID = ID;
  } else {
    for (auto [Info, M] : zip(Infos, Modules))
      Info.ModuleID = getUniqueModuleId(M.get());
  }
  return Infos;
}

// A corrupt module can make LLVM's reader fault or call report_fatal_error()
// (found by fuzzing: bad module flags, huge attribute lists); under
// enableReaderCrashRecovery() that becomes an error for this file.
Expected<std::vector<LTOModuleInfo>> readBitcode(MemoryBufferRef Buffer,
                                                 StringRef Member) {
  std::optional<Expected<std::vector<LTOModuleInfo>>> Result;
  unsigned Progress = 0;
  if (Error E = readSafely([&] {
        Result.emplace(readBitcodeModules(Buffer, Member, Progress));
      }))
    return makeError("module " + Twine(Progress) + ": " +
                     toString(std::move(E)));
  return std::move(*Result);
}

bool isELF(file_magic Magic) {
  switch (Magic) {
  case file_magic::elf:
  case file_magic::elf_relocatable:
  case file_magic::elf_executable:
  case file_magic::elf_shared_object:
  case file_magic::elf_core:
    return true;
  default:
    return false;
  }
}

Expected<LTOModuleInfo> readNative(MemoryBufferRef Buffer, file_magic Magic,
                                   StringRef Member) {
  Expected<std::unique_ptr<object::ObjectFile>> Obj =
      object::ObjectFile::createObjectFile(Buffer, Magic);
  if (!Obj)
    return makeError(describe(Obj.takeError()));
  LTOModuleInfo Info = makeInfo(Member, 0, LTOKind::Native);
  // makeTriple() knows only the architecture of an ELF object ("x86_64--").
  Info.Triple = Triple::normalize((*Obj)->makeTriple().str());
  return Info;
}

// The global symbols \p Bitcode defines other than weakly, less the locals
// a split promoted (named after the module ID), that \p Native does not
// define.
Expected<std::vector<std::string>>
missingFromNativeCode(MemoryBufferRef Bitcode, const object::ObjectFile &Native,
                      StringRef ModuleID) {
  Expected<std::unique_ptr<lto::InputFile>> IR =
      lto::InputFile::create(Bitcode);
  if (!IR)
    return IR.takeError();
  StringSet<> Defined;
  for (const object::SymbolRef &Sym : Native.symbols()) {
    Expected<uint32_t> Flags = Sym.getFlags();
    Expected<StringRef> Name = Sym.getName();
    if (!Flags || !Name)
      return joinErrors(Flags.takeError(), Name.takeError());
    if ((*Flags & object::SymbolRef::SF_Global) &&
        !(*Flags & object::SymbolRef::SF_Undefined))
      Defined.insert(*Name);
  }
  std::vector<std::string> Missing;
  for (const lto::InputFile::Symbol &S : (*IR)->symbols())
    if (!S.isUndefined() && !S.isWeak() && !S.isCommon() &&
        !(!ModuleID.empty() && S.getName().ends_with(ModuleID)) &&
        !Defined.contains(S.getName()))
      Missing.push_back(S.getName().str());
  return Missing;
}

// A fat object's bitcode modules, with what its native code lacks.
Expected<std::vector<LTOModuleInfo>> readFatObject(MemoryBufferRef Buffer,
                                                   MemoryBufferRef Bitcode,
                                                   StringRef Member) {
  Expected<std::vector<LTOModuleInfo>> Infos = readBitcode(Bitcode, Member);
  if (!Infos)
    return Infos.takeError();
  Expected<std::unique_ptr<object::ObjectFile>> Native =
      object::ObjectFile::createObjectFile(Buffer);
  if (!Native)
    return makeError(describe(Native.takeError()));
  std::optional<Expected<std::vector<std::string>>> Missing;
  StringRef ModuleID = Infos->empty() ? "" : StringRef(Infos->front().ModuleID);
  if (Error E = readSafely([&] {
        Missing.emplace(missingFromNativeCode(Bitcode, **Native, ModuleID));
      }))
    return makeError(toString(std::move(E)));
  if (!*Missing)
    return makeError(describe(Missing->takeError()));
  for (LTOModuleInfo &Info : *Infos) {
    Info.Fat = true;
    Info.MissingFromNativeCode = **Missing;
  }
  return Infos;
}

// A file or an archive member: bitcode, a native ELF object, or a fat object.
Expected<std::vector<LTOModuleInfo>>
readObject(MemoryBufferRef Buffer, StringRef Member, bool InArchive) {
  if (Buffer.getBufferSize() == 0)
    return makeError(InArchive ? "empty member" : "empty file");
  file_magic Magic = identify_magic(Buffer.getBuffer());
  if (Magic == file_magic::bitcode)
    return readBitcode(Buffer, Member);
  if (Magic == file_magic::elf_relocatable) {
    Expected<MemoryBufferRef> Bitcode =
        object::IRObjectFile::findBitcodeInMemBuffer(Buffer);
    if (Bitcode)
      return readFatObject(Buffer, *Bitcode, Member);
    consumeError(Bitcode.takeError());
  }
  if (isELF(Magic)) {
    Expected<LTOModuleInfo> Info = readNative(Buffer, Magic, Member);
    if (!Info)
      return Info.takeError();
    return std::vector<LTOModuleInfo>{std::move(*Info)};
  }
  return makeError(InArchive ? "not LLVM bitcode or an ELF object"
                             : "not LLVM bitcode, an ELF object or an archive");
}

Error readMember(const object::Archive::Child &Child,
                 std::vector<LTOModuleInfo> &Infos) {
  Expected<StringRef> Name = Child.getName();
  if (!Name)
    return makeError(describe(Name.takeError()));
  auto MemberError = [&](const Twine &Message) {
    return makeError("member '" + escapeControls(*Name) + "': " + Message);
  };
  Expected<MemoryBufferRef> Buffer = Child.getMemoryBufferRef();
  if (!Buffer)
    return MemberError(describe(Buffer.takeError()));
  Expected<std::vector<LTOModuleInfo>> MemberInfos =
      readObject(*Buffer, *Name, /*InArchive=*/true);
  if (!MemberInfos)
    return MemberError(toString(MemberInfos.takeError()));
  append_range(Infos, std::move(*MemberInfos));
  return Error::success();
}

Expected<std::vector<LTOModuleInfo>> readArchive(MemoryBufferRef Buffer) {
  Expected<std::unique_ptr<object::Archive>> Archive =
      object::Archive::create(Buffer);
  if (!Archive)
    return makeError(describe(Archive.takeError()));

  std::vector<LTOModuleInfo> Infos;
  Error Err = Error::success();
  for (const object::Archive::Child &Child : (*Archive)->children(Err)) {
    if (Error MemberErr = readMember(Child, Infos)) {
      // Stopping early leaves the iteration error unchecked.
      consumeError(std::move(Err));
      return MemberErr;
    }
  }
  if (Err)
    return makeError(describe(std::move(Err)));
  return Infos;
}

} // namespace

Expected<std::vector<LTOModuleInfo>> readLTOModuleInfo(MemoryBufferRef Buffer) {
  if (identify_magic(Buffer.getBuffer()) == file_magic::archive)
    return readArchive(Buffer);
  return readObject(Buffer, /*Member=*/"", /*InArchive=*/false);
}

std::vector<LTOFileInfo> readLTOModuleInfoFiles(ArrayRef<std::string> Paths) {
  enableReaderCrashRecovery();
  std::vector<LTOFileInfo> Files(Paths.size());
  parallelFor(0, Paths.size(), [&](size_t I) {
    LTOFileInfo &File = Files[I];
    File.Path = Paths[I];
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
        MemoryBuffer::getFileOrSTDIN(File.Path, /*IsText=*/false,
                                     /*RequiresNullTerminator=*/false);
    if (!Buffer) {
      File.Error = Buffer.getError().message();
      return;
    }
    Expected<std::vector<LTOModuleInfo>> Modules =
        readLTOModuleInfo((*Buffer)->getMemBufferRef());
    if (Modules)
      File.Modules = std::move(*Modules);
    else
      File.Error = toString(Modules.takeError());
  });
  return Files;
}

} // namespace ulto
