//===- AtomicFile.cpp - A file written whole or not at all ----------------===//

#include "ulto/Support/AtomicFile.h"

#include "llvm/Support/FileSystem.h"

using namespace llvm;

namespace ulto {

Error writeAtomically(StringRef Path, function_ref<void(raw_ostream &)> Write) {
  if (Path == "-") {
    Write(outs());
    outs().flush();
    return Error::success();
  }
  Expected<sys::fs::TempFile> Temp =
      sys::fs::TempFile::create(Path + ".tmp-%%%%%%");
  if (!Temp)
    return createFileError(Path, Temp.takeError());
  std::error_code EC;
  {
    raw_fd_ostream OS(Temp->FD, /*shouldClose=*/false);
    Write(OS);
    OS.flush();
    EC = OS.error();
    // Reported here, not by the stream's destructor (a fatal error).
    OS.clear_error();
  }
  if (EC) {
    consumeError(Temp->discard());
    return createFileError(Path, EC);
  }
  if (Error E = Temp->keep(Path))
    return createFileError(Path, std::move(E));
  return Error::success();
}

Error writeAtomically(StringRef Path, StringRef Bytes) {
  return writeAtomically(Path, [&](raw_ostream &OS) { OS << Bytes; });
}

} // namespace ulto
