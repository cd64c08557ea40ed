//===- AttachedCommand.cpp - ulto dist started ahead of its link ----------===//

#include "ulto/DistProtocol/AttachedCommand.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

using namespace llvm;

namespace ulto {

Expected<std::optional<std::vector<std::string>>> readAttachedCommand(int FD) {
  SmallString<1024> Bytes;
  if (Error E = sys::fs::readNativeFileToEOF(FD, Bytes))
    return createStringError("cannot read the command line: " +
                             toString(std::move(E)));
  if (Bytes.empty())
    return std::nullopt;
  if (Bytes.back() != '\0')
    return createStringError("the command line sent was cut short");
  std::vector<std::string> Args;
  for (StringRef Rest = Bytes; !Rest.empty();) {
    auto [Arg, Tail] = Rest.split('\0');
    Args.push_back(Arg.str());
    Rest = Tail;
  }
  return Args;
}

Expected<bool> readChecksVerdict(int FD) {
  char Verdict;
  ssize_t Read;
  do
    Read = ::read(FD, &Verdict, 1);
  while (Read < 0 && errno == EINTR);
  if (Read < 0)
    return createStringError(std::error_code(errno, std::generic_category()),
                             "cannot read the link's checks: %s",
                             strerror(errno));
  return Read == 1 && Verdict == ChecksPassed;
}

Error replyExitStatus(int FD, int Code) {
  unsigned char Status = Code & 0xff;
  ssize_t Written;
  do
    Written = ::write(FD, &Status, 1);
  while (Written < 0 && errno == EINTR);
  if (Written != 1)
    return createStringError(std::error_code(errno, std::generic_category()),
                             "cannot send the exit status: %s",
                             strerror(errno));
  return Error::success();
}

} // namespace ulto
