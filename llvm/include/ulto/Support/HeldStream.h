//===- HeldStream.h - Output held back until it may be written --*- C++ -*-===//
//
// A distributed link checks its module IDs while lld runs (ld.ulto.cpp).
// Colliding IDs make lld report duplicate symbols, which the check's own
// error explains, and a link the check refuses should say what it said when
// the check ran before lld: so lld writes to a HeldStream, which holds what
// it is given until the check has spoken, then passes it on, or drops it
// with what comes after.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_SUPPORT_HELDSTREAM_H
#define ULTO_SUPPORT_HELDSTREAM_H

#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <string>

namespace ulto {

class HeldStream : public llvm::raw_ostream {
public:
  /// Holds what is written until release(), then writes to \p Out. Writes
  /// the way \p Out does: colors, and no buffer of its own.
  explicit HeldStream(llvm::raw_ostream &Out);
  /// Releases what is held.
  ~HeldStream() override;

  /// Writes what was held to the stream, in one write, and what comes after
  /// as it comes. Thread-safe, as writing is; once only, as is discard().
  void release();

  /// Drops what was held and what comes after.
  void discard();

  bool is_displayed() const override { return Out.is_displayed(); }
  bool has_colors() const override { return Out.has_colors(); }

private:
  void write_impl(const char *Ptr, size_t Size) override;
  uint64_t current_pos() const override { return Written; }

  llvm::raw_ostream &Out;
  std::mutex Mutex;
  std::string Held;
  enum { Holding, Passing, Dropping } State = Holding;
  uint64_t Written = 0;
};

} // namespace ulto

#endif // ULTO_SUPPORT_HELDSTREAM_H
