//===- RemoteConfig.cpp - Which REAPI server, and how to reach it ---------===//

#include "ulto/Remote/RemoteConfig.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace ulto {

// Where a URL's "user:password@" ends, after "scheme://": at the last '@'
// before the first '/' that follows the first '@' (a password with a '/' in
// it, unescaped, is common in tokens); npos if there is none.
static size_t userInfoEnd(StringRef AfterScheme) {
  size_t First = AfterScheme.find('@');
  if (First == StringRef::npos)
    return StringRef::npos;
  size_t Slash = AfterScheme.find('/', First);
  return AfterScheme.take_front(Slash).rfind('@');
}

std::string withoutCredentials(StringRef URL) {
  size_t Scheme = URL.find("://");
  if (Scheme == StringRef::npos)
    return URL.str();
  StringRef Rest = URL.drop_front(Scheme + 3);
  size_t At = userInfoEnd(Rest);
  if (At == StringRef::npos)
    return URL.str();
  return (URL.take_front(Scheme + 3) + Rest.drop_front(At + 1)).str();
}

// "%40" for '@', as a URL's user information spells it.
static std::string percentDecoded(StringRef Text) {
  std::string Result;
  for (size_t I = 0; I < Text.size(); ++I) {
    unsigned Byte;
    if (Text[I] == '%' && I + 2 < Text.size() &&
        !Text.substr(I + 1, 2).getAsInteger(16, Byte)) {
      Result += char(Byte);
      I += 2;
      continue;
    }
    Result += Text[I];
  }
  return Result;
}

static bool isLoopbackHost(StringRef Host) {
  return Host == "localhost" || Host.starts_with("127.") || Host == "[::1]" ||
         Host == "::1";
}

bool isCleartext(const RemoteConfig &Config) {
  if (Config.TLS)
    return false;
  StringRef Host = Config.Target;
  if (Config.HTTP) {
    Host = Host.drop_front(Host.find("://") + 3);
    Host = Host.take_until([](char C) { return C == '/'; });
  }
  // Without the port: "[::1]:80" keeps its brackets.
  if (Host.starts_with("["))
    Host = Host.take_front(Host.find(']') + 1);
  else
    Host = Host.take_until([](char C) { return C == ':'; });
  return !isLoopbackHost(Host);
}

bool carriesCredentials(const RemoteConfig &Config) {
  return !Config.UserPassword.empty() || !Config.NetrcFile.empty() ||
         any_of(Config.Headers,
                [](const auto &H) { return H.first == "authorization"; });
}

Expected<RemoteConfig> parseRemoteURL(StringRef URL) {
  RemoteConfig Config;
  Config.URL = URL.str();
  StringRef Rest = URL;
  if (Rest.contains('@'))
    return createStringError(
        "invalid remote '%s': a user and password have no place in a gRPC "
        "URL; a farm's credentials go in --remote-token-file or "
        "--remote-header",
        withoutCredentials(URL).c_str());
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
                             withoutCredentials(URL).c_str());
  }
  // user:password@ reaches libcurl, never a message or a summary line.
  RemoteConfig Config;
  if (size_t At = userInfoEnd(Rest); At != StringRef::npos) {
    Config.UserPassword = percentDecoded(Rest.take_front(At));
    Config.CredentialsInURL = true;
    Rest = Rest.drop_front(At + 1);
  }
  Config.URL = withoutCredentials(URL);
  StringRef Host = Rest.take_until([](char C) { return C == '/'; });
  bool Printable = all_of(URL, [](char C) { return C > 0x20 && C < 0x7f; });
  if (Host.empty() || Host.starts_with(":") || !Printable ||
      Config.URL.find_first_of("?#") != std::string::npos)
    return createStringError("invalid remote cache '%s': expected "
                             "http[s]://host[:port][/path], without a query",
                             Config.URL.c_str());
  Config.Target = StringRef(Config.URL).rtrim('/').str();
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
