//===- IndexShard.cpp - A backend job's slice of the index ----------------===//
//
// renameShardModules reads the shard with LLVM's summary reader, renames its
// modules and writes the index anew with LLVM's writer, which orders what it
// writes by itself (module paths sorted, summaries by GUID). The bytes then
// follow from what the shard says, not from the order lld wrote it in, which
// depends on the rest of the link: lld gathers a shard's summaries in hash
// maps filled in the order the thin link met them.
//
// Two things do not survive a second write (writeIndexShard keeps them),
// because lld wrote the shard from the whole link's index and the writer
// keeps only what the summaries it writes point at:
// - CFI function names. The writer keeps a name only if a summary it writes
//   defines or references that function, but the shard also names the
//   functions its summaries reference in modules the job does not import (a
//   table in main.c of pointers to f1 and f2 in lib.c), while those
//   references themselves are not in it. The backend needs the names
//   (without canonical jump tables, main's table must point at f1.cfi_jt).
// - Type ID resolutions (CFI's type tests, WPD's devirtualisations). The
//   writer keeps a type ID only if a function summary it writes tests it,
//   and a combined index's summaries carry no type tests: lld picked the
//   type IDs from the whole link's summaries. A backend that finds no
//   resolution for a type ID takes its test as always false: every CFI
//   check on that type traps (snappy's tests, under -fsanitize=cfi).
// So when the index has either, one more pass over the bitstream copies it
// record by record, replaces the summary block's CFI and type ID records by
// the index's whole lists, and adds their names to the string table.
//
//===----------------------------------------------------------------------===//

#include "ulto/Distributor/IndexShard.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Bitcode/LLVMBitCodes.h"
#include "llvm/Bitstream/BitstreamReader.h"
#include "llvm/Bitstream/BitstreamWriter.h"
#include "llvm/IR/ModuleSummaryIndex.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ulto {

Expected<std::unique_ptr<ModuleSummaryIndex>>
readIndexShard(MemoryBufferRef Shard) {
  Expected<std::unique_ptr<ModuleSummaryIndex>> Index =
      getModuleSummaryIndex(Shard);
  if (!Index)
    return createStringError("%s: not a ThinLTO index: %s",
                             Shard.getBufferIdentifier().str().c_str(),
                             toString(Index.takeError()).c_str());
  return Index;
}

// Whether writeIndexToFile writes all that \p Index holds of the whole link:
// every CFI function name (it writes those of functions that a summary it
// writes defines or references) and every type ID (none is certain).
static bool writerKeepsWholeLink(const ModuleSummaryIndex &Index) {
  if (!Index.typeIds().empty())
    return false;
  if (Index.cfiFunctionDefs().empty() && Index.cfiFunctionDecls().empty())
    return true;
  DenseSet<GlobalValue::GUID> Written;
  for (const auto &[GUID, Info] : Index)
    for (const std::unique_ptr<GlobalValueSummary> &Summary :
         Info.getSummaryList()) {
      Written.insert(GUID);
      for (const ValueInfo &Ref : Summary->refs())
        Written.insert(Ref.getGUID());
    }
  for (const CfiFunctionIndex *Names :
       {&Index.cfiFunctionDefs(), &Index.cfiFunctionDecls()})
    for (GlobalValue::GUID GUID : Names->guids())
      if (!Written.contains(GUID))
        return false;
  return true;
}

// The bitcode magic, "BC" 0xC0DE.
constexpr StringLiteral Magic = "BC\xC0\xDE";

// The blob of the STRTAB block: the strings that records name by offset.
static Expected<StringRef> readStrtab(StringRef Bytes) {
  BitstreamCursor In(Bytes);
  if (Error E = In.JumpToBit(Magic.size() * 8))
    return E;
  while (!In.AtEndOfStream()) {
    Expected<BitstreamEntry> Entry = In.advance();
    if (!Entry)
      return Entry.takeError();
    if (Entry->Kind != BitstreamEntry::SubBlock)
      break;
    if (Entry->ID != bitc::STRTAB_BLOCK_ID) {
      if (Error E = In.SkipBlock())
        return E;
      continue;
    }
    if (Error E = In.EnterSubBlock(bitc::STRTAB_BLOCK_ID))
      return E;
    Expected<BitstreamEntry> Record = In.advanceSkippingSubblocks();
    if (!Record)
      return Record.takeError();
    SmallVector<uint64_t, 1> Values;
    StringRef Blob;
    if (Record->Kind == BitstreamEntry::Record) {
      Expected<unsigned> Code = In.readRecord(Record->ID, Values, &Blob);
      if (!Code)
        return Code.takeError();
      if (*Code == bitc::STRTAB_BLOB)
        return Blob;
    }
    break;
  }
  return createStringError("no string table");
}

namespace {

/// Copies an index's bitstream with its CFI function lists and type ID
/// resolutions in full.
class WholeLinkWriter {
public:
  WholeLinkWriter(const ModuleSummaryIndex &Index, StringRef Strtab)
      : Strtab(Strtab) {
    add(Index.cfiFunctionDefs(), Defs);
    add(Index.cfiFunctionDecls(), Decls);
    // In GUID order, as LLVM's writer writes those it keeps.
    for (const auto &[GUID, Entry] : Index.typeIds())
      addTypeId(Entry.first, Entry.second);
  }

  Error copy(StringRef Bytes, SmallVectorImpl<char> &Buffer) {
    BitstreamCursor In(Bytes);
    if (Error E = In.JumpToBit(Magic.size() * 8))
      return E;
    BitstreamWriter Out(Buffer);
    for (char C : Magic)
      Out.Emit(static_cast<uint8_t>(C), 8);
    while (!In.AtEndOfStream()) {
      Expected<BitstreamEntry> Entry = In.advance();
      if (!Entry)
        return Entry.takeError();
      if (Entry->Kind != BitstreamEntry::SubBlock)
        return createStringError("a record outside any block");
      if (Error E = copyBlock(In, Out, Entry->ID))
        return E;
    }
    return Error::success();
  }

private:
  // Each name goes at the end of the string table; a record holds
  // [offset, size] pairs.
  void add(const CfiFunctionIndex &Names, SmallVectorImpl<uint64_t> &Record) {
    std::vector<StringRef> Sorted = Names.symbols();
    llvm::sort(Sorted);
    for (StringRef Name : Sorted) {
      Record.push_back(addString(Name));
      Record.push_back(Name.size());
    }
  }

  uint64_t addString(StringRef Name) {
    uint64_t Offset = Strtab.size();
    Strtab += Name;
    return Offset;
  }

  // An FS_TYPE_ID record, laid out as LLVM's writer lays it out
  // (writeTypeIdSummaryRecord in BitcodeWriter.cpp), which its reader
  // (parseTypeIdSummaryRecord) reads back.
  void addTypeId(StringRef Name, const TypeIdSummary &Summary) {
    SmallVector<uint64_t, 0> &Record = TypeIds.emplace_back();
    Record.push_back(addString(Name));
    Record.push_back(Name.size());
    const TypeTestResolution &TT = Summary.TTRes;
    Record.push_back(TT.TheKind);
    Record.push_back(TT.SizeM1BitWidth);
    Record.push_back(TT.AlignLog2);
    Record.push_back(TT.SizeM1);
    Record.push_back(TT.BitMask);
    Record.push_back(TT.InlineBits);
    for (const auto &[Offset, Devirt] : Summary.WPDRes) {
      Record.push_back(Offset);
      Record.push_back(Devirt.TheKind);
      Record.push_back(addString(Devirt.SingleImplName));
      Record.push_back(Devirt.SingleImplName.size());
      Record.push_back(Devirt.ResByArg.size());
      for (const auto &[Args, ByArg] : Devirt.ResByArg) {
        Record.push_back(Args.size());
        llvm::append_range(Record, Args);
        Record.push_back(ByArg.TheKind);
        Record.push_back(ByArg.Info);
        Record.push_back(ByArg.Byte);
        Record.push_back(ByArg.Bit);
      }
    }
  }

  void writeWholeLinkRecords(BitstreamWriter &Out) {
    if (!Defs.empty())
      Out.EmitRecord(bitc::FS_CFI_FUNCTION_DEFS, Defs);
    if (!Decls.empty())
      Out.EmitRecord(bitc::FS_CFI_FUNCTION_DECLS, Decls);
    for (const SmallVector<uint64_t, 0> &Record : TypeIds)
      Out.EmitRecord(bitc::FS_TYPE_ID, Record);
  }

  // Copies the block \p BlockID, whose ENTER_SUBBLOCK \p In has just read,
  // with the same abbreviations, so that each record is encoded as before.
  Error copyBlock(BitstreamCursor &In, BitstreamWriter &Out, unsigned BlockID) {
    // Index files define their abbreviations in the blocks that use them.
    if (BlockID == bitc::BLOCKINFO_BLOCK_ID)
      return createStringError("unexpected BLOCKINFO block");
    if (Error E = In.EnterSubBlock(BlockID))
      return E;
    Out.EnterSubblock(BlockID, In.getAbbrevIDWidth());
    bool Summary = BlockID == bitc::GLOBALVAL_SUMMARY_BLOCK_ID;
    bool Wrote = false;
    unsigned NextAbbrev = bitc::FIRST_APPLICATION_ABBREV;
    while (true) {
      Expected<BitstreamEntry> Entry =
          In.advance(BitstreamCursor::AF_DontAutoprocessAbbrevs);
      if (!Entry)
        return Entry.takeError();
      if (Entry->Kind == BitstreamEntry::Error)
        return createStringError("malformed block %u", BlockID);
      if (Entry->Kind == BitstreamEntry::EndBlock) {
        if (Summary && !Wrote)
          writeWholeLinkRecords(Out);
        Out.ExitBlock();
        return Error::success();
      }
      if (Entry->Kind == BitstreamEntry::SubBlock) {
        if (Error E = copyBlock(In, Out, Entry->ID))
          return E;
        continue;
      }
      if (Entry->ID == bitc::DEFINE_ABBREV) {
        if (Error E = In.ReadAbbrevRecord())
          return E;
        Expected<const BitCodeAbbrev *> Abbrev = In.getAbbrev(NextAbbrev++);
        if (!Abbrev)
          return Abbrev.takeError();
        Out.EmitAbbrev(std::make_shared<BitCodeAbbrev>(**Abbrev));
        continue;
      }

      if (Error E = copyRecord(In, Out, BlockID, Entry->ID, Wrote))
        return E;
    }
  }

  // Copies the record \p AbbrevID that \p In is at, encoded as before; in
  // the summary block, the whole link's records replace lld's (written
  // once, \p Wrote), and the string table gets their names.
  Error copyRecord(BitstreamCursor &In, BitstreamWriter &Out, unsigned BlockID,
                   unsigned AbbrevID, bool &Wrote) {
    SmallVector<uint64_t, 64> Values;
    StringRef Blob;
    Expected<unsigned> Code = In.readRecord(AbbrevID, Values, &Blob);
    if (!Code)
      return Code.takeError();
    if (BlockID == bitc::GLOBALVAL_SUMMARY_BLOCK_ID &&
        (*Code == bitc::FS_CFI_FUNCTION_DEFS ||
         *Code == bitc::FS_CFI_FUNCTION_DECLS || *Code == bitc::FS_TYPE_ID)) {
      if (!Wrote)
        writeWholeLinkRecords(Out);
      Wrote = true;
      return Error::success();
    }
    if (BlockID == bitc::STRTAB_BLOCK_ID && *Code == bitc::STRTAB_BLOB)
      Blob = Strtab;
    if (AbbrevID == bitc::UNABBREV_RECORD) {
      Out.EmitRecord(*Code, Values);
      return Error::success();
    }
    Expected<const BitCodeAbbrev *> Abbrev = In.getAbbrev(AbbrevID);
    if (!Abbrev)
      return Abbrev.takeError();
    bool HasBlob = false;
    for (unsigned I = 0, E = (*Abbrev)->getNumOperandInfos(); I != E; ++I)
      HasBlob |=
          (*Abbrev)->getOperandInfo(I).isEncoding() &&
          (*Abbrev)->getOperandInfo(I).getEncoding() == BitCodeAbbrevOp::Blob;
    if (HasBlob) {
      // With a blob, the code goes first among the values.
      Values.insert(Values.begin(), *Code);
      Out.EmitRecordWithBlob(AbbrevID, Values, Blob);
    } else {
      Out.EmitRecord(*Code, Values, AbbrevID);
    }
    return Error::success();
  }

  std::string Strtab;
  SmallVector<uint64_t, 0> Defs, Decls;
  std::vector<SmallVector<uint64_t, 0>> TypeIds;
};

} // namespace

Expected<std::string> writeIndexShard(const ModuleSummaryIndex &Index,
                                      StringRef Name) {
  std::string Bytes;
  raw_string_ostream OS(Bytes);
  writeIndexToFile(Index, OS);
  if (writerKeepsWholeLink(Index))
    return Bytes;

  auto CannotKeep = [&](Error E) {
    return createStringError("%s: cannot keep the CFI function lists and "
                             "type IDs: %s",
                             Name.str().c_str(),
                             toString(std::move(E)).c_str());
  };
  Expected<StringRef> Strtab = readStrtab(Bytes);
  if (!Strtab)
    return CannotKeep(Strtab.takeError());
  WholeLinkWriter Writer(Index, *Strtab);
  SmallVector<char, 0> Buffer;
  if (Error E = Writer.copy(Bytes, Buffer))
    return CannotKeep(std::move(E));
  return std::string(Buffer.begin(), Buffer.end());
}

Expected<std::string>
renameShardModules(MemoryBufferRef Shard,
                   function_ref<Expected<std::string>(StringRef)> NewPath) {
  Expected<std::unique_ptr<ModuleSummaryIndex>> Index = readIndexShard(Shard);
  if (!Index)
    return Index.takeError();
  StringMap<ModuleHash> &Modules = (*Index)->modulePaths();
  std::vector<std::pair<std::string, std::string>> Renames;
  StringSet<> Old;
  for (const auto &Entry : Modules) {
    Expected<std::string> New = NewPath(Entry.getKey());
    if (!New)
      return New.takeError();
    Renames.push_back({Entry.getKey().str(), std::move(*New)});
    Old.insert(Entry.getKey());
  }
  // Summaries point at their module's entry: add the new entries, move the
  // summaries over, then drop the old entries.
  StringMap<StringRef> Moved;
  for (auto &[From, To] : Renames) {
    if (From != To && Old.contains(To))
      return createStringError("%s: cannot rename module '%s' to '%s', which "
                               "the index already names",
                               Shard.getBufferIdentifier().str().c_str(),
                               From.c_str(), To.c_str());
    ModuleHash Hash = Modules.find(From)->second;
    Moved[From] = (*Index)->addModule(To, Hash)->first();
  }
  for (auto &[GUID, Info] : **Index)
    for (const std::unique_ptr<GlobalValueSummary> &Summary :
         Info.getSummaryList())
      Summary->setModulePath(Moved.find(Summary->modulePath())->second);
  for (auto &[From, To] : Renames)
    if (From != To)
      Modules.erase(From);

  // Each summary's flags, which mark what to import as a declaration only,
  // are written as read (HermeticJobTest checks).
  return writeIndexShard(**Index, Shard.getBufferIdentifier());
}

} // namespace ulto
