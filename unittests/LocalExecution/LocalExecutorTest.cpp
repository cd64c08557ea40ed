//===- LocalExecutorTest.cpp ----------------------------------------------===//

#include "ulto/LocalExecution/LocalExecutor.h"
#include "gtest/gtest.h"

#include <cerrno>

using namespace ulto;
using std::chrono::milliseconds;

namespace {

TEST(LocalExecutorTest, AProcessLimitReachedForAMomentBacksOff) {
  milliseconds Total(0);
  unsigned Attempt = 0;
  while (std::optional<milliseconds> Delay = startRetryDelay(EAGAIN, Attempt)) {
    if (Attempt > 0) {
      EXPECT_EQ(*Delay, 2 * *startRetryDelay(EAGAIN, Attempt - 1));
    }
    Total += *Delay;
    ++Attempt;
  }
  EXPECT_EQ(startRetryDelay(EAGAIN, 0), milliseconds(10));
  EXPECT_EQ(Attempt, 7u);
  EXPECT_EQ(Total, milliseconds(1270));
}

TEST(LocalExecutorTest, OtherFailuresToStartAreFinal) {
  for (int Errno : {0, ENOENT, EACCES, ECHILD, EPIPE, ENOMEM})
    EXPECT_EQ(startRetryDelay(Errno, 0), std::nullopt) << Errno;
}

} // namespace
