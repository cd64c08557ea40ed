//===- StatusSink.h - Where a distributed link's messages go ----*- C++ -*-===//
//
// The distributor says what happens (a job failed, a warning, progress) and
// the sink decides how it reads: the terminal's sink prints each message
// under the tool's name and keeps one live progress line; tests record.
// The distributor calls its sink from one thread at a time.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_STATUSSINK_H
#define ULTO_DISTRIBUTOR_STATUSSINK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace ulto {

class StatusSink {
public:
  virtual ~StatusSink();
  /// The backend job of \p Module failed: \p What completes "ThinLTO backend
  /// for '<module>' ..."; \p Command (when it matters) and \p Output follow.
  virtual void jobFailed(llvm::StringRef Module, llvm::StringRef What,
                         llvm::ArrayRef<std::string> Command,
                         llvm::StringRef Output) = 0;
  /// Something the user should know; lines after the first are detail.
  virtual void warning(llvm::StringRef Message) = 0;
  /// After the jobs: \p Jobs failed jobs left \p Files for a bug report
  /// (clang's crash reproducers), in sorted order.
  virtual void reproducers(llvm::ArrayRef<std::string> Files, unsigned Jobs) {}
  /// Why the job of \p Module runs (--explain).
  virtual void explain(llvm::StringRef Module, llvm::StringRef Reason) {}
  virtual void jobStarted() {}
  virtual void jobFinished(bool CacheHit) {}
  /// No job runs any more.
  virtual void finished() {}
};

/// Prints to \p OS as "<Tool>: error: ..." and "<Tool>: warning: ...", and,
/// when \p Progress, one line rewritten in place as jobs start and finish:
///   [<Tool>] 120/300 done, 80 cached, 2 running
class TerminalStatus final : public StatusSink {
public:
  TerminalStatus(llvm::raw_ostream &OS, llvm::StringRef Tool, bool Progress,
                 unsigned Total)
      : OS(OS), Tool(Tool), Progress(Progress), Total(Total) {}

  void jobFailed(llvm::StringRef Module, llvm::StringRef What,
                 llvm::ArrayRef<std::string> Command,
                 llvm::StringRef Output) override;
  void warning(llvm::StringRef Message) override;
  /// "<Tool>: note: clang's reproducers of 2 failed jobs are in /tmp: a.o
  /// a.sh b.o b.sh", once per link.
  void reproducers(llvm::ArrayRef<std::string> Files, unsigned Jobs) override;
  /// "<Tool>: note: <Module> ran: <Reason>".
  void explain(llvm::StringRef Module, llvm::StringRef Reason) override;
  void jobStarted() override;
  void jobFinished(bool CacheHit) override;
  void finished() override { clearProgress(); }

private:
  void redrawProgress();
  /// Erases the progress line, so that what follows starts on a clean line.
  void clearProgress();

  llvm::raw_ostream &OS;
  std::string Tool;
  bool Progress;
  unsigned Total;
  unsigned Done = 0, Hits = 0, Running = 0;
};

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_STATUSSINK_H
