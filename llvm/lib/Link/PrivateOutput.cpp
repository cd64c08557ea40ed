//===- PrivateOutput.cpp - A distributed link's files, the user's alone ---===//

#include "ulto/Link/PrivateOutput.h"

#include "ulto/Support/DTLTONames.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Signals.h"

#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <utility>

using namespace llvm;

namespace ulto {

PrivateOutput::PrivateOutput(std::string Output, std::string Directory)
    : Output(std::move(Output)), Directory(std::move(Directory)) {
  SmallString<256> Path(this->Directory);
  sys::path::append(Path, sys::path::filename(this->Output));
  LLDOutput = std::string(Path);
}

std::optional<PrivateOutput> PrivateOutput::create(StringRef Output) {
  sys::fs::file_status Status;
  if (Output == "-" || sys::path::filename(Output).empty() ||
      (!sys::fs::status(Output, Status) && sys::fs::exists(Status) &&
       Status.type() != sys::fs::file_type::regular_file))
    return std::nullopt;
  SmallString<256> Model(sys::path::parent_path(Output));
  sys::path::append(Model, PrivateLinkDirectoryPrefix + "XXXXXX");
  Model.c_str(); // mkdtemp needs the terminating null.
  if (!::mkdtemp(Model.data()))
    return std::nullopt;
  return PrivateOutput(Output.str(), std::string(Model));
}

PrivateOutput::PrivateOutput(PrivateOutput &&Other)
    : Output(std::move(Other.Output)),
      Directory(std::exchange(Other.Directory, std::string())),
      LLDOutput(std::move(Other.LLDOutput)) {}

PrivateOutput::~PrivateOutput() {
  if (Directory.empty())
    return;
  sys::SetInterruptFunction(nullptr);
  // Only the user's processes can have written into it.
  sys::fs::remove_directories(Directory, /*IgnoreErrors=*/true);
}

// The directory an interrupt removes, set before the function is installed.
static char InterruptedDirectory[PATH_MAX];

static void onInterrupt() {
  rmdir(InterruptedDirectory);
  // LLVM's handler does not say which signal came, and has restored the
  // default actions: the process ends by Ctrl-C's.
  raise(SIGINT);
}

void PrivateOutput::removeOnInterrupt() const {
  if (Directory.size() >= sizeof(InterruptedDirectory))
    return;
  memcpy(InterruptedDirectory, Directory.c_str(), Directory.size() + 1);
  sys::SetInterruptFunction(onInterrupt);
}

Error PrivateOutput::finish(bool Linked) {
  if (Linked && sys::fs::exists(LLDOutput))
    if (std::error_code EC = sys::fs::rename(LLDOutput, Output))
      return createStringError(EC, "cannot open output file %s: %s",
                               Output.c_str(), EC.message().c_str());
  // What lld keeps (--save-temps, --time-trace), where lld would keep it.
  StringRef Beside = sys::path::parent_path(Output);
  std::error_code EC;
  for (sys::fs::directory_iterator It(Directory, EC), End; It != End && !EC;
       It.increment(EC)) {
    // The output of a link that failed is not one.
    if (It->path() == LLDOutput)
      continue;
    sys::fs::file_status Status;
    if (sys::fs::status(It->path(), Status, /*Follow=*/false) ||
        Status.type() != sys::fs::file_type::regular_file)
      continue;
    SmallString<256> To(Beside);
    sys::path::append(To, sys::path::filename(It->path()));
    (void)sys::fs::rename(It->path(), To);
  }
  return Error::success();
}

} // namespace ulto
