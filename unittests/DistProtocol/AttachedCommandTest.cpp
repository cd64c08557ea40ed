//===- AttachedCommandTest.cpp - ulto dist started ahead of its link ------===//

#include "ulto/DistProtocol/AttachedCommand.h"

#include "Common/ErrorText.h"
#include "gtest/gtest.h"

#include <sys/socket.h>
#include <unistd.h>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

// A socket pair, as ld.ulto makes it: [0] the attach program's end, [1]
// ulto dist's.
struct Ends {
  int FD[2];
  Ends() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, FD), 0); }
  ~Ends() {
    close(FD[0]);
    close(FD[1]);
  }
  void send(StringRef Bytes) {
    ASSERT_EQ(write(FD[0], Bytes.data(), Bytes.size()), ssize_t(Bytes.size()));
    shutdown(FD[0], SHUT_WR);
  }
};

TEST(AttachedCommandTest, ReadsTheArgumentsSent) {
  Ends E;
  E.send(StringRef("dist\0--no-cache\0\0app.1.dist-file.json\0", 38));
  auto Command = readAttachedCommand(E.FD[1]);
  ASSERT_TRUE(bool(Command)) << errorText(Command.takeError());
  ASSERT_TRUE(Command->has_value());
  EXPECT_EQ(**Command, (std::vector<std::string>{"dist", "--no-cache", "",
                                                 "app.1.dist-file.json"}));
}

TEST(AttachedCommandTest, NothingSentIsNoCommand) {
  Ends E;
  E.send("");
  auto Command = readAttachedCommand(E.FD[1]);
  ASSERT_TRUE(bool(Command)) << errorText(Command.takeError());
  EXPECT_FALSE(Command->has_value());
}

TEST(AttachedCommandTest, ACommandCutShortIsAnError) {
  Ends E;
  E.send(StringRef("dist\0--no-ca", 12));
  EXPECT_EQ(errorText(readAttachedCommand(E.FD[1]).takeError()),
            "the command line sent was cut short");
}

TEST(AttachedCommandTest, TheExitStatusIsOneByte) {
  Ends E;
  ASSERT_EQ(errorText(replyExitStatus(E.FD[1], 1)), "");
  ASSERT_EQ(errorText(replyExitStatus(E.FD[1], 0)), "");
  unsigned char Status[3];
  shutdown(E.FD[1], SHUT_WR);
  ASSERT_EQ(read(E.FD[0], Status, sizeof(Status)), 2);
  EXPECT_EQ(Status[0], 1);
  EXPECT_EQ(Status[1], 0);
}

} // namespace
