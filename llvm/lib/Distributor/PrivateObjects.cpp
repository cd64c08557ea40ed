//===- PrivateObjects.cpp - Where backend jobs write their objects --------===//

#include "ulto/Distributor/PrivateObjects.h"

#include "ulto/Support/AtomicFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <cstdlib>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

using namespace llvm;

namespace ulto {

std::optional<PrivateObjects> PrivateObjects::create(const JobList &List) {
  SmallString<256> Model(sys::path::parent_path(List.LinkerOutput));
  sys::path::append(Model, ".ulto-dist-XXXXXX");
  Model.c_str(); // mkdtemp needs the terminating null.
  if (!::mkdtemp(Model.data()))
    return std::nullopt;
  return PrivateObjects(List, std::string(Model));
}

PrivateObjects::PrivateObjects(PrivateObjects &&Other)
    : Directory(std::exchange(Other.Directory, std::string())),
      Paths(std::move(Other.Paths)) {}

PrivateObjects::~PrivateObjects() {
  // Only the user's processes can have written into it.
  if (!Directory.empty())
    sys::fs::remove_directories(Directory, /*IgnoreErrors=*/true);
}

// The argument of \p Job's own that names its output: the last -o, as in
// writesOutput (JobList.cpp), which checked that it names the output.
static std::optional<size_t> outputArgument(const BackendJob &Job) {
  for (size_t I = Job.Args.size(); I-- > 0;) {
    if (Job.Args[I] == Job.output() && I > 0 && Job.Args[I - 1] == "-o")
      return I;
    if (StringRef(Job.Args[I]) == ("-o" + Job.output()).str())
      return I;
  }
  return std::nullopt;
}

PrivateObjects::PrivateObjects(const JobList &List, std::string Dir)
    : Directory(std::move(Dir)) {
  // lld's objects have names of their own; objects of other lists that
  // share a name are told apart by their jobs' numbers.
  StringSet<> Names;
  bool Distinct = all_of(List.Jobs, [&](const BackendJob &Job) {
    return Names.insert(sys::path::filename(Job.output())).second;
  });
  for (auto [I, Job] : enumerate(List.Jobs)) {
    if (writesBesideObject(List, Job) || !outputArgument(Job)) {
      Paths.push_back(Job.output().str());
      continue;
    }
    SmallString<256> Path(Directory);
    sys::path::append(Path, (Distinct ? "" : Twine(I) + "-") +
                                sys::path::filename(Job.output()));
    Paths.push_back(std::string(Path));
  }
}

bool writesBesideObject(const JobList &List, const BackendJob &Job) {
  static constexpr StringRef NamedAfterObject[] = {
      "-gsplit-dwarf", "-ftime-trace",  "-save-temps",
      "--save-temps",  "-fstack-usage", "-fsave-optimization-record",
      "-MD",           "-MMD"};
  return any_of(List.command(Job), [](StringRef Arg) {
    return any_of(NamedAfterObject,
                  [&](StringRef Option) { return Arg.starts_with(Option); });
  });
}

BackendJob withOutput(const BackendJob &Job, StringRef Output) {
  BackendJob Copy = Job;
  if (std::optional<size_t> I = outputArgument(Job))
    Copy.Args[*I] = (StringRef(Copy.Args[*I]).starts_with("-o") &&
                             Copy.Args[*I] != Job.output()
                         ? "-o"
                         : "") +
                    Output.str();
  Copy.Outputs[0] = Output.str();
  return Copy;
}

Error objectNotWritten(StringRef To, Error E) {
  // In a sticky directory (/tmp), another user's file at the name.
  struct stat Status;
  if (::lstat(To.str().c_str(), &Status) != 0 || Status.st_uid == ::geteuid())
    return E;
  std::error_code EC = errorToErrorCode(std::move(E));
  return createStringError(EC,
                           "'%s': a file of user %u is in the way; link into "
                           "a directory of your own, or with ld.ulto",
                           To.str().c_str(), unsigned(Status.st_uid));
}

Error publishObject(StringRef From, StringRef To, StringRef Bytes) {
  std::error_code EC = sys::fs::rename(From, To);
  if (EC == std::errc::cross_device_link)
    EC = errorToErrorCode(
        writeAtomically(To, Bytes, OnSignal::CallerWaits, Existing::Replace));
  if (!EC)
    return Error::success();
  return objectNotWritten(To, createFileError(To, EC));
}

} // namespace ulto
