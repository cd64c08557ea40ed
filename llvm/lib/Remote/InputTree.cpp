//===- InputTree.cpp - An action's input root as REAPI Directory blobs ----===//

#include "InputTree.h"

#include "llvm/ADT/StringRef.h"

#include <map>

using namespace llvm;

namespace ulto {

namespace {
struct Node {
  std::map<std::string, const TreeFile *> Files; // std::map: name order.
  std::map<std::string, Node> Directories;
};
} // namespace

static reapi::Digest serialise(const Node &N, std::vector<Blob> &Out) {
  reapi::Directory Directory;
  for (const auto &[Name, File] : N.Files) {
    reapi::FileNode *F = Directory.add_files();
    F->set_name(Name);
    *F->mutable_digest() = File->Digest;
    F->set_is_executable(File->Executable);
  }
  for (const auto &[Name, Child] : N.Directories) {
    reapi::DirectoryNode *D = Directory.add_directories();
    D->set_name(Name);
    *D->mutable_digest() = serialise(Child, Out);
  }
  Blob B;
  B.Bytes = Directory.SerializeAsString();
  B.Digest = digestOf(B.Bytes);
  Out.push_back(B);
  return B.Digest;
}

InputTree buildInputTree(ArrayRef<TreeFile> Files) {
  Node Root;
  for (const TreeFile &File : Files) {
    Node *N = &Root;
    StringRef Rest = File.Path;
    while (Rest.contains('/')) {
      auto [Directory, Tail] = Rest.split('/');
      N = &N->Directories[Directory.str()];
      Rest = Tail;
    }
    N->Files[Rest.str()] = &File;
  }
  InputTree Tree;
  Tree.Root = serialise(Root, Tree.Directories);
  return Tree;
}

} // namespace ulto
