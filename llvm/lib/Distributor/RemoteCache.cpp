//===- RemoteCache.cpp - Backend objects shared through a server ----------===//

#include "ulto/Distributor/RemoteCache.h"

#include "ulto/Support/Message.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ulto {

RemoteCache::~RemoteCache() = default;

RemoteCacheCounts &RemoteCacheCounts::operator+=(const RemoteCacheCounts &O) {
  Hits += O.Hits;
  Misses += O.Misses;
  BadEntries += O.BadEntries;
  Uploaded += O.Uploaded;
  UploadsFailed += O.UploadsFailed;
  UploadsDropped += O.UploadsDropped;
  BytesDown += O.BytesDown;
  BytesUp += O.BytesUp;
  return *this;
}

std::string RemoteCacheCounts::format() const {
  std::string S;
  raw_string_ostream OS(S);
  OS << Hits << (Hits == 1 ? " hit, " : " hits, ") << Misses
     << (Misses == 1 ? " miss, " : " misses, ");
  if (BadEntries)
    OS << BadEntries << " bad " << (BadEntries == 1 ? "entry, " : "entries, ");
  OS << Uploaded << " uploaded";
  if (UploadsFailed)
    OS << ", " << UploadsFailed << " failed to upload";
  if (UploadsDropped)
    OS << ", " << UploadsDropped << " not uploaded";
  OS << "; " << formatBytes(BytesDown) << " down, " << formatBytes(BytesUp)
     << " up";
  return S;
}

} // namespace ulto
