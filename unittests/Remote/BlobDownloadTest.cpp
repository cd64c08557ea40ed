//===- BlobDownloadTest.cpp - A blob arriving from a server, on disk ------===//
//
// A download keeps what arrives in a nameless file, hashed as it arrives:
// a server that names a 4 GiB blob and sends and sends costs the link no
// memory beyond a chunk; what is longer than the digest says stops at once;
// other bytes than the digest's are DATA_LOSS; the right ones are mapped.
//
//===----------------------------------------------------------------------===//

#include "BlobDownload.h"

#include "ContentStore.h"

#include "Common/Files.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

#include <sys/resource.h>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

long maxResidentKiB() {
  struct rusage Usage;
  getrusage(RUSAGE_SELF, &Usage);
  return Usage.ru_maxrss;
}

TEST(BlobDownloadTest, TheRightBytesAreMappedFromANamelessFile) {
  unittest::TempDir Dir("download", /*Unique=*/true);
  std::string Bytes(100000, 'o');
  reapi::Digest Digest = digestOf(Bytes);
  Expected<BlobDownload> D = BlobDownload::start(Dir.path(), Digest);
  ASSERT_TRUE(bool(D)) << toString(D.takeError());
  EXPECT_EQ(filesIn(Dir.path()), std::vector<std::string>{});
  for (size_t At = 0; At < Bytes.size(); At += 4096)
    ASSERT_TRUE(D->append(StringRef(Bytes).substr(At, 4096)));
  std::unique_ptr<MemoryBuffer> Object;
  ASSERT_TRUE(D->finish("cas/x", Object).ok());
  EXPECT_EQ(Object->getBuffer(), Bytes);
}

TEST(BlobDownloadTest, OtherBytesOrMoreAreDataLoss) {
  unittest::TempDir Dir("download", /*Unique=*/true);
  reapi::Digest Digest = digestOf("object");
  std::unique_ptr<MemoryBuffer> Object;
  Expected<BlobDownload> Other = BlobDownload::start(Dir.path(), Digest);
  ASSERT_TRUE(bool(Other));
  ASSERT_TRUE(Other->append("objecT"));
  grpc::Status S = Other->finish("cas/x", Object);
  EXPECT_EQ(S.error_code(), grpc::StatusCode::DATA_LOSS);
  EXPECT_EQ(S.error_message(), "cas/x holds other bytes");
  Expected<BlobDownload> More = BlobDownload::start(Dir.path(), Digest);
  ASSERT_TRUE(bool(More));
  ASSERT_TRUE(More->append("object"));
  EXPECT_FALSE(More->append("s"));
  EXPECT_EQ(More->finish("cas/x", Object).error_message(),
            "cas/x is longer than its digest says");
  EXPECT_FALSE(Object);
}

// A server that names a 4 GiB blob and sends 128 MiB of it: the link's
// memory does not grow with it.
TEST(BlobDownloadTest, MemoryDoesNotGrowWithTheBlob) {
  unittest::TempDir Dir("download", /*Unique=*/true);
  reapi::Digest Digest;
  Digest.set_hash(std::string(64, '0'));
  Digest.set_size_bytes(MaxBlobBytes);
  Expected<BlobDownload> D = BlobDownload::start(Dir.path(), Digest);
  ASSERT_TRUE(bool(D));
  std::string Chunk(1 << 20, 'x');
  long Before = maxResidentKiB();
  for (int I = 0; I != 128; ++I)
    ASSERT_TRUE(D->append(Chunk));
  EXPECT_LT(maxResidentKiB() - Before, 16 * 1024);
  std::unique_ptr<MemoryBuffer> Object;
  EXPECT_EQ(D->finish("cas/x", Object).error_code(),
            grpc::StatusCode::DATA_LOSS);
}

} // namespace
