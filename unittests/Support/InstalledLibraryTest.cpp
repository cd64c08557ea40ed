//===- InstalledLibraryTest.cpp -------------------------------------------===//

#include "ulto/Support/InstalledLibrary.h"
#include "gtest/gtest.h"

using namespace ulto;

namespace {

TEST(InstalledLibraryTest, LibUltoBesideTheProgramsDirectory) {
  EXPECT_EQ(installedLibrary("/opt/ulto/bin/ld.ulto", "libUltoDist.so"),
            "/opt/ulto/lib/ulto/libUltoDist.so");
  EXPECT_EQ(installedLibrary("build/bin/ulto", "libUltoRemote.so"),
            "build/lib/ulto/libUltoRemote.so");
}

TEST(InstalledLibraryTest, DotsInTheProgramsPathGo) {
  EXPECT_EQ(installedLibrary("/opt/x/../ulto/./bin/ulto", "libUltoDist.so"),
            "/opt/ulto/lib/ulto/libUltoDist.so");
}

} // namespace
