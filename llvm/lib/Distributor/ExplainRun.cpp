//===- ExplainRun.cpp - Why a backend job ran -----------------------------===//
//
// Records are JSON (llvm/Support/JSON.h), named by a BLAKE3 digest of the
// link output's absolute path and the module's identity. They are read as
// cache entries are (CacheEntryCheck.h): without following a link,
// and only when the user owns them; a record that does not parse is no record.
// At worst a bad record makes a wrong explanation, never a wrong object.
//
//===----------------------------------------------------------------------===//

#include "ulto/Distributor/ExplainRun.h"
#include "ulto/Distributor/CacheEntryCheck.h"
#include "ulto/Support/AtomicFile.h"
#include "ulto/Support/RuntimeDirectory.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace llvm;

namespace ulto {

bool operator==(const KeyComponents &A, const KeyComponents &B) {
  return A.Key == B.Key && A.Compiler == B.Compiler && A.Args == B.Args &&
         A.ModuleDigest == B.ModuleDigest && A.Imports == B.Imports &&
         A.CommonDigests == B.CommonDigests && A.ShardDigest == B.ShardDigest;
}

std::string moduleIdentity(StringRef Path) {
  // lld names an archive member's file "<archive>(<member> at <offset>)"
  // followed by ".<task>.<pid in hex>.o" in the link output's directory; the
  // offset moves when an earlier member grows.
  static const Regex Member(
      "^(.*)\\((.*) at [0-9]+\\)\\.[0-9]+\\.[0-9A-Fa-f]+\\.o$");
  SmallVector<StringRef, 3> Parts;
  if (Member.match(Path, &Parts))
    return (sys::path::filename(Parts[1]) + "(" + Parts[2] + ")").str();
  return Path.str();
}

// "removed -O2, -g; added -O3".
static std::string argsChange(ArrayRef<std::string> Before,
                              ArrayRef<std::string> Now) {
  StringSet<> Old, New;
  for (const std::string &A : Before)
    Old.insert(A);
  for (const std::string &A : Now)
    New.insert(A);
  SmallVector<StringRef, 4> Removed, Added;
  for (const std::string &A : Before)
    if (!New.contains(A))
      Removed.push_back(A);
  for (const std::string &A : Now)
    if (!Old.contains(A))
      Added.push_back(A);
  if (Removed.empty() && Added.empty())
    return "reordered";
  std::string Out;
  if (!Removed.empty())
    Out = "removed " + join(Removed, ", ");
  if (!Added.empty())
    Out += (Out.empty() ? "added " : "; added ") + join(Added, ", ");
  return Out;
}

// The reasons about the modules: its own, the import set, imported ones.
static void moduleReasons(const KeyComponents &Before, const KeyComponents &Now,
                          SmallVectorImpl<std::string> &Reasons) {
  if (Before.ModuleDigest != Now.ModuleDigest)
    Reasons.push_back("its own module changed");
  StringMap<StringRef> Was;
  for (const auto &[Module, Digest] : Before.Imports)
    Was[Module] = Digest;
  SmallVector<StringRef, 4> Added, Changed;
  StringSet<> Is;
  for (const auto &[Module, Digest] : Now.Imports) {
    Is.insert(Module);
    auto It = Was.find(Module);
    if (It == Was.end())
      Added.push_back(Module);
    else if (It->second != Digest)
      Changed.push_back(Module);
  }
  SmallVector<StringRef, 4> Removed;
  for (const auto &[Module, Digest] : Before.Imports)
    if (!Is.contains(Module))
      Removed.push_back(Module);
  if (!Added.empty() || !Removed.empty()) {
    std::string Set = "the import set changed:";
    if (!Added.empty())
      Set += " now imports from " + join(Added, ", ");
    if (!Removed.empty())
      Set += std::string(Added.empty() ? "" : ";") + " no longer from " +
             join(Removed, ", ");
    Reasons.push_back(Set);
  }
  if (!Changed.empty())
    Reasons.push_back(std::string(Changed.size() == 1
                                      ? "an imported module changed: "
                                      : "imported modules changed: ") +
                      join(Changed, ", "));
}

std::string explainRun(const std::optional<KeyComponents> &Before,
                       const KeyComponents &Now) {
  if (!Before)
    return "no earlier link of this output ran it here";
  if (Before->Key == Now.Key)
    return "its cache entry is gone (pruned, damaged or removed)";
  if (Before->Compiler != Now.Compiler)
    return "the compiler changed";
  SmallVector<std::string, 4> Reasons;
  if (Before->Args != Now.Args)
    Reasons.push_back("the code generation options changed: " +
                      argsChange(Before->Args, Now.Args));
  moduleReasons(*Before, Now, Reasons);
  if (Before->CommonDigests != Now.CommonDigests)
    Reasons.push_back("a shared input changed");
  // The shard says what the thin link imports and how symbols resolve; it
  // changes with any module, so it is the reason only when none did.
  if (Reasons.empty() && Before->ShardDigest != Now.ShardDigest)
    Reasons.push_back(
        "the thin link's decisions for it changed (its index shard)");
  if (Reasons.empty())
    return "its cache key changed (another version of ulto)";
  return join(Reasons, "; ");
}

static json::Value toJSON(const KeyComponents &C) {
  json::Array Imports;
  for (const auto &[Module, Digest] : C.Imports)
    Imports.push_back(json::Array{Module, Digest});
  return json::Object{{"key", C.Key},
                      {"compiler", C.Compiler},
                      {"args", C.Args},
                      {"module", C.ModuleDigest},
                      {"imports", std::move(Imports)},
                      {"common", C.CommonDigests},
                      {"shard", C.ShardDigest}};
}

static bool fromJSON(const json::Value &V, KeyComponents &C, json::Path P) {
  json::ObjectMapper O(V, P);
  std::vector<std::vector<std::string>> Imports;
  if (!O || !O.map("key", C.Key) || !O.map("compiler", C.Compiler) ||
      !O.map("args", C.Args) || !O.map("module", C.ModuleDigest) ||
      !O.map("imports", Imports) || !O.map("common", C.CommonDigests) ||
      !O.map("shard", C.ShardDigest))
    return false;
  for (std::vector<std::string> &Pair : Imports) {
    if (Pair.size() != 2)
      return false;
    C.Imports.emplace_back(std::move(Pair[0]), std::move(Pair[1]));
  }
  return true;
}

// Each user's records are in a directory of the user's own, private: in a
// cache others can write, another user's "explain" (or a link of that name
// to a directory of the user's) must not receive, give or prune records.
ExplainRecords::ExplainRecords(std::string CacheDirectory) {
  SmallString<128> Dir(CacheDirectory);
  sys::path::append(Dir, "explain-" + std::to_string(::getuid()));
  Directory = std::string(Dir);
}

// Whether the directory is there and the user's, not through a link.
static bool isOwnDirectory(StringRef Directory) {
  struct stat Status;
  return ::lstat(Directory.str().c_str(), &Status) == 0 &&
         S_ISDIR(Status.st_mode) && Status.st_uid == ::getuid();
}

bool ExplainRecords::directoryTaken() const {
  return isTakenDirectory(Directory);
}

std::string ExplainRecords::path(StringRef LinkerOutput,
                                 StringRef Module) const {
  SmallString<256> Output(LinkerOutput);
  (void)sys::fs::make_absolute(Output);
  BLAKE3 Hasher;
  Hasher.update(Output);
  Hasher.update(StringRef("\0", 1));
  Hasher.update(Module);
  SmallString<128> Path(Directory);
  sys::path::append(Path,
                    toHex(Hasher.final<16>(), /*LowerCase=*/true) + ".json");
  return std::string(Path);
}

std::optional<KeyComponents> ExplainRecords::load(StringRef LinkerOutput,
                                                  StringRef Module) const {
  if (!isOwnDirectory(Directory))
    return std::nullopt;
  std::string Path = path(LinkerOutput, Module);
  int FD = ::open(Path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (FD < 0)
    return std::nullopt;
  struct stat Status;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Bytes =
      make_error_code(std::errc::permission_denied);
  if (::fstat(FD, &Status) == 0 &&
      checkEntry(Status, ::geteuid(), std::nullopt) == EntryCheck::Trusted)
    Bytes = MemoryBuffer::getOpenFile(FD, Path, Status.st_size,
                                      /*RequiresNullTerminator=*/false);
  ::close(FD);
  if (!Bytes)
    return std::nullopt;
  Expected<json::Value> Value = json::parse((*Bytes)->getBuffer());
  if (!Value) {
    consumeError(Value.takeError());
    return std::nullopt;
  }
  KeyComponents C;
  json::Path::Root Root;
  if (!fromJSON(*Value, C, Root))
    return std::nullopt;
  return C;
}

Error ExplainRecords::save(StringRef LinkerOutput, StringRef Module,
                           const KeyComponents &Components) const {
  if (Error E = makePrivateDirectory(Directory))
    return createFileError(Directory, std::move(E));
  return writeAtomically(
      path(LinkerOutput, Module),
      [&](raw_ostream &OS) { OS << toJSON(Components); }, OnSignal::CallerWaits,
      Existing::Replace);
}

void ExplainRecords::prune(std::chrono::seconds Expiration,
                           size_t MaxFiles) const {
  if (!isOwnDirectory(Directory))
    return;
  auto Now = std::chrono::system_clock::now();
  std::vector<std::pair<sys::TimePoint<>, std::string>> Records;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Directory, EC, /*Follow=*/false), End;
       It != End && !EC; It.increment(EC)) {
    sys::fs::file_status Status;
    if (sys::fs::status(It->path(), Status, /*Follow=*/false))
      continue;
    sys::TimePoint<> Written = Status.getLastModificationTime();
    if (Status.type() != sys::fs::file_type::regular_file ||
        (Expiration.count() && Now - Written > Expiration)) {
      ::unlink(It->path().c_str());
      continue;
    }
    Records.emplace_back(Written, It->path());
  }
  if (!MaxFiles || Records.size() <= MaxFiles)
    return;
  llvm::sort(Records);
  for (size_t I = 0, E = Records.size() - MaxFiles; I != E; ++I)
    ::unlink(Records[I].second.c_str());
}

} // namespace ulto
