//===- DependencyFileTest.cpp - lld's --dependency-file, in the user's names
//===//

#include "ulto/Link/DependencyFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;

namespace {

TEST(DependencyFileTest, NamesAreEscapedAsLLDEscapesThem) {
  EXPECT_EQ(dependencyFileName("./lib/a b.o"), "lib/a\\ b.o");
  EXPECT_EQ(dependencyFileName("x#1$y.o"), "x\\#1$$y.o");
  EXPECT_EQ(dependencyFileName("a/../b.o"), "b.o");
}

// The output in the private directory and the inputs' other names, which
// begin with the output's name, become the user's, whole names only.
TEST(DependencyFileTest, WhatLLDOpenedIsNamedAsTheUserNamedIt) {
  unittest::TempDir Dir("dependency-file", /*Unique=*/true);
  std::string File(Dir.path("app.d"));
  {
    std::error_code EC;
    raw_fd_ostream OS(File, EC);
    ASSERT_FALSE(EC);
    OS << "bin/.ulto-link-a1b2c3/app: \\\n"
          " bin/.ulto-link-a1b2c3/app.ulto7.0000-main.o \\\n"
          " bin/.ulto-link-a1b2c3/app.ulto7.0001-libm.a\n"
          "\n"
          "bin/.ulto-link-a1b2c3/app.ulto7.0000-main.o:\n"
          "\n"
          "bin/.ulto-link-a1b2c3/app.ulto7.0001-libm.a:\n";
  }
  ASSERT_FALSE(bool(renameInDependencyFile(
      File, {{"bin/.ulto-link-a1b2c3/app", "bin/app"},
             {"bin/.ulto-link-a1b2c3/app.ulto7.0000-main.o", "obj/my main.o"},
             {"bin/.ulto-link-a1b2c3/app.ulto7.0001-libm.a", "lib/libm.a"}})));
  ErrorOr<std::unique_ptr<MemoryBuffer>> Text = MemoryBuffer::getFile(File);
  ASSERT_TRUE(bool(Text));
  EXPECT_EQ((*Text)->getBuffer(), "bin/app: \\\n"
                                  " obj/my\\ main.o \\\n"
                                  " lib/libm.a\n"
                                  "\n"
                                  "obj/my\\ main.o:\n"
                                  "\n"
                                  "lib/libm.a:\n");
}

} // namespace
