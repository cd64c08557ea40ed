//===- FileDigest.cpp - Files read whole, hashed once ---------------------===//

#include "ulto/Distributor/FileDigest.h"

#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace ulto {

Expected<std::unique_ptr<MemoryBuffer>> readWholeFile(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return createStringError(Buffer.getError(), "%s: %s", Path.str().c_str(),
                             Buffer.getError().message().c_str());
  return std::move(*Buffer);
}

Digest blake3Of(StringRef Bytes) {
  return BLAKE3::hash<32>(arrayRefFromStringRef(Bytes));
}

Expected<std::string> FileDigests::hex(StringRef Path) {
  Expected<Digest> D = get(Path);
  if (!D)
    return D.takeError();
  return toHex(*D, /*LowerCase=*/true);
}

} // namespace ulto
