//===- NativeFallbackTest.cpp - Fat objects whose bitcode is too new ------===//

#include "ulto/Link/NativeFallback.h"
#include "LinkTestInputs.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Object/Archive.h"
#include "llvm/Object/IRObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <sys/stat.h>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

class NativeFallbackTest : public LinkTest {};

bool hasBitcode(MemoryBufferRef Object) {
  Expected<MemoryBufferRef> Bitcode =
      object::IRObjectFile::findBitcodeInMemBuffer(Object);
  if (!Bitcode)
    consumeError(Bitcode.takeError());
  return bool(Bitcode);
}

TEST(ProducerTest, MajorVersions) {
  EXPECT_EQ(producerMajorVersion("LLVM22.1.8"), 22u);
  EXPECT_EQ(producerMajorVersion("LLVM23.0.0git"), 23u);
  EXPECT_EQ(producerMajorVersion("APPLE_1_1500.3.9.4_0"), std::nullopt);
  EXPECT_EQ(producerMajorVersion("LLVM"), std::nullopt);
  EXPECT_EQ(producerMajorVersion(""), std::nullopt);
  EXPECT_TRUE(isFromNewerLLVM("LLVM99.1.8"));
  EXPECT_FALSE(isFromNewerLLVM("LLVM" LLVM_VERSION_STRING));
  EXPECT_FALSE(isFromNewerLLVM("LLVM15.0.6"));
  EXPECT_FALSE(isFromNewerLLVM("APPLE_1_1500.3.9.4_0"));
  EXPECT_EQ(describeProducer("LLVM99.1.8"), "LLVM 99.1.8");
}

// An object is copied without its bitcode; in an archive, only the members
// named lose theirs.
TEST_F(NativeFallbackTest, CopiesWithoutTheBitcode) {
  std::string IR = functionsIR({"f"});
  std::string Fat = elfObject(IR, regularBitcode(IR));
  std::string Other =
      elfObject(functionsIR({"g"}), regularBitcode(functionsIR({"g"})));
  std::string ObjectPath = file("fat.o", Fat);
  std::string ArchivePath = archive("lib.a", {{"fat.o", Fat}, {"g.o", Other}});

  Expected<NativeFallback> Copies = NativeFallback::create();
  ASSERT_TRUE(bool(Copies)) << toString(Copies.takeError());

  // Only the user can enter it.
  struct stat Status;
  ASSERT_EQ(::stat(sys::path::parent_path(
                       StringRef(*Copies->add(ObjectPath, {Fat, "fat.o"},
                                              {{Fat, "fat.o"}}))
                           .rsplit('=')
                           .second)
                       .str()
                       .c_str(),
                   &Status),
            0);
  EXPECT_EQ(Status.st_mode & 0777, 0700u);

  MemoryBufferRef FatRef(Fat, "fat.o");
  Expected<std::string> Arg = Copies->add(ObjectPath, FatRef, {FatRef});
  ASSERT_TRUE(bool(Arg)) << toString(Arg.takeError());
  StringRef Copy = StringRef(*Arg).split('=').second.split('=').second;
  ASSERT_TRUE(StringRef(*Arg).starts_with("--remap-inputs=" + ObjectPath));
  ErrorOr<std::unique_ptr<MemoryBuffer>> Native = MemoryBuffer::getFile(Copy);
  ASSERT_TRUE(bool(Native));
  EXPECT_FALSE(hasBitcode(**Native));

  ErrorOr<std::unique_ptr<MemoryBuffer>> Lib =
      MemoryBuffer::getFile(ArchivePath);
  ASSERT_TRUE(bool(Lib));
  Expected<std::unique_ptr<object::Archive>> A = object::Archive::create(**Lib);
  ASSERT_TRUE(bool(A));
  std::vector<MemoryBufferRef> Members;
  Error Err = Error::success();
  for (const object::Archive::Child &C : (*A)->children(Err))
    Members.push_back(cantFail(C.getMemoryBufferRef()));
  ASSERT_FALSE(bool(Err));
  ASSERT_EQ(Members.size(), 2u);
  Arg = Copies->add(ArchivePath, **Lib, {Members[0]});
  ASSERT_TRUE(bool(Arg)) << toString(Arg.takeError());
  Copy = StringRef(*Arg).rsplit('=').second;
  ErrorOr<std::unique_ptr<MemoryBuffer>> CopiedLib =
      MemoryBuffer::getFile(Copy);
  ASSERT_TRUE(bool(CopiedLib));
  Expected<std::unique_ptr<object::Archive>> B =
      object::Archive::create(**CopiedLib);
  ASSERT_TRUE(bool(B));
  std::vector<bool> Fatness;
  for (const object::Archive::Child &C : (*B)->children(Err))
    Fatness.push_back(hasBitcode(cantFail(C.getMemoryBufferRef())));
  ASSERT_FALSE(bool(Err));
  EXPECT_EQ(Fatness, (std::vector<bool>{false, true}));

  // lld takes '=' as the separator and '*?[' as a pattern.
  for (StringRef Bad : {"a=b.o", "a*.o"}) {
    Expected<std::string> Refused = Copies->add(path(Bad), FatRef, {FatRef});
    EXPECT_FALSE(bool(Refused)) << Bad.str();
    consumeError(Refused.takeError());
  }

  Copies->remove();
  EXPECT_FALSE(sys::fs::exists(Copy));
}

} // namespace
