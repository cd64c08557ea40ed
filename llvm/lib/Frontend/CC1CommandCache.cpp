//===- CC1CommandCache.cpp - -cc1 commands learned from the driver --------===//

#include "ulto/Frontend/CC1CommandCache.h"
#include "clang/Options/Options.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/Option.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace clang;
using namespace llvm;
using namespace llvm::opt;
using namespace ulto;

// A worker serves one link; a few shapes cover a mixed job list, and jobs
// beyond that run through the driver as before.
static constexpr size_t MaxShapes = 8;

static std::string workingDirectory() {
  SmallString<256> Dir;
  if (sys::fs::current_path(Dir))
    return {};
  return std::string(Dir);
}

// A file name the cache can take out of a command line: one the driver
// cannot read as an option or a response file.
static bool isPlainFileName(StringRef Name) {
  return !Name.empty() && Name[0] != '-' && Name[0] != '@';
}

std::optional<std::vector<StringRef>>
CC1CommandCache::match(const Shape &S, ArrayRef<const char *> DriverArgs,
                       StringRef WorkingDirectory) const {
  if (DriverArgs.size() != S.DriverArgs.size() ||
      WorkingDirectory != S.WorkingDirectory)
    return std::nullopt;
  std::vector<StringRef> Files;
  auto Slot = S.Files.begin();
  for (unsigned I = 0; I != DriverArgs.size(); ++I) {
    StringRef Arg = DriverArgs[I];
    if (Slot == S.Files.end() || Slot->Index != I) {
      if (Arg != S.DriverArgs[I])
        return std::nullopt;
      continue;
    }
    if (!Arg.consume_front(Slot->Prefix) || !isPlainFileName(Arg) ||
        sys::path::extension(Arg) != Slot->Extension ||
        sys::path::is_absolute(Arg) != Slot->Absolute ||
        sys::path::has_parent_path(Arg) != Slot->InDirectory ||
        (Slot->IsInput && !sys::fs::exists(Arg)))
      return std::nullopt;
    Files.push_back(Arg);
    ++Slot;
  }
  return Files;
}

std::vector<std::string>
CC1CommandCache::instantiate(const Shape &S, ArrayRef<StringRef> Files) {
  std::vector<std::string> CC1;
  CC1.reserve(S.CC1.size());
  for (const CC1Arg &A : S.CC1) {
    if (A.File < 0) {
      CC1.push_back(A.Text);
      continue;
    }
    StringRef File = Files[A.File];
    CC1.push_back(A.Text +
                  (A.FileName ? sys::path::filename(File) : File).str());
  }
  return CC1;
}

// Whether the driver does more with \p O than build the command: prints it,
// writes files of its own, or runs it out of process.
static bool hasDriverEffect(const Option &O) {
  static const OptSpecifier DriverEffects[] = {
      options::OPT__HASH_HASH_HASH,
      options::OPT_v,
      options::OPT_MJ,
      options::OPT_save_temps,
      options::OPT_save_temps_EQ,
      options::OPT_fproc_stat_report,
      options::OPT_fproc_stat_report_EQ,
      options::OPT_fno_integrated_cc1,
      options::OPT_ccc_print_phases,
      options::OPT_ccc_print_bindings,
      options::OPT_fdriver_only};
  return any_of(DriverEffects, [&](OptSpecifier E) { return O.matches(E); });
}

// A file named twice, or two with one last component, make the holes
// ambiguous.
static bool areAmbiguous(ArrayRef<std::string> Files) {
  for (unsigned I = 0; I != Files.size(); ++I)
    for (unsigned J = 0; J != I; ++J)
      if (Files[I] == Files[J] ||
          sys::path::filename(Files[I]) == sys::path::filename(Files[J]))
        return true;
  return false;
}

std::optional<std::vector<CC1CommandCache::FileSlot>>
CC1CommandCache::findFiles(ArrayRef<const char *> DriverArgs) {
  if (is_contained(DriverArgs, nullptr))
    return std::nullopt;
  unsigned MissingIndex, MissingCount;
  InputArgList List = getDriverOptTable().ParseArgs(DriverArgs.drop_front(),
                                                    MissingIndex, MissingCount);
  if (MissingCount)
    return std::nullopt;
  std::vector<FileSlot> Files;
  for (const Arg *A : List) {
    const Option &O = A->getOption();
    if (hasDriverEffect(O))
      return std::nullopt;
    // The index is the option's own; a separate value follows it.
    unsigned Index = A->getIndex() + 1;
    std::string Prefix;
    if (O.matches(options::OPT_o)) {
      if (StringRef(DriverArgs[Index]) != "-o")
        return std::nullopt;
      ++Index;
    } else if (O.matches(options::OPT_fthinlto_index_EQ)) {
      Prefix = A->getSpelling().str();
    } else if (!O.matches(options::OPT_INPUT)) {
      continue;
    }
    StringRef File = A->getValue();
    StringRef Written = DriverArgs[Index];
    if (!isPlainFileName(File) || !Written.consume_front(Prefix) ||
        Written != File)
      return std::nullopt;
    Files.push_back({Index, std::move(Prefix), sys::path::extension(File).str(),
                     sys::path::is_absolute(File),
                     sys::path::has_parent_path(File),
                     O.matches(options::OPT_INPUT)});
  }
  llvm::sort(Files, [](const FileSlot &L, const FileSlot &R) {
    return L.Index < R.Index;
  });
  return Files;
}

std::optional<CC1CommandCache::Shape>
CC1CommandCache::learn(ArrayRef<const char *> DriverArgs,
                       ArrayRef<const char *> CC1,
                       std::string WorkingDirectory) {
  std::optional<std::vector<FileSlot>> Files = findFiles(DriverArgs);
  if (!Files || WorkingDirectory.empty())
    return std::nullopt;
  Shape S;
  S.WorkingDirectory = std::move(WorkingDirectory);
  S.Files = std::move(*Files);
  for (const FileSlot &F : S.Files)
    S.LearnedFrom.push_back(
        StringRef(DriverArgs[F.Index]).drop_front(F.Prefix.size()).str());
  if (areAmbiguous(S.LearnedFrom))
    return std::nullopt;

  S.DriverArgs.assign(DriverArgs.begin(), DriverArgs.end());
  for (const FileSlot &F : S.Files)
    S.DriverArgs[F.Index].clear();
  for (StringRef Arg : CC1) {
    CC1Arg A{Arg.str()};
    for (unsigned I = 0; I != S.LearnedFrom.size() && A.File < 0; ++I) {
      StringRef File = S.LearnedFrom[I];
      if (Arg == File ||
          (Arg.ends_with(File) && Arg.drop_back(File.size()).ends_with("="))) {
        A = {Arg.drop_back(File.size()).str(), int(I), false};
      } else if (Arg == sys::path::filename(File)) {
        A = {"", int(I), true};
      }
    }
    S.CC1.push_back(std::move(A));
  }
  return S;
}

std::optional<std::vector<std::string>>
CC1CommandCache::lookup(ArrayRef<const char *> DriverArgs) const {
  if (none_of(Shapes, [](const Shape &S) { return S.Trusted; }))
    return std::nullopt;
  std::string Dir = workingDirectory();
  for (const Shape &S : Shapes)
    if (std::optional<std::vector<StringRef>> Files = match(S, DriverArgs, Dir))
      return S.Trusted ? std::optional(instantiate(S, *Files)) : std::nullopt;
  return std::nullopt;
}

void CC1CommandCache::observe(ArrayRef<const char *> DriverArgs,
                              ArrayRef<const char *> CC1) {
  std::string Dir = workingDirectory();
  for (Shape &S : Shapes) {
    std::optional<std::vector<StringRef>> Files = match(S, DriverArgs, Dir);
    if (!Files)
      continue;
    if (S.Trusted || S.Refused)
      return;
    // Only file names unlike the learned ones test the holes.
    for (unsigned I = 0; I != Files->size(); ++I)
      if ((*Files)[I] == S.LearnedFrom[I] ||
          sys::path::filename((*Files)[I]) ==
              sys::path::filename(S.LearnedFrom[I]))
        return;
    std::vector<std::string> Predicted = instantiate(S, *Files);
    S.Trusted =
        std::equal(Predicted.begin(), Predicted.end(), CC1.begin(), CC1.end(),
                   [](const std::string &P, const char *A) { return P == A; });
    S.Refused = !S.Trusted;
    return;
  }
  if (Shapes.size() < MaxShapes)
    if (std::optional<Shape> S = learn(DriverArgs, CC1, std::move(Dir)))
      Shapes.push_back(std::move(*S));
}
