//===- WriteCalls.h - A stream that records its writes ----------*- C++ -*-===//

#ifndef ULTO_UNITTESTS_COMMON_WRITECALLS_H
#define ULTO_UNITTESTS_COMMON_WRITECALLS_H

#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace ulto::test {

/// An unbuffered stream that records each write it is given, as stderr's
/// write(2) calls, and may show colours as a terminal does.
class WriteCalls final : public llvm::raw_ostream {
public:
  explicit WriteCalls(bool Colors = false) : raw_ostream(/*Unbuffered=*/true) {
    enable_colors(Colors);
  }
  bool has_colors() const override { return colors_enabled(); }
  std::vector<std::string> Calls;

private:
  void write_impl(const char *Ptr, size_t Size) override {
    Calls.emplace_back(Ptr, Size);
  }
  uint64_t current_pos() const override { return 0; }
};

} // namespace ulto::test

#endif // ULTO_UNITTESTS_COMMON_WRITECALLS_H
