//===- MakeJobserver.cpp - Whether make's jobserver is really there -------===//

#include "ulto/Support/MakeJobserver.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Process.h"

#include <cstdlib>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace ulto {

static bool isJobserverFlag(StringRef Word) {
  return Word.starts_with("--jobserver-auth=") ||
         Word.starts_with("--jobserver-fds=");
}

// The value of the last jobserver flag of \p MakeFlags, as make reads it.
static StringRef jobserverAuth(StringRef MakeFlags) {
  SmallVector<StringRef, 8> Words;
  SplitString(MakeFlags, Words);
  StringRef Auth;
  for (StringRef Word : Words)
    if (isJobserverFlag(Word))
      Auth = Word.split('=').second;
  return Auth;
}

JobserverCheck checkJobserver(StringRef MakeFlags, DescriptorFacts OfDescriptor,
                              PathFacts OfPath) {
  StringRef Auth = jobserverAuth(MakeFlags);
  if (Auth.empty())
    return {};
  auto unusable = [](const Twine &Problem) {
    return JobserverCheck{JobserverCheck::Unusable, Problem.str()};
  };

  if (Auth.consume_front("fifo:")) {
    StringRef Path = Auth;
    std::optional<FileFacts> Fifo = OfPath(Path);
    if (!Fifo)
      return unusable("'" + Path + "' does not exist");
    if (!Fifo->IsFifo)
      return unusable("'" + Path + "' is not a FIFO");
    if (!Fifo->OwnedByUser)
      return unusable("'" + Path + "' belongs to another user");
    return {JobserverCheck::Usable, ""};
  }

  auto [ReadText, WriteText] = Auth.split(',');
  int Read, Write;
  if (ReadText.getAsInteger(10, Read) || WriteText.getAsInteger(10, Write) ||
      Read < 0 || Write < 0)
    return unusable("'" + Auth + "' names no descriptors");
  std::optional<FileFacts> R = OfDescriptor(Read);
  std::optional<FileFacts> W = OfDescriptor(Write);
  if (!R || !W)
    return unusable("descriptor " + Twine(R ? Write : Read) + " is closed");
  if (!R->IsFifo || !W->IsFifo)
    return unusable("descriptor " + Twine(R->IsFifo ? Write : Read) +
                    " is not a pipe");
  if (R->Device != W->Device || R->Inode != W->Inode)
    return unusable("descriptors " + Twine(Read) + " and " + Twine(Write) +
                    " are not one pipe");
  if (!R->Readable || !W->Writable)
    return unusable("descriptor " + Twine(R->Readable ? Write : Read) +
                    " is the wrong end of the pipe");
  return {JobserverCheck::Usable, ""};
}

std::string withoutJobserver(StringRef MakeFlags) {
  SmallVector<StringRef, 8> Words;
  SplitString(MakeFlags, Words);
  std::string Kept;
  for (StringRef Word : Words)
    if (!isJobserverFlag(Word))
      Kept += (Kept.empty() ? "" : " ") + Word.str();
  return Kept;
}

static FileFacts factsOf(const struct stat &S) {
  FileFacts F;
  F.Device = S.st_dev;
  F.Inode = S.st_ino;
  F.IsFifo = S_ISFIFO(S.st_mode);
  F.OwnedByUser = S.st_uid == geteuid();
  return F;
}

JobserverCheck vetInheritedJobserver() {
  std::optional<std::string> MakeFlags = sys::Process::GetEnv("MAKEFLAGS");
  if (!MakeFlags)
    return {};
  JobserverCheck Check = checkJobserver(
      *MakeFlags,
      [](int FD) -> std::optional<FileFacts> {
        struct stat S;
        int Mode = fcntl(FD, F_GETFL);
        if (Mode < 0 || fstat(FD, &S) != 0)
          return std::nullopt;
        FileFacts F = factsOf(S);
        F.Readable = (Mode & O_ACCMODE) != O_WRONLY;
        F.Writable = (Mode & O_ACCMODE) != O_RDONLY;
        return F;
      },
      [](StringRef Path) -> std::optional<FileFacts> {
        struct stat S;
        if (stat(Path.str().c_str(), &S) != 0)
          return std::nullopt;
        return factsOf(S);
      });
  if (Check.Kind == JobserverCheck::Unusable)
    setenv("MAKEFLAGS", withoutJobserver(*MakeFlags).c_str(), 1);
  return Check;
}

bool hasMakeJobserver() {
  std::optional<std::string> MakeFlags = sys::Process::GetEnv("MAKEFLAGS");
  return MakeFlags && !jobserverAuth(*MakeFlags).empty();
}

} // namespace ulto
