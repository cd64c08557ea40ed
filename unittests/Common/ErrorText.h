//===- ErrorText.h - Errors as strings in test expectations -----*- C++ -*-===//
//
// LLVM's gtest matchers for Error live in LLVMTestingSupport, which Debian
// does not ship; tests compare the message instead ("" for success).
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_UNITTESTS_COMMON_ERRORTEXT_H
#define ULTO_UNITTESTS_COMMON_ERRORTEXT_H

#include "llvm/Support/Error.h"

#include <string>

namespace ulto::test {

inline std::string errorText(llvm::Error E) {
  return E ? llvm::toString(std::move(E)) : "";
}

template <typename T> std::string errorText(llvm::Expected<T> &E) {
  return E ? "" : llvm::toString(E.takeError());
}

template <typename T> std::string errorText(llvm::Expected<T> &&E) {
  return errorText(E);
}

} // namespace ulto::test

#endif // ULTO_UNITTESTS_COMMON_ERRORTEXT_H
