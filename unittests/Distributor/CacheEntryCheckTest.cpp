//===- CacheEntryCheckTest.cpp - Whose cache files a link reads -----------===//

#include "ulto/Distributor/CacheEntryCheck.h"

#include "gtest/gtest.h"

using namespace ulto;

namespace {

TEST(CacheEntryCheckTest, OnlyTrustedWritersEntriesAreTaken) {
  struct stat S = {};
  S.st_mode = S_IFREG | 0644;
  S.st_size = 100;
  S.st_uid = 1000;
  S.st_gid = 50;
  EXPECT_EQ(checkEntry(S, 1000, std::nullopt), EntryCheck::Trusted);
  EXPECT_EQ(checkEntry(S, 1001, std::nullopt), EntryCheck::Untrusted);
  // The group's, when its owner is a member: in a setgid directory anyone
  // who can write makes files of its group.
  auto Member = [](uid_t Owner) { return Owner == 1000; };
  EXPECT_EQ(checkEntry(S, 1001, gid_t(50), Member), EntryCheck::Trusted);
  EXPECT_EQ(checkEntry(S, 1001, gid_t(50)), EntryCheck::Untrusted);
  EXPECT_EQ(checkEntry(S, 1001, gid_t(51), Member), EntryCheck::Untrusted);
  S.st_size = MaxEntrySize + 1;
  EXPECT_EQ(checkEntry(S, 1000, std::nullopt), EntryCheck::Damaged);
  S.st_size = 100;
  S.st_mode = S_IFIFO | 0644;
  EXPECT_EQ(checkEntry(S, 1000, std::nullopt), EntryCheck::Damaged);
}

} // namespace
