//===- RemoteConfig.cpp - Which REAPI server, and how to reach it ---------===//

#include "ulto/Remote/RemoteConfig.h"

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

} // namespace ulto
