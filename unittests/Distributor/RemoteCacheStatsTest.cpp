//===- RemoteCacheStatsTest.cpp - The user's remote cache totals ----------===//
//
// Links add their counts; concurrent links lose none; a damaged file or one
// reached through a symbolic link counts as none, and the next link's
// totals replace it.
//
//===----------------------------------------------------------------------===//

#include "ulto/Distributor/RemoteCacheStats.h"

#include "Common/ErrorText.h"
#include "Common/TestJobs.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <thread>
#include <unistd.h>

using namespace llvm;
using namespace ulto;

namespace {

RemoteCacheCounts link(unsigned Hits, unsigned Misses) {
  RemoteCacheCounts C;
  C.Hits = Hits;
  C.Misses = Misses;
  C.Uploaded = Misses;
  C.BytesDown = 1000 * Hits;
  C.BytesUp = 1000 * Misses;
  return C;
}

std::string statsFile(StringRef Cache) {
  SmallString<128> Path(Cache);
  sys::path::append(Path, "remote-" + std::to_string(::getuid()), "stats.json");
  return std::string(Path);
}

TEST(RemoteCacheStatsTest, LinksAddUp) {
  unittest::TempDir Cache("remote-stats", /*Unique=*/true);
  EXPECT_EQ(readRemoteCacheStats(Cache.path()).Hits, 0u);
  EXPECT_EQ(test::errorText(addRemoteCacheStats(Cache.path(), link(0, 4))), "");
  EXPECT_EQ(test::errorText(addRemoteCacheStats(Cache.path(), link(4, 0))), "");
  RemoteCacheCounts Totals = readRemoteCacheStats(Cache.path());
  EXPECT_EQ(Totals.Hits, 4u);
  EXPECT_EQ(Totals.Misses, 4u);
  EXPECT_EQ(Totals.Uploaded, 4u);
  EXPECT_EQ(Totals.BytesDown, 4000u);
  EXPECT_EQ(Totals.BytesUp, 4000u);
  EXPECT_EQ(Totals.format(),
            "4 hits, 4 misses, 4 uploaded; 3.9 KiB down, 3.9 KiB up");
}

TEST(RemoteCacheStatsTest, ConcurrentLinksLoseNothing) {
  unittest::TempDir Cache("remote-stats", /*Unique=*/true);
  std::vector<std::thread> Links;
  for (int I = 0; I != 8; ++I)
    Links.emplace_back([&] {
      for (int J = 0; J != 10; ++J)
        consumeError(addRemoteCacheStats(Cache.path(), link(1, 1)));
    });
  for (std::thread &T : Links)
    T.join();
  EXPECT_EQ(readRemoteCacheStats(Cache.path()).Hits, 80u);
}

TEST(RemoteCacheStatsTest, DamagedOrLinkedFilesCountAsNone) {
  unittest::TempDir Cache("remote-stats", /*Unique=*/true);
  ASSERT_EQ(test::errorText(addRemoteCacheStats(Cache.path(), link(2, 0))), "");
  std::string Stats = statsFile(Cache.path());
  test::writeFile(Stats, "{\"hits\": 7, \"misses\"");
  EXPECT_EQ(readRemoteCacheStats(Cache.path()).Hits, 0u);
  ASSERT_EQ(test::errorText(addRemoteCacheStats(Cache.path(), link(1, 0))), "");
  EXPECT_EQ(readRemoteCacheStats(Cache.path()).Hits, 1u);

  // Another file's totals, through a symbolic link, are not taken.
  unittest::TempDir Other("remote-stats", /*Unique=*/true);
  ASSERT_EQ(test::errorText(addRemoteCacheStats(Other.path(), link(9, 0))), "");
  ASSERT_FALSE(sys::fs::remove(Stats));
  ASSERT_FALSE(sys::fs::create_link(statsFile(Other.path()), Stats));
  EXPECT_EQ(readRemoteCacheStats(Cache.path()).Hits, 0u);
}

} // namespace
