//===- StockLinker.h - What stock lld leaves out of the jobs ----*- C++ -*-===//

#ifndef ULTO_LIB_DISTDRIVER_STOCKLINKER_H
#define ULTO_LIB_DISTDRIVER_STOCKLINKER_H

#include "ulto/Distributor/JobList.h"

#include "llvm/ADT/StringRef.h"

namespace ulto {

/// Under stock ld.lld-22 (ulto dist's parent), warns once, as \p Tool, when
/// the link's options change in-process code generation in ways lld does
/// not pass to \p List's backend jobs.
void warnAboutStockLinker(llvm::StringRef Tool, const JobList &List);

} // namespace ulto

#endif // ULTO_LIB_DISTDRIVER_STOCKLINKER_H
