//===- Progress.h - One live status line for a distributed link -*- C++ -*-===//
//
// On a terminal, one line rewritten in place as jobs start and finish:
//   [ulto dist] 120/300 done, 80 cached, 2 running
// Elsewhere (logs, CI, lit) nothing, unless asked for. Not thread-safe: the
// caller serialises it with everything else it writes to the stream, so that
// the line never lands inside another message.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_DISTRIBUTOR_PROGRESS_H
#define ULTO_DISTRIBUTOR_PROGRESS_H

#include "llvm/Support/raw_ostream.h"

namespace ulto {

class ProgressLine {
public:
  ProgressLine(llvm::raw_ostream &OS, bool Enabled, unsigned Total)
      : OS(OS), Enabled(Enabled), Total(Total) {}

  void started();
  void finished(bool CacheHit);
  /// Erases the line, so that what follows starts on a clean line.
  void clear();

private:
  void redraw();

  llvm::raw_ostream &OS;
  bool Enabled;
  unsigned Total;
  unsigned Done = 0, Hits = 0, Running = 0;
};

} // namespace ulto

#endif // ULTO_DISTRIBUTOR_PROGRESS_H
