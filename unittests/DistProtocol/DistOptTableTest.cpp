//===- DistOptTableTest.cpp - The options of ulto dist --------------------===//

#include "ulto/DistProtocol/DistOptTable.h"

#include "gtest/gtest.h"

#include <vector>

using namespace llvm;
using namespace ulto;

namespace {

// Whether ulto dist reads \p Option, as typed, as one that chooses the
// workers.
bool choosesWorkers(const char *Option) {
  unsigned MissingIndex, MissingCount;
  std::vector<const char *> Args = {Option};
  opt::InputArgList List =
      dist::optTable().ParseArgs(Args, MissingIndex, MissingCount);
  const opt::Arg *A = *List.begin();
  return dist::isWorkerOption(*A);
}

TEST(DistOptTableTest, WorkerOptionsAreKnownAsTyped) {
  for (const char *Option :
       {"--service", "--no-service", "--service-idle-limit=20",
        "--service-limit=0", "--jobs-per-process=1"})
    EXPECT_TRUE(choosesWorkers(Option)) << Option;
  // A flag takes no value; other options, and their prefixes, are not the
  // workers'.
  for (const char *Option :
       {"--service=1", "--service-limit", "--jobs=2", "--no-cache", "x"})
    EXPECT_FALSE(choosesWorkers(Option)) << Option;
}

// In the table's order.
TEST(DistOptTableTest, WorkerOptionsAreNamedFromTheTable) {
  EXPECT_EQ(dist::workerOptionNames(),
            "--jobs-per-process=, --no-service, --remote-cache=, --remote=, "
            "--service-idle-limit=, --service-limit= and --service");
}

} // namespace
