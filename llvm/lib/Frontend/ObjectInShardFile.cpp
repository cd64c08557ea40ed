//===- ObjectInShardFile.cpp - A backend job's object in its shard's file -===//

#include "ulto/Frontend/ObjectInShardFile.h"
#include "ulto/Support/AtomicFile.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/VirtualOutputBackends.h"
#include "llvm/Support/VirtualOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ulto {
namespace {

// The object, kept in memory until clang keeps it.
class ObjectOutput final
    : public RTTIExtends<ObjectOutput, vfs::OutputFileImpl> {
public:
  static char ID;

  ObjectOutput(std::string Object, std::string Shard,
               std::optional<vfs::OutputConfig> Config,
               IntrusiveRefCntPtr<vfs::OutputBackend> OnDisk)
      : Object(std::move(Object)), Shard(std::move(Shard)), Config(Config),
        OnDisk(std::move(OnDisk)) {}

  Error keep() override {
    StringRef Written(Bytes.data(), Bytes.size());
    if (writeAtomicallyInPlaceOf(Shard, Object, Written))
      return Error::success();
    Expected<vfs::OutputFile> File = OnDisk->createFile(Object, Config);
    if (!File)
      return File.takeError();
    File->getOS() << Written;
    return File->keep();
  }
  Error discard() override { return Error::success(); }
  raw_pwrite_stream &getOS() override { return OS; }

private:
  std::string Object;
  std::string Shard;
  std::optional<vfs::OutputConfig> Config;
  IntrusiveRefCntPtr<vfs::OutputBackend> OnDisk;
  SmallVector<char, 0> Bytes;
  raw_svector_ostream OS{Bytes};
};

char ObjectOutput::ID = 0;

class ObjectInShardBackend final : public vfs::ProxyOutputBackend {
public:
  ObjectInShardBackend(StringRef Object, StringRef Shard)
      : ProxyOutputBackend(makeIntrusiveRefCnt<vfs::OnDiskOutputBackend>()),
        Object(Object), Shard(Shard) {}

protected:
  IntrusiveRefCntPtr<vfs::OutputBackend> cloneImpl() const override {
    return makeIntrusiveRefCnt<ObjectInShardBackend>(Object, Shard);
  }

  Expected<std::unique_ptr<vfs::OutputFileImpl>>
  createFileImpl(StringRef Path,
                 std::optional<vfs::OutputConfig> Config) override {
    if (Path != Object)
      return ProxyOutputBackend::createFileImpl(Path, Config);
    return std::make_unique<ObjectOutput>(Object, Shard, Config,
                                          &getUnderlyingBackend());
  }

private:
  std::string Object;
  std::string Shard;
};

} // namespace

IntrusiveRefCntPtr<vfs::OutputBackend> objectInShardFile(StringRef Object,
                                                         StringRef Shard) {
  return makeIntrusiveRefCnt<ObjectInShardBackend>(Object, Shard);
}

} // namespace ulto
