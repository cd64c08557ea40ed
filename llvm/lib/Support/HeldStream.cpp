//===- HeldStream.cpp - Output held back until it may be written ----------===//

#include "ulto/Support/HeldStream.h"

using namespace llvm;

namespace ulto {

HeldStream::HeldStream(raw_ostream &Out)
    : raw_ostream(/*unbuffered=*/true), Out(Out) {
  enable_colors(Out.colors_enabled());
}

HeldStream::~HeldStream() { release(); }

void HeldStream::release() {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (State != Holding)
    return;
  State = Passing;
  Out << Held;
  Out.flush();
  Held.clear();
}

void HeldStream::discard() {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (State != Holding)
    return;
  State = Dropping;
  Held.clear();
}

void HeldStream::write_impl(const char *Ptr, size_t Size) {
  std::lock_guard<std::mutex> Lock(Mutex);
  Written += Size;
  if (State == Holding)
    Held.append(Ptr, Size);
  if (State != Passing)
    return;
  Out.write(Ptr, Size);
  Out.flush();
}

} // namespace ulto
