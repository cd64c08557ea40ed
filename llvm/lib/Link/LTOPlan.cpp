//===- LTOPlan.cpp - What LTO will do with a link's bitcode ---------------===//

#include "ulto/Link/LTOPlan.h"
#include "ulto/UnifiedLTO/SplitModuleID.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/ThreadPool.h"

using namespace llvm;

namespace ulto {

std::optional<LTOMode> parseLTOMode(StringRef Value) {
  return StringSwitch<std::optional<LTOMode>>(Value)
      .Case("default", LTOMode::Default)
      .Case("thin", LTOMode::Thin)
      .Case("full", LTOMode::Full)
      .Case("distributed", LTOMode::Distributed)
      .Default(std::nullopt);
}

StringRef toString(LTOMode Mode) {
  switch (Mode) {
  case LTOMode::Default:
    return "default";
  case LTOMode::Thin:
    return "thin";
  case LTOMode::Full:
    return "full";
  case LTOMode::Distributed:
    return "distributed";
  }
  llvm_unreachable("unknown LTO mode");
}

// The ID the split was made with. The halves are read lazily, with no
// function bodies: the thin half with its module-level metadata, which holds
// the module flags; the regular half without, and only if the ID needs it.
static Expected<std::string> readSplitModuleID(BitcodeModule &ThinHalf,
                                               BitcodeModule &RegularHalf) {
  LLVMContext Ctx;
  Expected<std::unique_ptr<Module>> Thin =
      ThinHalf.getLazyModule(Ctx, /*ShouldLazyLoadMetadata=*/false,
                             /*IsImporting=*/false);
  if (!Thin)
    return Thin.takeError();
  std::unique_ptr<Module> Regular;
  return splitModuleID(**Thin, [&]() -> Expected<const Module &> {
    Expected<std::unique_ptr<Module>> M =
        RegularHalf.getLazyModule(Ctx, /*ShouldLazyLoadMetadata=*/true,
                                  /*IsImporting=*/false);
    if (!M)
      return M.takeError();
    Regular = std::move(*M);
    return *Regular;
  });
}

static Expected<BitcodeInput> readBitcodeInput(const LoadedFile &File) {
  Expected<std::vector<BitcodeModule>> Modules =
      getBitcodeModuleList(File.Buffer);
  if (!Modules)
    return Modules.takeError();
  BitcodeInput In;
  In.Name = File.Name;
  In.Buffer = File.Buffer;
  // Where this fails, LTO's reading says why.
  Expected<std::string> Producer = getBitcodeProducerString(File.Buffer);
  if (Producer)
    In.Producer = std::move(*Producer);
  else
    consumeError(Producer.takeError());
  In.Unified = !Modules->empty();
  SmallVector<bool, 2> Thin;
  for (BitcodeModule &BM : *Modules) {
    Expected<BitcodeLTOInfo> Info = BM.getLTOInfo();
    if (!Info)
      return Info.takeError();
    In.Unified &= Info->UnifiedLTO;
    In.SplitLTOUnit |= Info->HasSummary && Info->EnableSplitLTOUnit;
    Thin.push_back(Info->IsThinLTO);
  }
  In.Split = Thin.size() == 2 && Thin[0] && !Thin[1];
  In.ThinOnly = Thin.size() == 1 && Thin[0];
  return In;
}

// The first error in link order, whichever thread found it first.
static Error firstError(ArrayRef<BitcodeInput> Inputs,
                        ArrayRef<std::string> Errors) {
  for (size_t I = 0; I != Inputs.size(); ++I)
    if (!Errors[I].empty())
      return createStringError(Inputs[I].Name + ": " + Errors[I]);
  return Error::success();
}

// In parallel: the link waits for this before lld starts.
Expected<std::vector<BitcodeInput>>
readBitcodeInputs(const std::vector<LoadedFile> &Files) {
  std::vector<const LoadedFile *> Bitcode;
  for (const LoadedFile &File : Files)
    if (File.IsBitcode)
      Bitcode.push_back(&File);
  std::vector<BitcodeInput> Inputs(Bitcode.size());
  std::vector<std::string> Errors(Bitcode.size());
  parallelFor(0, Bitcode.size(), [&](size_t I) {
    Expected<BitcodeInput> In = readBitcodeInput(*Bitcode[I]);
    if (In) {
      Inputs[I] = std::move(*In);
    } else {
      Inputs[I].Name = Bitcode[I]->Name;
      Errors[I] = toString(In.takeError());
    }
  });
  if (Error E = firstError(Inputs, Errors))
    return std::move(E);
  return Inputs;
}

Error readModuleIDs(std::vector<BitcodeInput> &Inputs,
                    ThreadPoolStrategy Threads) {
  std::vector<std::string> Errors(Inputs.size());
  DefaultThreadPool Pool(Threads);
  for (size_t I = 0; I != Inputs.size(); ++I) {
    if (!Inputs[I].Split)
      continue;
    Pool.async([&, I] {
      Expected<std::vector<BitcodeModule>> Modules =
          getBitcodeModuleList(Inputs[I].Buffer);
      Expected<std::string> ID =
          Modules ? readSplitModuleID((*Modules)[0], (*Modules)[1])
                  : Expected<std::string>(Modules.takeError());
      if (ID)
        Inputs[I].ModuleID = std::move(*ID);
      else
        Errors[I] = toString(ID.takeError());
    });
  }
  Pool.wait();
  return firstError(Inputs, Errors);
}

namespace {
enum class FilePIC { NoThinModule, PIC, NotPIC, Unreadable };
} // namespace

static FilePIC readPIC(const LoadedFile &File) {
  Expected<std::vector<BitcodeModule>> Modules =
      getBitcodeModuleList(File.Buffer);
  if (!Modules) {
    consumeError(Modules.takeError());
    return FilePIC::Unreadable;
  }
  FilePIC Result = FilePIC::NoThinModule;
  for (BitcodeModule &BM : *Modules) {
    Expected<BitcodeLTOInfo> Info = BM.getLTOInfo();
    if (!Info) {
      consumeError(Info.takeError());
      return FilePIC::Unreadable;
    }
    if (!Info->IsThinLTO)
      continue;
    LLVMContext Ctx;
    Expected<std::unique_ptr<Module>> M =
        BM.getLazyModule(Ctx, /*ShouldLazyLoadMetadata=*/false,
                         /*IsImporting=*/false);
    if (!M) {
      consumeError(M.takeError());
      return FilePIC::Unreadable;
    }
    Result = (*M)->getPICLevel() == PICLevel::NotPIC ? FilePIC::NotPIC
                                                     : FilePIC::PIC;
  }
  return Result;
}

ModulesPIC readModulesPIC(const std::vector<LoadedFile> &Files) {
  std::vector<const LoadedFile *> Bitcode;
  for (const LoadedFile &File : Files)
    if (File.IsBitcode)
      Bitcode.push_back(&File);
  std::vector<FilePIC> PIC(Bitcode.size());
  parallelFor(0, Bitcode.size(),
              [&](size_t I) { PIC[I] = readPIC(*Bitcode[I]); });
  if (is_contained(PIC, FilePIC::Unreadable))
    return ModulesPIC::Unknown;
  bool Some = is_contained(PIC, FilePIC::PIC);
  bool NotAll = is_contained(PIC, FilePIC::NotPIC);
  if (Some && NotAll)
    return ModulesPIC::Mixed;
  return NotAll ? ModulesPIC::None : ModulesPIC::All;
}

std::vector<std::string> checkUnified(const std::vector<BitcodeInput> &Inputs,
                                      LTOMode Mode) {
  std::vector<std::string> Errors;
  if (Mode == LTOMode::Default)
    return Errors;
  for (const BitcodeInput &In : Inputs)
    if (!In.Unified)
      Errors.push_back(formatv(
          "{0}: bitcode is not unified LTO, and --lto={1} links only unified "
          "bitcode; recompile {0} with -flto -funified-lto",
          In.Name, toString(Mode)));
  return Errors;
}

std::vector<std::string>
checkSplitLTOUnitFlags(const std::vector<BitcodeInput> &Inputs) {
  std::vector<std::string> Errors;
  const BitcodeInput *Split = nullptr;
  for (const BitcodeInput &In : Inputs)
    if (In.Unified && In.SplitLTOUnit && !Split)
      Split = &In;
  if (!Split)
    return Errors;
  for (const BitcodeInput &In : Inputs)
    if (In.Unified && !In.SplitLTOUnit)
      Errors.push_back(formatv(
          "{0}: unified bitcode compiled with -fno-split-lto-unit does not "
          "link with unified bitcode compiled without it ({1}): LTO needs one "
          "EnableSplitLTOUnit value; recompile {0} without -fno-split-lto-unit",
          In.Name, Split->Name));
  return Errors;
}

std::vector<std::string>
checkModuleIDs(const std::vector<BitcodeInput> &Inputs) {
  std::vector<std::string> Errors;
  StringMap<const BitcodeInput *> ByID;
  for (const BitcodeInput &In : Inputs) {
    if (!In.Split || In.ModuleID.empty())
      continue;
    auto [It, New] = ByID.try_emplace(In.ModuleID, &In);
    if (!New)
      Errors.push_back(formatv(
          "{0} and {1} have the same module ID {2}: LTO would merge their "
          "internal type IDs and promoted symbols; link each object once, and "
          "compile with ulto-clang -funified-lto, which gives every object its "
          "own ID (clang's -funique-source-file-names gives one source "
          "compiled twice the same ID)",
          It->second->Name, In.Name, In.ModuleID));
  }
  return Errors;
}

// "1 module", "2 modules".
static std::string count(size_t N, StringRef Noun) {
  return formatv("{0} {1}{2}", N, Noun, N == 1 ? "" : "s");
}

std::string describePlan(const std::vector<BitcodeInput> &Inputs,
                         LTOMode Mode) {
  if (Inputs.empty())
    return "ld.ulto: LTO: no bitcode inputs";
  unsigned Split = 0, ThinOnly = 0;
  std::vector<StringRef> NotSplit;
  for (const BitcodeInput &In : Inputs) {
    Split += In.Split;
    ThinOnly += In.ThinOnly;
    if (!In.Split && !In.ThinOnly)
      NotSplit.push_back(In.Name);
  }
  std::string Flag = Mode == LTOMode::Default
                         ? "no --lto="
                         : ("--lto=" + toString(Mode)).str();
  size_t Modules = 2 * Split + ThinOnly + NotSplit.size();

  // Without --lto=, LLVM goes ThinLTO at the first unified module, and legacy
  // modules keep the kind they were compiled for.
  if (Mode == LTOMode::Full)
    return formatv("ld.ulto: LTO mode full ({0}): {1}, all regular LTO", Flag,
                   count(Modules, "module"));
  // Without --lto=, and with only regular modules, LTO is regular LTO.
  if (Mode == LTOMode::Default && Split + ThinOnly == 0)
    return formatv("ld.ulto: LTO mode full ({0}): {1}, none with a ThinLTO "
                   "summary",
                   Flag, count(Modules, "module"));
  StringRef Effective = Mode == LTOMode::Distributed ? "distributed" : "thin";
  std::string Line =
      formatv("ld.ulto: LTO mode {0} ({1}): {2} thin, {3} regular", Effective,
              Flag, count(Split + ThinOnly, "module"),
              count(Split + NotSplit.size(), "module"));
  std::vector<std::string> Why;
  if (Split)
    Why.push_back(formatv("{0} regular {1} of split modules", Split,
                          Split == 1 ? "half" : "halves"));
  if (!NotSplit.empty()) {
    std::string Names;
    for (StringRef N : ArrayRef(NotSplit).take_front(3))
      Names += (Names.empty() ? "" : ", ") + N.str();
    if (NotSplit.size() > 3)
      Names += ", ...";
    Why.push_back(formatv("{0} not split: {1}", NotSplit.size(), Names).str());
  }
  if (!Why.empty())
    Line += " (" + join(Why, "; ") + ")";
  return Line;
}

} // namespace ulto
