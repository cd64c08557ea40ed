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
  return std::make_pair(Name.lower(), Value.str());
}

} // namespace ulto
