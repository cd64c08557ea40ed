//===- AtomicFile.cpp - A file written whole or not at all ----------------===//

#include "ulto/Support/AtomicFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Signals.h"

#include <optional>

using namespace llvm;

namespace ulto {

namespace {

SmallString<128> temporaryModel(StringRef Path) {
  SmallString<128> Model(Path);
  Model += ".tmp-%%%%%%";
  return Model;
}

// The temporary file next to the destination: LLVM's TempFile, or the same
// without its registration for removal on a signal.
class Temporary {
public:
  static Expected<Temporary> create(StringRef Path, OnSignal Cleanup) {
    Temporary T;
    SmallString<128> Model = temporaryModel(Path);
    if (Cleanup == OnSignal::RemoveTemporary) {
      Expected<sys::fs::TempFile> File = sys::fs::TempFile::create(Model);
      if (!File)
        return File.takeError();
      T.FD = File->FD;
      T.Registered.emplace(std::move(*File));
    } else if (std::error_code EC =
                   sys::fs::createUniqueFile(Model, T.FD, T.Unregistered)) {
      return errorCodeToError(EC);
    }
    return T;
  }

  int fd() const { return FD; }

  void discard() {
    if (Registered) {
      consumeError(Registered->discard());
      return;
    }
    sys::Process::SafelyCloseFileDescriptor(FD);
    sys::fs::remove(Unregistered);
  }

  Error keep(StringRef Path, Existing Special) {
    if (Registered && Special == Existing::WriteInto)
      return Registered->keep(Path);
    // LLVM's keep copies into whatever a rename cannot replace: another
    // user's file in a sticky directory would be written into.
    if (Registered) {
      Unregistered = Registered->TmpName;
      if (Error E = Registered->keep())
        return E;
    } else {
      sys::Process::SafelyCloseFileDescriptor(FD);
    }
    if (std::error_code EC = sys::fs::rename(Unregistered, Path)) {
      sys::fs::remove(Unregistered);
      return errorCodeToError(EC);
    }
    return Error::success();
  }

private:
  int FD = -1;
  std::optional<sys::fs::TempFile> Registered;
  SmallString<128> Unregistered;
};

// Writes through \p Write and reports the stream's error here, not from its
// destructor (a fatal error).
std::error_code writeStream(raw_fd_ostream &OS,
                            function_ref<void(raw_ostream &)> Write) {
  Write(OS);
  OS.flush();
  std::error_code EC = OS.error();
  OS.clear_error();
  return EC;
}

Error writeInPlace(StringRef Path, function_ref<void(raw_ostream &)> Write) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
  if (!EC)
    EC = writeStream(OS, Write);
  return EC ? createFileError(Path, EC) : Error::success();
}

} // namespace

Error writeAtomically(StringRef Path, function_ref<void(raw_ostream &)> Write,
                      OnSignal Cleanup, Existing Special) {
  if (Path == "-") {
    Write(outs());
    outs().flush();
    return Error::success();
  }
  // Not a file to replace (/dev/null, a FIFO): written to, as clang does.
  // Renaming over it would replace a device with a file.
  sys::fs::file_status Status;
  if (Special == Existing::WriteInto && !sys::fs::status(Path, Status) &&
      sys::fs::exists(Status) &&
      Status.type() != sys::fs::file_type::regular_file)
    return writeInPlace(Path, Write);
  Expected<Temporary> Temp = Temporary::create(Path, Cleanup);
  if (!Temp)
    return createFileError(Path, Temp.takeError());
  std::error_code EC;
  {
    raw_fd_ostream OS(Temp->fd(), /*shouldClose=*/false);
    EC = writeStream(OS, Write);
  }
  if (EC) {
    Temp->discard();
    return createFileError(Path, EC);
  }
  if (Error E = Temp->keep(Path, Special))
    return createFileError(Path, std::move(E));
  return Error::success();
}

Error writeAtomically(StringRef Path, StringRef Bytes, OnSignal Cleanup,
                      Existing Special) {
  return writeAtomically(
      Path, [&](raw_ostream &OS) { OS << Bytes; }, Cleanup, Special);
}

} // namespace ulto
