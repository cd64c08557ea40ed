//===- InputTree.h - An action's input root as REAPI Directory blobs -*- C++
//-*-//
//
// REAPI names an action's input files by a Merkle tree of Directory
// messages, each listing its files and subdirectories in name order; the
// root's digest goes into the Action. Equal trees have equal digests, which
// is what lets one link's action hit another link's cache entry.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LIB_REMOTE_INPUTTREE_H
#define ULTO_LIB_REMOTE_INPUTTREE_H

#include "ContentStore.h"

#include "llvm/ADT/ArrayRef.h"

#include <string>
#include <vector>

namespace ulto {

struct TreeFile {
  std::string Path; ///< Relative, '/'-separated, no "." or "..".
  reapi::Digest Digest;
  bool Executable = false;
};

struct InputTree {
  reapi::Digest Root;
  std::vector<Blob> Directories; ///< The Directory messages, serialised.
};

InputTree buildInputTree(llvm::ArrayRef<TreeFile> Files);

} // namespace ulto

#endif // ULTO_LIB_REMOTE_INPUTTREE_H
