//===- BackendCacheTest.cpp - Entries round-trip; damage is a miss --------===//

#include "ulto/Distributor/BackendCache.h"

#include "Common/ErrorText.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

constexpr StringLiteral Key =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

TEST(BackendCacheTest, StoresAndFinds) {
  unittest::TempDir Dir("cache", /*Unique=*/true);
  Expected<std::unique_ptr<BackendCache>> Cache =
      BackendCache::open(Dir.path("sub"));
  ASSERT_EQ(errorText(Cache), "");
  bool Damaged = true;
  EXPECT_EQ((*Cache)->lookup(Key, Damaged), nullptr);
  EXPECT_FALSE(Damaged);

  ASSERT_EQ(errorText((*Cache)->store(Key, "object bytes")), "");
  std::unique_ptr<MemoryBuffer> Hit = (*Cache)->lookup(Key, Damaged);
  ASSERT_NE(Hit, nullptr);
  EXPECT_EQ(Hit->getBuffer(), "object bytes");
  EXPECT_FALSE(Damaged);

  Expected<CacheStats> Stats = readCacheStats(Dir.path("sub"));
  ASSERT_EQ(errorText(Stats), "");
  EXPECT_EQ(Stats->Entries, 1u);
  EXPECT_GT(Stats->Bytes, StringRef("object bytes").size());
}

TEST(BackendCacheTest, DamagedEntriesAreDroppedMisses) {
  unittest::TempDir Dir("cache", /*Unique=*/true);
  Expected<std::unique_ptr<BackendCache>> Cache =
      BackendCache::open(Dir.path());
  ASSERT_EQ(errorText(Cache), "");
  ASSERT_EQ(errorText((*Cache)->store(Key, "object bytes")), "");
  std::string Entry(Dir.path(("llvmcache-" + Key).str()));

  // Flip one byte of the object, then truncate: both are caught.
  for (bool Truncate : {false, true}) {
    ASSERT_EQ(errorText((*Cache)->store(Key, "object bytes")), "");
    {
      std::error_code EC;
      raw_fd_ostream OS(Entry, EC, sys::fs::OF_None);
      ASSERT_FALSE(EC);
      OS << (Truncate ? "obj" : "Object bytes");
    }
    bool Damaged = false;
    EXPECT_EQ((*Cache)->lookup(Key, Damaged), nullptr);
    EXPECT_TRUE(Damaged);
    EXPECT_FALSE(sys::fs::exists(Entry));
  }
}

TEST(BackendCacheTest, AnEntryCopiedUnderAnotherKeyIsDamaged) {
  unittest::TempDir Dir("cache", /*Unique=*/true);
  Expected<std::unique_ptr<BackendCache>> Cache =
      BackendCache::open(Dir.path());
  ASSERT_EQ(errorText(Cache), "");
  std::string Other(64, 'b');
  ASSERT_EQ(errorText((*Cache)->store(Key, "old object")), "");
  ASSERT_EQ(errorText((*Cache)->store(Other, "new object")), "");
  ASSERT_FALSE(sys::fs::copy_file(Dir.path(("llvmcache-" + Key).str()),
                                  Dir.path("llvmcache-" + Other)));
  bool Damaged = false;
  EXPECT_EQ((*Cache)->lookup(Other, Damaged), nullptr);
  EXPECT_TRUE(Damaged);
  EXPECT_NE((*Cache)->lookup(Key, Damaged), nullptr);
  EXPECT_FALSE(Damaged);
}

TEST(BackendCacheTest, StatsOfAbsentDirectoryAreZero) {
  unittest::TempDir Dir("cache", /*Unique=*/true);
  Expected<CacheStats> Stats = readCacheStats(Dir.path("absent"));
  ASSERT_EQ(errorText(Stats), "");
  EXPECT_EQ(Stats->Entries, 0u);
}

TEST(BackendCacheTest, PrunesByPolicy) {
  unittest::TempDir Dir("cache", /*Unique=*/true);
  Expected<std::unique_ptr<BackendCache>> Cache =
      BackendCache::open(Dir.path());
  ASSERT_EQ(errorText(Cache), "");
  std::string Other(Key);
  Other[0] = 'f';
  ASSERT_EQ(errorText((*Cache)->store(Key, "one")), "");
  ASSERT_EQ(errorText((*Cache)->store(Other, "two")), "");
  ASSERT_EQ(errorText(pruneBackendCache(Dir.path(), "cache_size_files=1")), "");
  EXPECT_EQ(readCacheStats(Dir.path())->Entries, 1u);
  EXPECT_NE(errorText(pruneBackendCache(Dir.path(), "bogus=1")), "");
}

// What another writer of a shared cache can put under an entry's name:
// none of it is read through, waited on, or taken.
TEST(BackendCacheTest, EntriesThatAreNotRegularFilesAreDamaged) {
  unittest::TempDir Dir("cache", /*Unique=*/true);
  Expected<std::unique_ptr<BackendCache>> Cache =
      BackendCache::open(Dir.path());
  ASSERT_EQ(errorText(Cache), "");
  std::string Entry((Dir.path() + "/llvmcache-" + Key).str());
  unittest::TempFile Victim(Dir.path("victim"), "", "precious",
                            /*Unique=*/false);
  ASSERT_EQ(::symlink(Victim.path().str().c_str(), Entry.c_str()), 0);
  bool Damaged = false;
  EXPECT_EQ((*Cache)->lookup(Key, Damaged), nullptr);
  EXPECT_TRUE(Damaged);
  EXPECT_FALSE(sys::fs::exists(Entry));
  ErrorOr<std::unique_ptr<MemoryBuffer>> Kept =
      MemoryBuffer::getFile(Victim.path());
  ASSERT_TRUE(bool(Kept));
  EXPECT_EQ((*Kept)->getBuffer(), "precious");

  ASSERT_EQ(::mkfifo(Entry.c_str(), 0600), 0);
  EXPECT_EQ((*Cache)->lookup(Key, Damaged), nullptr); // Does not wait.
  EXPECT_TRUE(Damaged);
}

// Another user's FIFO or link at an entry's name, which a lookup leaves
// alone as a miss: the store replaces it, and neither waits on the FIFO nor
// writes through the link.
TEST(BackendCacheTest, AStoreNeverWritesIntoWhatIsAtItsName) {
  unittest::TempDir Dir("cache", /*Unique=*/true);
  Expected<std::unique_ptr<BackendCache>> Cache =
      BackendCache::open(Dir.path());
  ASSERT_EQ(errorText(Cache), "");
  std::string Entry((Dir.path() + "/llvmcache-" + Key).str());
  ASSERT_EQ(::mkfifo(Entry.c_str(), 0600), 0);
  ASSERT_EQ(errorText((*Cache)->store(Key, "object bytes")), "");
  bool Damaged = false;
  std::unique_ptr<MemoryBuffer> Hit = (*Cache)->lookup(Key, Damaged);
  ASSERT_NE(Hit, nullptr);
  EXPECT_EQ(Hit->getBuffer(), "object bytes");

  unittest::TempFile Victim(Dir.path("victim"), "", "precious",
                            /*Unique=*/false);
  ASSERT_FALSE(sys::fs::remove(Entry));
  ASSERT_EQ(::symlink(Victim.path().str().c_str(), Entry.c_str()), 0);
  ASSERT_EQ(errorText((*Cache)->store(Key, "object bytes")), "");
  ErrorOr<std::unique_ptr<MemoryBuffer>> Kept =
      MemoryBuffer::getFile(Victim.path());
  ASSERT_TRUE(bool(Kept));
  EXPECT_EQ((*Kept)->getBuffer(), "precious");
}

// Pruning rewrites its timestamp file: never through a link planted there.
TEST(BackendCacheTest, PruningFollowsNoLink) {
  unittest::TempDir Dir("cache", /*Unique=*/true);
  unittest::TempFile Victim(Dir.path("victim"), "", "precious",
                            /*Unique=*/false);
  ASSERT_FALSE(sys::fs::create_directory(Dir.path("cache")));
  std::string Stamp((Dir.path("cache") + "/llvmcache.timestamp").str());
  ASSERT_EQ(::symlink(Victim.path().str().c_str(), Stamp.c_str()), 0);
  std::string Link((Dir.path("cache") + "/llvmcache-" + Key).str());
  ASSERT_EQ(::symlink(Victim.path().str().c_str(), Link.c_str()), 0);
  ASSERT_EQ(
      errorText(pruneBackendCache(Dir.path("cache"), "cache_size_files=1")),
      "");
  ErrorOr<std::unique_ptr<MemoryBuffer>> Kept =
      MemoryBuffer::getFile(Victim.path());
  ASSERT_TRUE(bool(Kept));
  EXPECT_EQ((*Kept)->getBuffer(), "precious");
  // The links are gone; the timestamp is a file of the cache's own.
  EXPECT_FALSE(sys::fs::exists(Link));
  sys::fs::file_status Status;
  ASSERT_FALSE(sys::fs::status(Stamp, Status, /*Follow=*/false));
  EXPECT_EQ(Status.type(), sys::fs::file_type::regular_file);
}

TEST(BackendCacheTest, DefaultDirectoryFollowsEnvironment) {
  std::optional<std::string> Saved;
  if (const char *V = getenv("ULTO_CACHE_DIR"))
    Saved = V;
  setenv("ULTO_CACHE_DIR", "/some/where", 1);
  EXPECT_EQ(defaultCacheDirectory(), "/some/where");
  unsetenv("ULTO_CACHE_DIR");
  EXPECT_TRUE(StringRef(defaultCacheDirectory()).ends_with("/ulto"));
  if (Saved)
    setenv("ULTO_CACHE_DIR", Saved->c_str(), 1);
}

} // namespace
