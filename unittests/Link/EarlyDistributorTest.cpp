//===- EarlyDistributorTest.cpp - ulto dist, started as the link begins ---===//
//
// The `ulto` started here is a shell script that copies what arrives on its
// --await-command= descriptor to a file, so the test sees what ulto dist
// would get, and when.
//
//===----------------------------------------------------------------------===//

#include "ulto/Link/EarlyDistributor.h"

#include "Common/Files.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <sys/socket.h>
#include <unistd.h>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

std::string writeScript(StringRef Dir, StringRef Name, StringRef Text) {
  std::string Path = (Dir + "/" + Name).str();
  {
    std::error_code EC;
    raw_fd_ostream OS(Path, EC);
    EXPECT_FALSE(EC);
    OS << Text;
  }
  EXPECT_FALSE(sys::fs::setPermissions(
      Path, sys::fs::all_exe | sys::fs::owner_read | sys::fs::owner_write));
  return Path;
}

struct Fixture {
  unittest::TempDir Dir{"early", /*Unique=*/true};
  std::string Received = (Dir.path() + "/received").str();
  std::string Ulto =
      writeScript(Dir.path(), "ulto",
                  "#!/bin/sh\n"
                  "echo \"$1 ${2%=*}=\" > " +
                      Received +
                      "\n"
                      "eval \"cat <&${2#--await-command=}\" >> " +
                      Received + "\n");
  std::string Attach = writeScript(Dir.path(), "ulto-dist-attach", "");
};

TEST(EarlyDistributorTest, TheDistributorGetsWhatArrivesOnTheSocket) {
  Fixture F;
  {
    std::unique_ptr<EarlyDistributor> Early =
        EarlyDistributor::start(F.Ulto, F.Attach);
    ASSERT_TRUE(Early);
    EXPECT_EQ(Early->distributor(), F.Attach);
    StringRef Argument = Early->attachArgument();
    ASSERT_TRUE(Argument.consume_front("--attach="));
    int FD;
    ASSERT_FALSE(Argument.getAsInteger(10, FD));
    // What the attach program, lld's child, would write on its inherited end.
    ASSERT_EQ(write(FD, "dist\0x\0", 7), 7);
  }
  // The destructor closed ld.ulto's end and waited for `ulto dist`.
  EXPECT_EQ(readFile(F.Received),
            std::string("dist --await-command=\ndist\0x\0", 29));
}

TEST(EarlyDistributorTest, ALinkWithoutDistributorEndsIt) {
  Fixture F;
  EarlyDistributor::start(F.Ulto, F.Attach).reset();
  EXPECT_EQ(readFile(F.Received), "dist --await-command=\n");
}

TEST(EarlyDistributorTest, NothingStartsWithoutTheAttachProgram) {
  Fixture F;
  EXPECT_FALSE(
      EarlyDistributor::start(F.Ulto, (F.Dir.path() + "/missing").str()));
  EXPECT_FALSE(sys::fs::exists(F.Received));
}

} // namespace
