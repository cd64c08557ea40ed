//===- ObjectCheckTest.cpp - What the link may use ------------------------===//

#include "ulto/Distributor/ObjectCheck.h"

#include "Common/ErrorText.h"
#include "Common/TestJobs.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

TEST(ObjectCheckTest, AcceptsRelocatableObjectsForTheTarget) {
  std::string Object = elfObject("ET_REL", "EM_X86_64");
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
  std::string Exec = elfObject("ET_EXEC", "EM_X86_64");
  EXPECT_EQ(errorText(checkBackendObject(MemoryBufferRef(Exec, "o"), X86)),
            "is not a relocatable object file");
  std::string Arm = elfObject("ET_REL", "EM_AARCH64");
  EXPECT_EQ(errorText(checkBackendObject(MemoryBufferRef(Arm, "o"), X86)),
            "is an object for aarch64, not for x86_64-pc-linux-gnu");
}

} // namespace
