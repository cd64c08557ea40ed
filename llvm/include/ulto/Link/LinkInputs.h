//===- LinkInputs.h - Which files an ELF link loads -------------*- C++ -*-===//
//
// ld.ulto checks the bitcode LTO will see before lld runs: it must know which
// files the link loads, including which archive members are extracted. This
// is lld's lazy resolution: in command-line order, an archive member (or a
// --start-lib object) is extracted when it defines a symbol that a loaded file
// references and that nothing loaded before it (shared libraries included)
// defines.
//
// Most links have no bitcode in an archive or between --start-lib and
// --end-lib: then the bitcode they load is the bitcode they name (and that
// of --whole-archive archives), whatever the symbols say, and no symbol is
// read. Resolving them would cost as much as lld's own reading of the inputs
// (3 ms of a 15-module C++ link: the C++ runtime's symbols, libgcc's
// members).
//
// Approximations, all on the side of checking a member lld would not load:
// linker scripts (e.g. glibc's libc.so) are not read, so symbols they would
// bring in do not count as defined.
//
//===----------------------------------------------------------------------===//

#ifndef ULTO_LINK_LINKINPUTS_H
#define ULTO_LINK_LINKINPUTS_H

#include "llvm/Object/Archive.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include <memory>
#include <string>
#include <vector>

namespace ulto {

/// A file named on the linker command line, with its position attributes.
struct LinkInput {
  std::string Path;
  bool WholeArchive = false; ///< --whole-archive: every member is loaded.
  bool Lazy = false;         ///< Between --start-lib and --end-lib.
};

/// What decides which files are loaded.
struct LinkRequest {
  std::vector<LinkInput> Inputs;
  std::vector<std::string> Roots; ///< -u and -e symbols.
  /// --fat-lto-objects: an ELF object with bitcode in .llvm.lto links as
  /// that bitcode, as lld links it.
  bool FatLTOObjects = false;
};

/// A file the link loads: a plain file or an extracted archive member.
struct LoadedFile {
  std::string Name;             ///< "a.o", or "lib.a(m.o)" for a member.
  llvm::MemoryBufferRef Buffer; ///< A fat object's: its .llvm.lto section.
  bool IsBitcode = false;
  /// The file lld opens: the object, or the member's archive.
  std::string Path;
  /// A fat object linked as bitcode: the whole object; empty otherwise.
  llvm::MemoryBufferRef FatObject;
};

/// The bitcode files a link loads, in the order they are loaded, and the
/// buffers they live in.
struct LoadedFiles {
  std::vector<LoadedFile> Files;
  /// Inputs that could not be opened: lld reports them, with its other
  /// errors, and fails the link.
  std::vector<std::string> Unopenable;
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> Owned;
  std::vector<std::unique_ptr<llvm::object::Archive>> Archives;
};

/// Finds -l<Name> (or -l:<file>) in SearchDirs as an ELF linker does: a
/// shared library first unless Static, then an archive. Empty if not found.
std::string findLibrary(llvm::StringRef Name,
                        const std::vector<std::string> &SearchDirs,
                        bool Static);

/// Reads the inputs and resolves archive extraction, when an archive or a
/// --start-lib object holds bitcode. Inputs that cannot be opened are
/// listed in Unopenable; unreadable contents are errors naming the file;
/// files of unknown kinds (linker scripts) are skipped.
llvm::Expected<LoadedFiles> loadLinkInputs(const LinkRequest &Request);

} // namespace ulto

#endif
