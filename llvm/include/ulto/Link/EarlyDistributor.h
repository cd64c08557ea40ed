//===- EarlyDistributor.h - ulto dist, started early ------------*- C++ -*-===//
//
// ld.ulto's side of AttachedCommand.h: `ulto dist --await-command=FD`,
// started before lld reads the inputs, so that it has loaded by the time
// lld's thin link is done; lld then runs ulto-dist-attach, which hands it
// the command line.
//
// ld.ulto forks it rather than starting `ulto`: the child keeps ld.ulto's
// libLLVM, loaded and relocated, and loads only libUltoDist.so (with
// libclang-cpp), ready in about 5 ms where a new `ulto` takes 12. It is
// what a started `ulto dist` would be: ld.ulto's child, in its directory,
// with its environment, standard streams and process group, and none of the
// descriptors ld.ulto opened close-on-exec. Where the library cannot load,
// the child starts `ulto` instead.
//
// It also reads ld.ulto's verdict on the link's checks from a pipe
// (--await-checks=FD), and runs no job before it: some checks take long
// enough to be worth running while lld does (the module IDs of a large
// link), and a link they refuse must not run its backends.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LINK_EARLYDISTRIBUTOR_H
#define ULTO_LINK_EARLYDISTRIBUTOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Program.h"

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace ulto {

class EarlyDistributor {
public:
  /// Starts `ulto dist` waiting for its command from \p Attach: forked into
  /// \p DistLibrary when that exists, else \p Ulto started. \p Options are
  /// the link's ulto dist options that choose its workers, which it needs
  /// before the command. Null when neither program can run, and lld is to
  /// start `ulto dist` itself. Call while the process has one thread: it may
  /// fork.
  static std::unique_ptr<EarlyDistributor>
  start(llvm::StringRef Ulto, llvm::StringRef Attach,
        llvm::StringRef DistLibrary, llvm::ArrayRef<std::string> Options = {});
  /// Closes ld.ulto's end and waits for `ulto dist`: after it has served
  /// the link, or at once when the link never ran its distributor. One that
  /// does not end in a few seconds (a second after a failed link) is
  /// stopped.
  ~EarlyDistributor();
  EarlyDistributor(const EarlyDistributor &) = delete;
  EarlyDistributor &operator=(const EarlyDistributor &) = delete;

  /// Tells `ulto dist` whether the link passed ld.ulto's checks, once; it
  /// runs its jobs only after a pass. Thread-safe.
  void reportChecks(bool Passed);

  /// The link has failed: `ulto dist` has nothing left to do for it.
  void linkFailed() { LinkFailed = true; }

  /// lld's --thinlto-distributor=, and its first argument.
  llvm::StringRef distributor() const { return Attach; }
  std::string attachArgument() const;

private:
  EarlyDistributor(std::string Attach, int FD, int Checks,
                   llvm::sys::ProcessInfo Process)
      : Attach(std::move(Attach)), FD(FD), Checks(Checks), Process(Process) {}
  std::string Attach;
  int FD;                  ///< ld.ulto's end, which lld's distributor inherits.
  std::atomic<int> Checks; ///< The verdict's pipe, until it is written.
  llvm::sys::ProcessInfo Process;
  bool LinkFailed = false;
};

} // namespace ulto

#endif // ULTO_LINK_EARLYDISTRIBUTOR_H
