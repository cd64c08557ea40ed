//===- ObjectCheck.cpp - Is a backend's output fit to link? ---------------===//

#include "ulto/Distributor/ObjectCheck.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace ulto {

Error checkBackendObject(MemoryBufferRef Object, const Triple &Target) {
  if (Object.getBufferSize() == 0)
    return createStringError("is empty");
  Expected<std::unique_ptr<object::ObjectFile>> File =
      object::ObjectFile::createObjectFile(Object);
  if (!File)
    return createStringError("is not an object file: %s",
                             toString(File.takeError()).c_str());
  if (!(*File)->isRelocatableObject())
    return createStringError("is not a relocatable object file");
  if ((*File)->getArch() != Target.getArch())
    return createStringError(
        "is an object for %s, not for %s",
        Triple::getArchTypeName((*File)->getArch()).str().c_str(),
        Target.str().c_str());
  return Error::success();
}

Expected<Triple> readModuleTriple(StringRef Path) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(
      Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buffer)
    return createStringError(Buffer.getError(), "%s: %s", Path.str().c_str(),
                             Buffer.getError().message().c_str());
  Expected<std::string> TripleText =
      getBitcodeTargetTriple((*Buffer)->getMemBufferRef());
  if (!TripleText)
    return createStringError("%s: not a bitcode module: %s", Path.str().c_str(),
                             toString(TripleText.takeError()).c_str());
  return Triple(*TripleText);
}

} // namespace ulto
