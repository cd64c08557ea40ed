//===- DistOptTable.cpp - The options of ulto dist ------------------------===//

#include "ulto/DistProtocol/DistOptTable.h"
#include "ulto/Support/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Option/Option.h"

using namespace llvm;

namespace ulto::dist {
namespace table {
#define ULTO_OPTIONS_INC "ulto/DistProtocol/DistOpts.inc"
#include "ulto/Support/CommandOptTable.def"
} // namespace table

const opt::OptTable &optTable() { return table::commandOptTable(); }

std::optional<opt::InputArgList> parse(ArrayRef<const char *> Args) {
  return table::commandOptTable().parse(
      Args, "ulto dist [options] <jobs.json>",
      "Run the ThinLTO backend jobs of a distributed link");
}

Error unknownArguments(const opt::InputArgList &List) {
  return table::unknownArguments(List);
}

static bool inWorkerGroup(const opt::Option &O) {
  opt::Option Group = O.getGroup();
  return Group.isValid() && Group.getID() == OPT_grp_workers;
}

bool isWorkerOption(const opt::Arg &A) { return inWorkerGroup(A.getOption()); }

std::string workerOptionNames() {
  SmallVector<std::string, 8> Names;
  for (unsigned ID = 1; ID <= optTable().getNumOptions(); ++ID) {
    opt::Option O = optTable().getOption(ID);
    if (inWorkerGroup(O))
      Names.push_back(O.getPrefixedName().str());
  }
  std::string Last = Names.pop_back_val();
  return join(Names, ", ") + " and " + Last;
}

} // namespace ulto::dist
