//===- ObjectCheckTest.cpp - What the link may use ------------------------===//

#include "ulto/Distributor/ObjectCheck.h"

#include "Common/ErrorText.h"
#include "llvm/ObjectYAML/yaml2obj.h"
#include "llvm/Support/YAMLTraits.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

std::string elf(StringRef Type, StringRef Machine) {
  std::string YAML = ("--- !ELF\nFileHeader:\n  Class: ELFCLASS64\n"
                      "  Data: ELFDATA2LSB\n  Type: " +
                      Type + "\n  Machine: " + Machine + "\n")
                         .str();
  std::string Bytes;
  raw_string_ostream OS(Bytes);
  yaml::Input YIn(YAML);
  EXPECT_TRUE(yaml::convertYAML(YIn, OS, [](const Twine &) {}));
  return Bytes;
}

TEST(ObjectCheckTest, AcceptsRelocatableObjectsForTheTarget) {
  std::string Object = elf("ET_REL", "EM_X86_64");
  EXPECT_EQ(errorText(checkBackendObject(MemoryBufferRef(Object, "o"),
                                         Triple("x86_64-pc-linux-gnu"))),
            "");
}

TEST(ObjectCheckTest, SaysWhatIsWrong) {
  Triple X86("x86_64-pc-linux-gnu");
  EXPECT_EQ(errorText(checkBackendObject(MemoryBufferRef("", "o"), X86)),
            "is empty");
  EXPECT_NE(errorText(checkBackendObject(MemoryBufferRef("junk", "o"), X86)),
            "");
  std::string Exec = elf("ET_EXEC", "EM_X86_64");
  EXPECT_EQ(errorText(checkBackendObject(MemoryBufferRef(Exec, "o"), X86)),
            "is not a relocatable object file");
  std::string Arm = elf("ET_REL", "EM_AARCH64");
  EXPECT_EQ(errorText(checkBackendObject(MemoryBufferRef(Arm, "o"), X86)),
            "is an object for aarch64, not for x86_64-pc-linux-gnu");
}

} // namespace
