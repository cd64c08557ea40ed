//===- LoadRemotePlugin.cpp - Finding and loading libUltoRemote.so --------===//

#include "ulto/Remote/RemotePlugin.h"
#include "ulto/Support/InstalledLibrary.h"

#include "llvm/Support/DynamicLibrary.h"

using namespace llvm;

namespace ulto {

Expected<const RemotePlugin &> loadRemotePlugin(StringRef Executable) {
  std::string Path = installedLibrary(Executable, "libUltoRemote.so");
  // Loaded once per process: LLVM keeps the handle, dlopen counts the rest.
  std::string Error;
  sys::DynamicLibrary Library =
      sys::DynamicLibrary::getPermanentLibrary(Path.c_str(), &Error);
  if (!Library.isValid())
    return createStringError("cannot load remote execution from %s: %s",
                             Path.c_str(), Error.c_str());
  auto *Entry = reinterpret_cast<const RemotePlugin *(*)()>(
      Library.getAddressOfSymbol("ultoRemotePlugin"));
  if (!Entry)
    return createStringError("%s is not ulto's remote execution library: it "
                             "has no ultoRemotePlugin",
                             Path.c_str());
  return *Entry();
}

} // namespace ulto
