//===- Message.cpp - Diagnostics written whole ----------------------------===//

#include "ulto/Support/Message.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;

namespace ulto {
namespace {

// A message being composed, which shows colours when its stream will, so
// that WithColor writes it as it would write to that stream.
class MessageBuffer final : public raw_string_ostream {
public:
  MessageBuffer(std::string &Text, bool Colors)
      : raw_string_ostream(Text), Colors(Colors) {
    enable_colors(Colors);
  }
  bool has_colors() const override { return Colors; }

private:
  bool Colors;
};

} // namespace

void writeMessage(raw_ostream &OS, StringRef Tool, MessageKind Kind,
                  function_ref<void(raw_ostream &)> Body) {
  std::string Text;
  MessageBuffer Message(Text, WithColor::defaultAutoDetectFunction()(OS));
  switch (Kind) {
  case MessageKind::Error:
    WithColor::error(Message, Tool);
    break;
  case MessageKind::Warning:
    WithColor::warning(Message, Tool);
    break;
  case MessageKind::Note:
    WithColor::note(Message, Tool);
    break;
  }
  Body(Message);
  Message.flush();
  OS << Text;
  OS.flush();
}

void writeMessage(raw_ostream &OS, StringRef Tool, MessageKind Kind,
                  const Twine &Text) {
  writeMessage(OS, Tool, Kind,
               [&](raw_ostream &Message) { Message << Text << "\n"; });
}

int reportErrors(StringRef Tool, Error Errors) {
  handleAllErrors(std::move(Errors), [&](const ErrorInfoBase &E) {
    writeMessage(errs(), Tool, MessageKind::Error, E.message());
  });
  return 1;
}

std::string formatBytes(uint64_t Bytes) {
  std::string S;
  raw_string_ostream OS(S);
  if (Bytes < 1024)
    OS << Bytes << " B";
  else if (Bytes < 1024 * 1024)
    OS << format("%.1f KiB", Bytes / 1024.0);
  else
    OS << format("%.1f MiB", Bytes / (1024.0 * 1024.0));
  return S;
}

std::string withoutControls(StringRef Text) {
  std::string Result;
  Result.reserve(Text.size());
  for (char C : Text) {
    unsigned char Byte = C;
    if ((Byte >= 0x20 && Byte != 0x7f) || C == '\n' || C == '\t') {
      Result += C;
      continue;
    }
    Result += "\\x";
    Result += hexdigit(Byte >> 4, /*LowerCase=*/true);
    Result += hexdigit(Byte & 15, /*LowerCase=*/true);
  }
  return Result;
}

} // namespace ulto
