//===- Progress.cpp - One live status line for a distributed link ---------===//

#include "ulto/Distributor/Progress.h"

namespace ulto {

void ProgressLine::started() {
  ++Running;
  redraw();
}

void ProgressLine::finished(bool CacheHit) {
  --Running;
  ++Done;
  Hits += CacheHit;
  redraw();
}

void ProgressLine::clear() {
  if (!Enabled)
    return;
  OS << "\r\x1b[K";
  OS.flush();
}

// "\r" returns to the line's start and ESC[K erases what the last, longer
// line left behind.
void ProgressLine::redraw() {
  if (!Enabled)
    return;
  OS << "\r\x1b[K[ulto dist] " << Done << "/" << Total << " done, " << Hits
     << " cached, " << Running << " running";
  OS.flush();
}

} // namespace ulto
