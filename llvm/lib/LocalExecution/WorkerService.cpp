//===- WorkerService.cpp - Backend workers that outlive a link ------------===//

#include "ulto/LocalExecution/WorkerService.h"
#include "ulto/Support/AtomicFile.h"
#include "ulto/Support/RuntimeDirectory.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <exception>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <vector>

extern char **environ;

using namespace llvm;

namespace ulto {

namespace {

// What the digest is fed, each piece length-prefixed so that no two
// sequences of pieces read alike.
class Identity {
public:
  void add(StringRef Piece) {
    uint64_t Size = Piece.size();
    Hasher.update(
        ArrayRef(reinterpret_cast<const uint8_t *>(&Size), sizeof(Size)));
    Hasher.update(Piece);
  }
  template <typename T> void addValue(const T &Value) {
    add(StringRef(reinterpret_cast<const char *>(&Value), sizeof(Value)));
  }
  void addContents(StringRef Path) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Text =
        MemoryBuffer::getFileAsStream(Path);
    add(Text ? (*Text)->getBuffer() : StringRef("?"));
  }
  std::string hex() { return toHex(Hasher.final(), /*LowerCase=*/true); }

private:
  BLAKE3 Hasher;
};

// Variables that name the caller's shell or make, not anything a job reads.
bool isShellState(StringRef Name) {
  return is_contained(
      {"PWD", "OLDPWD", "_", "SHLVL", "MAKEFLAGS", "MFLAGS", "MAKELEVEL"},
      Name);
}

void addEnvironment(Identity &Id) {
  std::vector<StringRef> Variables;
  for (char **Entry = environ; *Entry; ++Entry)
    if (!isShellState(StringRef(*Entry).split('=').first))
      Variables.push_back(*Entry);
  llvm::sort(Variables);
  Id.addValue(Variables.size());
  for (StringRef Variable : Variables)
    Id.add(Variable);
}

void addCredentials(Identity &Id) {
  Id.addValue(getuid());
  Id.addValue(geteuid());
  Id.addValue(getgid());
  Id.addValue(getegid());
  int Count = getgroups(0, nullptr);
  std::vector<gid_t> Groups(std::max(Count, 0));
  Count = getgroups(Groups.size(), Groups.data());
  Groups.resize(std::max(Count, 0));
  Id.add(StringRef(reinterpret_cast<const char *>(Groups.data()),
                   Groups.size() * sizeof(gid_t)));
}

void addLimits(Identity &Id) {
  for (int Resource = 0; Resource != RLIM_NLIMITS; ++Resource) {
    struct rlimit Limit = {0, 0};
    getrlimit(__rlimit_resource(Resource), &Limit);
    Id.addValue(Limit.rlim_cur);
    Id.addValue(Limit.rlim_max);
  }
}

// Namespaces, root, cgroup, affinity, priority, personality, umask.
void addPlacement(Identity &Id) {
  for (const char *Kind : {"cgroup", "ipc", "mnt", "net", "pid",
                           "pid_for_children", "time", "user", "uts"}) {
    char Target[64] = {};
    std::string Link = std::string("/proc/self/ns/") + Kind;
    ssize_t Size = readlink(Link.c_str(), Target, sizeof(Target) - 1);
    Id.add(Size > 0 ? StringRef(Target, Size) : StringRef("?"));
  }
  struct stat Root = {};
  stat("/", &Root);
  Id.addValue(Root.st_dev);
  Id.addValue(Root.st_ino);
  Id.addContents("/proc/self/cgroup");
  cpu_set_t CPUs;
  CPU_ZERO(&CPUs);
  sched_getaffinity(0, sizeof(CPUs), &CPUs);
  Id.addValue(CPUs);
  errno = 0;
  Id.addValue(getpriority(PRIO_PROCESS, 0));
  Id.addValue(personality(0xffffffff));
  Id.addValue(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
  // The umask, from the kernel: umask() would change it to read it.
  ErrorOr<std::unique_ptr<MemoryBuffer>> Status =
      MemoryBuffer::getFileAsStream("/proc/self/status");
  StringRef Umask = "?";
  if (Status)
    Umask = (*Status)->getBuffer().split("\nUmask:").second.split('\n').first;
  Id.add(Umask.trim());
}

// A file's identity: rebuilt or upgraded, it has another inode or time.
void addFile(Identity &Id, StringRef Path) {
  Id.add(Path);
  struct stat File = {};
  if (stat(Path.str().c_str(), &File) != 0) {
    Id.add("?");
    return;
  }
  Id.addValue(File.st_dev);
  Id.addValue(File.st_ino);
  Id.addValue(File.st_size);
  Id.addValue(File.st_mtim);
}

// The file whose code holds \p Address.
void addFileOf(Identity &Id, const void *Address) {
  Dl_info Info;
  if (dladdr(Address, &Info) && Info.dli_fname)
    addFile(Id, Info.dli_fname);
  else
    Id.add("?");
}

// A socket that \p Attach (connect or bind) has attached to the abstract
// address \p Name (a NUL, then the name); -1 with errno set if it failed.
int socketAt(StringRef Name, int (*Attach)(int, const sockaddr *, socklen_t),
             int Flags = 0) {
  int Socket = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | Flags, 0);
  if (Socket < 0)
    return -1;
  sockaddr_un Address;
  memset(&Address, 0, sizeof(Address));
  Address.sun_family = AF_UNIX;
  size_t Size = std::min(Name.size(), sizeof(Address.sun_path) - 1);
  memcpy(Address.sun_path + 1, Name.data(), Size);
  if (Attach(Socket, reinterpret_cast<sockaddr *>(&Address),
             offsetof(sockaddr_un, sun_path) + 1 + Size) != 0) {
    int Error = errno;
    close(Socket);
    errno = Error;
    return -1;
  }
  return Socket;
}

Error systemError(const Twine &What) {
  int Error = errno;
  return createStringError(std::error_code(Error, std::generic_category()),
                           "%s: %s", What.str().c_str(), strerror(Error));
}

} // namespace

std::string serviceSecret(StringRef Directory) {
  if (Error E = makePrivateDirectory(Directory)) {
    consumeError(std::move(E));
    return std::string();
  }
  SmallString<128> Path(Directory);
  sys::path::append(Path, "secret");
  // Made once, then read: whoever makes it first, the links agree.
  for (int Attempt = 0; Attempt < 2; ++Attempt) {
    int FD = ::open(Path.c_str(),
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (FD >= 0) {
      uint8_t Random[8];
      bool Filled = getrandom(Random, sizeof(Random), 0) == sizeof(Random);
      std::string Secret = toHex(ArrayRef(Random), /*LowerCase=*/true);
      bool Written = Filled && write(FD, Secret.data(), Secret.size()) ==
                                   ssize_t(Secret.size());
      close(FD);
      if (Written)
        return Secret;
      ::unlink(Path.c_str());
      return std::string();
    }
    if (errno != EEXIST)
      return std::string();
    FD = ::open(Path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (FD < 0)
      return std::string();
    char Text[16];
    ssize_t Size = read(FD, Text, sizeof(Text));
    close(FD);
    if (Size == sizeof(Text) && llvm::all_of(Text, isHexDigit))
      return std::string(Text, sizeof(Text));
    // Half-made by a link that died: made again.
    ::unlink(Path.c_str());
  }
  return std::string();
}

std::string workerServicePrefix() {
  std::string Prefix = "ulto-workers-" + std::to_string(geteuid()) + "-";
  std::string Secret = serviceSecret(defaultServiceVisitDirectory());
  return Secret.empty() ? Prefix : Prefix + Secret + "-";
}

std::string workerServiceName(StringRef Workers, ArrayRef<std::string> Code,
                              const ForkServer::Options &Opts) {
  Identity Id;
  Id.add("ulto worker service 1");
  addCredentials(Id);
  addEnvironment(Id);
  addLimits(Id);
  addPlacement(Id);
  // This code, which speaks the protocol; LLVM's, the C++ and C libraries
  // (the service loads what this process did, $LD_LIBRARY_PATH being the
  // same); and what the caller names.
  addFileOf(Id, reinterpret_cast<const void *>(&workerServiceName));
  addFileOf(Id, reinterpret_cast<const void *>(&llvm::outs));
  addFileOf(Id, reinterpret_cast<const void *>(&std::terminate));
  addFileOf(Id, reinterpret_cast<const void *>(&malloc));
  for (const std::string &File : Code)
    addFile(Id, File);
  Id.add(Workers);
  Id.addValue(Opts.JobsPerWorker);
  Id.addValue(Opts.WorkerMemory);
  return workerServicePrefix() + Id.hex().substr(0, 32);
}

Expected<std::unique_ptr<ForkServer>> connectToWorkerService(StringRef Name) {
  int Socket = socketAt(Name, connect);
  if (Socket < 0) {
    if (errno == ECONNREFUSED || errno == ENOENT)
      return nullptr;
    return systemError("cannot reach the worker service");
  }
  struct ucred Peer;
  socklen_t PeerSize = sizeof(Peer);
  if (getsockopt(Socket, SOL_SOCKET, SO_PEERCRED, &Peer, &PeerSize) != 0) {
    Error E = systemError("cannot reach the worker service");
    close(Socket);
    return std::move(E);
  }
  if (Peer.uid != geteuid()) {
    close(Socket);
    return createStringError("the worker service's name is held by process "
                             "%d of another user",
                             int(Peer.pid));
  }
  return ForkServer::connected(Socket);
}

// Whether the socket listening at \p Name is this user's: its name, and so
// the user's secret, is there for every user to read in /proc/net/unix.
// Without waiting: a full backlog is not a service of the user's to count.
static bool listensForTheUser(StringRef Name) {
  int Socket = socketAt(Name, connect, SOCK_NONBLOCK);
  if (Socket < 0)
    return false;
  struct ucred Peer;
  socklen_t PeerSize = sizeof(Peer);
  bool Own =
      getsockopt(Socket, SOL_SOCKET, SO_PEERCRED, &Peer, &PeerSize) == 0 &&
      Peer.uid == geteuid();
  close(Socket);
  return Own;
}

unsigned countWorkerServices() {
  ErrorOr<std::unique_ptr<MemoryBuffer>> Table =
      MemoryBuffer::getFileAsStream("/proc/net/unix");
  return Table ? countWorkerServices((*Table)->getBuffer()) : 0;
}

unsigned countWorkerServices(StringRef UnixSockets) {
  return countWorkerServices(UnixSockets, listensForTheUser);
}

unsigned countWorkerServices(StringRef UnixSockets,
                             function_ref<bool(StringRef Name)> IsTheUsers) {
  std::string Prefix = "@" + workerServicePrefix();
  SmallVector<StringRef, 0> Lines;
  UnixSockets.split(Lines, '\n', -1, /*KeepEmpty=*/false);
  unsigned Count = 0;
  for (StringRef Line : Lines) {
    // Num RefCount Protocol Flags Type St Inode Path. A listening socket's
    // flags are __SO_ACCEPTCON; the connections it accepted have its path
    // too.
    SmallVector<StringRef, 8> Fields;
    Line.split(Fields, ' ', -1, /*KeepEmpty=*/false);
    if (Fields.size() == 8 && Fields[3] == "00010000" &&
        Fields[7].starts_with(Prefix) && IsTheUsers(Fields[7].drop_front()))
      ++Count;
  }
  return Count;
}

Error startWorkerService(StringRef Ulto, StringRef Name,
                         ArrayRef<std::string> Options) {
  std::string Program = Ulto.str();
  std::string Serve = ("--serve-workers=" + Name).str();
  std::vector<char *> Argv = {const_cast<char *>("ulto"),
                              const_cast<char *>("dist"), Serve.data()};
  for (const std::string &Option : Options)
    Argv.push_back(const_cast<char *>(Option.c_str()));
  Argv.push_back(nullptr);

  posix_spawn_file_actions_t Actions;
  posix_spawnattr_t Attributes;
  posix_spawn_file_actions_init(&Actions);
  posix_spawnattr_init(&Attributes);
  for (int FD : {0, 1, 2})
    posix_spawn_file_actions_addopen(&Actions, FD, "/dev/null",
                                     FD ? O_WRONLY : O_RDONLY, 0);
  posix_spawn_file_actions_addchdir_np(&Actions, "/");
  posix_spawn_file_actions_addclosefrom_np(&Actions, 3);
  // A session of its own, which no terminal's Ctrl-C reaches, with the
  // signals a process normally starts with.
  sigset_t None, All;
  sigemptyset(&None);
  sigfillset(&All);
  posix_spawnattr_setsigmask(&Attributes, &None);
  posix_spawnattr_setsigdefault(&Attributes, &All);
  posix_spawnattr_setflags(&Attributes, POSIX_SPAWN_SETSID |
                                            POSIX_SPAWN_SETSIGMASK |
                                            POSIX_SPAWN_SETSIGDEF);
  pid_t Pid;
  int Result = posix_spawn(&Pid, Program.c_str(), &Actions, &Attributes,
                           Argv.data(), environ);
  posix_spawn_file_actions_destroy(&Actions);
  posix_spawnattr_destroy(&Attributes);
  if (Result != 0) {
    errno = Result;
    return systemError("cannot start the worker service " + Ulto);
  }
  return Error::success();
}

std::string defaultServiceVisitDirectory() {
  return userRuntimeDirectory("ulto-services");
}

// A visit's record is a file named as the service, which says what the last
// link that went without it did ("seen", or "started" it), and when: the
// file's time.
bool visitStartsWorkerService(StringRef Directory, StringRef Name,
                              std::chrono::seconds Within) {
  if (Error E = makePrivateDirectory(Directory)) {
    consumeError(std::move(E));
    return false;
  }
  SmallString<128> Path(Directory);
  sys::path::append(Path, Name);
  // The last visit's record, if it is recent.
  std::string Last;
  sys::fs::file_status Status;
  if (!sys::fs::status(Path, Status, /*Follow=*/false) &&
      sys::fs::is_regular_file(Status) &&
      std::chrono::system_clock::now() - Status.getLastModificationTime() <
          Within)
    if (ErrorOr<std::unique_ptr<MemoryBuffer>> Record =
            MemoryBuffer::getFile(Path))
      Last = (*Record)->getBuffer().str();
  if (Last == "started")
    return false;
  bool Start = Last == "seen";
  if (Error E = writeAtomically(Path, Start ? "started" : "seen",
                                OnSignal::RemoveTemporary, Existing::Replace)) {
    consumeError(std::move(E));
    return false;
  }
  return Start;
}

Expected<int> listenAsWorkerService(StringRef Name) {
  int Socket = socketAt(Name, bind);
  if (Socket < 0) {
    if (errno == EADDRINUSE)
      return -1;
    return systemError("cannot bind the worker service's socket");
  }
  if (listen(Socket, SOMAXCONN) != 0) {
    Error E = systemError("cannot listen on the worker service's socket");
    close(Socket);
    return std::move(E);
  }
  return Socket;
}

} // namespace ulto
