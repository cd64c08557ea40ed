//===- ServedTargetsTest.cpp ----------------------------------------------===//

#include "ulto/Frontend/ServedTargets.h"
#include "llvm/TargetParser/Triple.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;

namespace {

// Triples as clang's driver makes them (x86_64-w64-mingw32 is
// x86_64-w64-windows-gnu).
bool served(StringRef T) {
  return isServedTarget(Triple(Triple::normalize(T)));
}

TEST(ServedTargetsTest, ELFTargetsLldLinks) {
  EXPECT_TRUE(served("x86_64-pc-linux-gnu"));
  EXPECT_TRUE(served("i686-linux-gnu"));
  EXPECT_TRUE(served("x86_64-linux-gnux32"));
  EXPECT_TRUE(served("aarch64-linux-android"));
  EXPECT_TRUE(served("x86_64-unknown-freebsd14"));
  EXPECT_TRUE(served("thumbv7m-none-unknown-eabi"));
  EXPECT_TRUE(served("armv7m-none-eabi"));
  EXPECT_TRUE(served("riscv64-unknown-elf"));
  EXPECT_TRUE(served("powerpc64le-linux-gnu"));
  EXPECT_TRUE(served("mips64el-linux-gnuabi64"));
  EXPECT_TRUE(served("loongarch64-linux-gnu"));
  EXPECT_TRUE(served("s390x-linux-gnu"));
  EXPECT_TRUE(served("sparcv9-unknown-linux-gnu"));
}

TEST(ServedTargetsTest, OtherTargetsAreClang22s) {
  EXPECT_FALSE(served("x86_64-sie-ps5"));
  EXPECT_FALSE(served("x86_64-scei-ps4"));
  EXPECT_FALSE(served("wasm32-unknown-unknown"));
  EXPECT_FALSE(served("wasm32-wasi"));
  EXPECT_FALSE(served("x86_64-pc-windows-msvc"));
  EXPECT_FALSE(served("x86_64-w64-mingw32"));
  EXPECT_FALSE(served("x86_64-apple-darwin"));
  EXPECT_FALSE(served("arm64-apple-ios"));
  EXPECT_FALSE(served("powerpc64-ibm-aix"));
  EXPECT_FALSE(served("s390x-ibm-zos"));
  // ELF, but lld does not link them or clang links them with a tool of its
  // own.
  EXPECT_FALSE(served("sparc-unknown-linux-gnu"));
  EXPECT_FALSE(served("m68k-linux-gnu"));
  EXPECT_FALSE(served("hexagon-unknown-linux-musl"));
  EXPECT_FALSE(served("amdgcn-amd-amdhsa"));
  EXPECT_FALSE(served("nvptx64-nvidia-cuda"));
  EXPECT_FALSE(served("avr"));
  EXPECT_FALSE(served("msp430"));
}

} // namespace
