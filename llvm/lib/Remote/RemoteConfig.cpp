//===- RemoteConfig.cpp - Which REAPI server, and how to reach it ---------===//

#include "ulto/Remote/RemoteConfig.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace ulto {

Expected<RemoteConfig> parseRemoteURL(StringRef URL) {
  RemoteConfig Config;
  Config.URL = URL.str();
  StringRef Rest = URL;
  if (Rest.consume_front("grpcs://"))
    Config.TLS = true;
  else if (!Rest.consume_front("grpc://"))
    return createStringError("invalid remote '%s': expected grpc://host:port "
                             "or grpcs://host:port",
                             URL.str().c_str());
  auto [Host, Port] = Rest.rsplit(':');
  unsigned Number = 0;
  if (Host.empty() || Port.getAsInteger(10, Number) || Number == 0 ||
      Number > 65535 || Rest.contains('/'))
    return createStringError("invalid remote '%s': expected grpc://host:port "
                             "or grpcs://host:port",
                             URL.str().c_str());
  Config.Target = Rest.str();
  return Config;
}

Expected<RemoteConfig> parseRemoteCacheURL(StringRef URL) {
  StringRef Rest = URL;
  bool TLS = Rest.consume_front("https://");
  if (!TLS && !Rest.consume_front("http://")) {
    if (URL.starts_with("grpc://") || URL.starts_with("grpcs://"))
      return parseRemoteURL(URL);
    return createStringError("invalid remote cache '%s': expected "
                             "grpc[s]://host:port or http[s]://host[:port]"
                             "[/path]",
                             URL.str().c_str());
  }
  StringRef Host = Rest.take_until([](char C) { return C == '/'; });
  bool Printable = all_of(URL, [](char C) { return C > 0x20 && C < 0x7f; });
  if (Host.empty() || Host.starts_with(":") || !Printable ||
      URL.find_first_of("?#") != StringRef::npos)
    return createStringError("invalid remote cache '%s': expected "
                             "http[s]://host[:port][/path], without a query",
                             URL.str().c_str());
  RemoteConfig Config;
  Config.Target = URL.rtrim('/').str();
  // user:password@ reaches libcurl, never a message or a summary line.
  Config.URL = URL.str();
  if (size_t At = Host.rfind('@'); At != StringRef::npos)
    Config.URL =
        (URL.take_front(URL.size() - Rest.size()) + Rest.drop_front(At + 1))
            .str();
  Config.TLS = TLS;
  Config.HTTP = true;
  return Config;
}

Expected<std::pair<std::string, std::string>>
parseRemoteHeader(StringRef Header) {
  auto [Name, Value] = Header.split('=');
  // HTTP/2 header names: lowercase token characters; not gRPC's own.
  bool Valid = !Name.empty() && Name.size() != Header.size() &&
               !Name.starts_with("grpc-") && all_of(Name, [](char C) {
                 return isAlnum(C) || C == '-' || C == '_' || C == '.';
               });
  if (!Valid)
    return createStringError("invalid remote header '%s': expected "
                             "NAME=VALUE, NAME made of letters, digits, "
                             "'-', '_' and '.'",
                             Header.str().c_str());
  if (Error E = checkHeaderValue(("remote header '" + Name + "'").str(), Value))
    return std::move(E);
  return std::make_pair(Name.lower(), Value.str());
}

Error checkHeaderValue(StringRef What, StringRef Value) {
  for (size_t I = 0; I != Value.size(); ++I) {
    unsigned char C = Value[I];
    if (C >= 0x20 && C < 0x7f)
      continue;
    std::string Hint = Value.substr(I).starts_with("\xEF\xBB\xBF")
                           ? " (a UTF-8 byte-order mark)"
                           : "";
    return createStringError(
        "%s: byte 0x%02x at %zu is not printable ASCII%s, which a header "
        "cannot carry",
        What.str().c_str(), C, I + 1, Hint.c_str());
  }
  return Error::success();
}

} // namespace ulto
