//===- DTLTONamesTest.cpp - Names lld-22 gives a distributed link's files -===//

#include "ulto/Support/DTLTONames.h"

#include "gtest/gtest.h"

using namespace ulto;

namespace {

TEST(DTLTONamesTest, ArchiveMembersFiles) {
  EXPECT_TRUE(isArchiveMemberFile("out/libm.a(m.o at 84).3.1A2B.o"));
  EXPECT_TRUE(isArchiveMemberFile("libx.a(a b.o at 8).12.7.o"));
  EXPECT_FALSE(isArchiveMemberFile("main.1.77.native.o"));
  EXPECT_FALSE(isArchiveMemberFile("libm.a(m.o at 84).o"));
  EXPECT_FALSE(isArchiveMemberFile("libm.a(m.o).3.1A2B.o"));
  EXPECT_FALSE(isArchiveMemberFile("libm.a(m.o at 84).3.1A2B.bc"));
}

TEST(DTLTONamesTest, TheOutputBehindLdUltosPrivateDirectory) {
  EXPECT_EQ(linkOutput("bin/.ulto-link-a1B2c3/app"), "bin/app");
  EXPECT_EQ(linkOutput(".ulto-link-a1B2c3/app"), "app");
  EXPECT_EQ(linkOutput("bin/app"), "bin/app");
  EXPECT_EQ(linkOutput("bin/.ulto-link-x/app"), "bin/.ulto-link-x/app");
}

} // namespace
