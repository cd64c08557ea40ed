//===- StockLinker.cpp - What stock lld leaves out of the jobs ------------===//
//
// Started by stock ld.lld-22's DTLTO, ulto dist gets the backend arguments
// lld gives (BackendOptions.h says which those are), so the link's other
// code generation options (-mllvm, a non-PIE executable's static code...)
// do not reach the jobs, and the program may differ from --lto=thin's.
// ld.ulto passes them; for stock lld, ulto dist reads its parent's command
// line (/proc) with lld's spellings of those options and says, once, what
// the jobs lack.
//
//===----------------------------------------------------------------------===//

#include "StockLinker.h"

#include "ulto/Link/BackendOptions.h"
#include "ulto/Link/LTOPlan.h"
#include "ulto/Support/Message.h"
#include "ulto/Support/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/StringSaver.h"

#include <unistd.h>

using namespace llvm;

namespace ulto {
namespace {
#define ULTO_OPTIONS_INC "LinkerOpts.inc"
#include "ulto/Support/OptionIDs.def"

#include "ulto/Support/CommandOptTable.def"
} // namespace

// The command line of process \p Pid, response files expanded relative to
// its directory; std::nullopt when it cannot be read.
static std::optional<SmallVector<const char *, 64>>
commandLine(pid_t Pid, StringSaver &Saver) {
  std::string Proc = "/proc/" + std::to_string(Pid);
  ErrorOr<std::unique_ptr<MemoryBuffer>> Cmdline =
      MemoryBuffer::getFileAsStream(Proc + "/cmdline");
  SmallString<256> Cwd;
  if (!Cmdline || sys::fs::real_path(Proc + "/cwd", Cwd))
    return std::nullopt;
  SmallVector<StringRef, 64> Parts;
  StringRef((*Cmdline)->getBuffer()).split(Parts, '\0', -1, false);
  SmallVector<const char *, 64> Args;
  for (StringRef P : ArrayRef(Parts).drop_front())
    Args.push_back(Saver.save(P).data());
  cl::ExpansionContext ECtx(Saver.getAllocator(), cl::TokenizeGNUCommandLine);
  ECtx.setCurrentDir(Cwd);
  if (Error E = ECtx.expandResponseFiles(Args)) {
    consumeError(std::move(E));
    return std::nullopt;
  }
  return Args;
}

// How the jobs' modules were compiled, which a relocatable link follows.
static ModulesPIC readJobModulesPIC(const JobList &List) {
  std::vector<std::unique_ptr<MemoryBuffer>> Buffers;
  std::vector<LoadedFile> Files;
  for (const BackendJob &Job : List.Jobs) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
        MemoryBuffer::getFile(Job.module(), /*IsText=*/false,
                              /*RequiresNullTerminator=*/false);
    if (!Buffer)
      return ModulesPIC::Unknown;
    Files.push_back({Job.module().str(), (*Buffer)->getMemBufferRef(), true});
    Buffers.push_back(std::move(*Buffer));
  }
  return readModulesPIC(Files);
}

void warnAboutStockLinker(StringRef Tool, const JobList &Jobs) {
  // lld runs as "lld" whatever its name on the command line (ld.lld,
  // ld.lld-22, ld); ld.ulto passes the options itself.
  pid_t Parent = getppid();
  SmallString<256> Exe;
  if (sys::fs::real_path("/proc/" + std::to_string(Parent) + "/exe", Exe) ||
      sys::path::filename(Exe) != "lld")
    return;
  BumpPtrAllocator Alloc;
  StringSaver Saver(Alloc);
  std::optional<SmallVector<const char *, 64>> Args =
      commandLine(Parent, Saver);
  if (!Args)
    return;
  unsigned MissingIndex, MissingCount;
  CommandOptTable Table;
  opt::InputArgList List = Table.ParseArgs(*Args, MissingIndex, MissingCount);
  std::vector<LinkOption> Options;
  for (const opt::Arg *A : List)
    if (!A->getOption().matches(OPT_UNKNOWN) &&
        !A->getOption().matches(OPT_INPUT))
      Options.push_back({A->getOption().getName().str(),
                         A->getNumValues() ? A->getValue() : "",
                         A->getAsString(List)});
  ModulesPIC Modules = ModulesPIC::Unknown;
  if (any_of(Options,
             [](const LinkOption &O) { return O.Name == "relocatable"; }))
    Modules = readJobModulesPIC(Jobs);
  BackendOptions Missing = distributedBackendOptions(Options, Modules);
  // A flag lld gives every job already (-ffunction-sections,
  // -fdata-sections) is not missing.
  llvm::erase_if(Missing.CompilerArgs, [&](const std::string &Arg) {
    return StringRef(Arg).starts_with("-f") &&
           is_contained(Jobs.CommonArgs, Arg);
  });
  if (Missing.CompilerArgs.empty() && Missing.Errors.empty())
    return;
  std::vector<std::string> Parts;
  if (!Missing.CompilerArgs.empty())
    Parts.push_back("lld-22 does not give the backend jobs what this link "
                    "gives in-process ThinLTO (" +
                    join(Missing.CompilerArgs, " ") + ")");
  if (!Missing.Refused.empty())
    Parts.push_back("no backend job can honour " + join(Missing.Refused, ", "));
  writeMessage(errs(), Tool, MessageKind::Warning,
               join(Parts, "; ") +
                   ": the program may differ from --lto=thin's (ld.ulto "
                   "--lto=distributed passes what it can and refuses the "
                   "rest)");
}

} // namespace ulto
