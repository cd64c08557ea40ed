//===- SdkCheck.cpp - Is this archive a universal bitcode SDK? ------------===//

#include "ulto/Bitcode/SdkCheck.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"

#include <map>

using namespace llvm;

namespace ulto {

// The members of \p File, each with its modules taken together (a split
// unit is a thin and a regular module; a unit without type metadata has
// no regular half, and is still "split" by its EnableSplitLTOUnit flag).
static std::vector<SdkMember> membersOf(const LTOFileInfo &File) {
  std::vector<SdkMember> Members;
  std::map<std::string, size_t> IndexOf;
  for (const LTOModuleInfo &M : File.Modules) {
    std::string Name =
        M.Member.empty() ? File.Path : File.Path + "(" + M.Member + ")";
    auto [It, New] = IndexOf.try_emplace(Name, Members.size());
    if (New) {
      SdkMember S;
      S.Name = Name;
      S.Native = M.Kind == LTOKind::Native;
      S.Unified = S.Split = !S.Native;
      S.ModuleID = M.ModuleID;
      S.Triple = M.Triple;
      S.DataLayout = M.DataLayout;
      S.Producer = M.Producer;
      S.Fat = M.Fat;
      S.MissingFromNativeCode = M.MissingFromNativeCode;
      Members.push_back(S);
    }
    SdkMember &S = Members[It->second];
    S.Unified &= M.Unified;
    S.Split &= M.Split;
    S.HasTypeMetadata |= M.HasTypeMetadata;
    S.DefinesVTables |= M.DefinesVTables;
    S.HasCFIChecks |= M.HasCFIChecks;
  }
  return Members;
}

// "a, b, c and 4 more".
static std::string listNames(ArrayRef<std::string> Names) {
  std::string List;
  for (size_t I = 0; I != Names.size() && I != 3; ++I)
    List += (I ? ", " : "") + Names[I];
  if (Names.size() > 3)
    List += " and " + std::to_string(Names.size() - 3) + " more";
  return List;
}

// Reports a property that must be one value across the SDK's bitcode.
static void checkAgree(ArrayRef<SdkMember> Bitcode, StringRef What,
                       std::string SdkMember::*Field,
                       std::vector<SdkFinding> &Errors) {
  // Values in first-seen order, each with the members that have it.
  MapVector<std::string, std::vector<std::string>,
            std::map<std::string, unsigned>>
      Groups;
  for (const SdkMember &M : Bitcode)
    Groups[M.*Field].push_back(M.Name);
  if (Groups.size() < 2)
    return;
  std::string Message = What.str() + " differ:";
  for (auto &[Value, Names] : Groups)
    Message += " '" + Value + "' in " + listNames(Names) + ";";
  Message.pop_back();
  Errors.push_back({"", Message});
}

SdkReport checkSdk(ArrayRef<LTOFileInfo> Files, bool AllowNative) {
  SdkReport Report;
  for (const LTOFileInfo &File : Files)
    if (!File.Error.empty())
      Report.Errors.push_back({File.Path, File.Error});
  for (const LTOFileInfo &File : Files) {
    if (!File.Error.empty())
      continue;
    if (File.Modules.empty())
      Report.Errors.push_back({File.Path, "has no members"});
    append_range(Report.Members, membersOf(File));
  }

  std::vector<SdkMember> Bitcode;
  StringMap<std::string> OwnerOfID;
  for (const SdkMember &M : Report.Members) {
    auto Error = [&](const Twine &Message) {
      Report.Errors.push_back({M.Name, Message.str()});
    };
    if (M.Native) {
      if (!AllowNative)
        Error("native object, not LLVM bitcode: LTO consumers get no "
              "optimisation across it, and CFI/WPD cannot see its classes "
              "(compile it with -flto -funified-lto, or pass --allow-native)");
      continue;
    }
    Bitcode.push_back(M);
    if (!M.Unified)
      Error("bitcode is not unified LTO: --lto=thin and --lto=full links "
            "refuse it (recompile with -flto -funified-lto)");
    if (M.ModuleID.empty())
      Error("no module ID: its type metadata makes it regular LTO even in "
            "ThinLTO links, and its internal symbols cannot be promoted "
            "(compile with ulto-clang -funified-lto)");
    else if (auto [It, New] = OwnerOfID.try_emplace(M.ModuleID, M.Name); !New)
      Error("has the same module ID (" + M.ModuleID + ") as " + It->second +
            ": LTO would merge their internal symbols and type IDs "
            "(compile each source once, with ulto-clang -funified-lto)");
    if (M.DefinesVTables && !M.HasTypeMetadata)
      Error("defines vtables but carries no type metadata: consumers' CFI "
            "and whole-program devirtualization cannot see its classes "
            "(compile with -flto -funified-lto)");
    if (!M.MissingFromNativeCode.empty())
      Error("fat object whose native code lacks definitions its bitcode has: " +
            listNames(M.MissingFromNativeCode) +
            ": links without LTO fail on them (compile it with ulto-clang "
            "-funified-lto -ffat-lto-objects)");
    if (M.HasCFIChecks)
      Report.Warnings.push_back(
          {M.Name, "compiled with -fsanitize=cfi: its CFI checks run in "
                   "every consumer's program, CFI consumer or not"});
  }

  // EnableSplitLTOUnit must agree across an LTO link, so across the SDK.
  std::vector<std::string> Split, NotSplit;
  for (const SdkMember &M : Bitcode)
    if (M.Unified)
      (M.Split ? Split : NotSplit).push_back(M.Name);
  if (!NotSplit.empty())
    Report.Errors.push_back(
        {"", "split-LTO-unit flags differ or are off: not split: " +
                 listNames(NotSplit) +
                 (Split.empty() ? "" : "; split: " + listNames(Split)) +
                 " (compile every member with -flto -funified-lto)"});
  checkAgree(Bitcode, "target triples", &SdkMember::Triple, Report.Errors);
  checkAgree(Bitcode, "data layouts", &SdkMember::DataLayout, Report.Errors);
  return Report;
}

} // namespace ulto
