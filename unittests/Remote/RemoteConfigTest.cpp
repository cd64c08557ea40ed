//===- RemoteConfigTest.cpp - Remote endpoints as users write them --------===//

#include "ulto/Remote/RemoteConfig.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;

namespace {

TEST(RemoteConfigTest, PlainAndTLS) {
  Expected<RemoteConfig> Plain = parseRemoteURL("grpc://farm.example:8980");
  ASSERT_TRUE(bool(Plain));
  EXPECT_EQ(Plain->Target, "farm.example:8980");
  EXPECT_FALSE(Plain->TLS);
  Expected<RemoteConfig> TLS = parseRemoteURL("grpcs://10.0.0.1:443");
  ASSERT_TRUE(bool(TLS));
  EXPECT_EQ(TLS->Target, "10.0.0.1:443");
  EXPECT_TRUE(TLS->TLS);
  EXPECT_EQ(TLS->URL, "grpcs://10.0.0.1:443");
}

TEST(RemoteConfigTest, RefusesWhatIsNotAnEndpoint) {
  for (StringRef Bad :
       {"http://h:1", "grpc://h", "grpc://:80", "grpc://h:0", "grpc://h:65536",
        "grpc://h:x", "grpc://h:80/path", "h:80"}) {
    Expected<RemoteConfig> C = parseRemoteURL(Bad);
    EXPECT_FALSE(bool(C)) << Bad.str();
    if (!C) {
      EXPECT_EQ(toString(C.takeError()),
                "invalid remote '" + Bad.str() +
                    "': expected grpc://host:port or grpcs://host:port");
    }
  }
}

} // namespace

TEST(RemoteConfigTest, RemoteCaches) {
  Expected<RemoteConfig> HTTP =
      parseRemoteCacheURL("https://ci:s3cret@cache.example:8443/team/");
  ASSERT_TRUE(bool(HTTP));
  EXPECT_TRUE(HTTP->HTTP);
  EXPECT_TRUE(HTTP->TLS);
  EXPECT_EQ(HTTP->Target, "https://cache.example:8443/team");
  EXPECT_EQ(HTTP->URL, "https://cache.example:8443/team/");
  EXPECT_EQ(HTTP->UserPassword, "ci:s3cret");
  EXPECT_TRUE(HTTP->CredentialsInURL);
  Expected<RemoteConfig> GRPC = parseRemoteCacheURL("grpc://cache:9092");
  ASSERT_TRUE(bool(GRPC));
  EXPECT_FALSE(GRPC->HTTP);
  EXPECT_EQ(GRPC->Target, "cache:9092");
  for (const char *Bad : {"ftp://cache", "http://", "http://:80/x",
                          "http://cache/x?y=1", "http://cache/a b"}) {
    Expected<RemoteConfig> Config = parseRemoteCacheURL(Bad);
    EXPECT_FALSE(bool(Config)) << Bad;
    consumeError(Config.takeError());
  }
}

TEST(RemoteConfigTest, Headers) {
  Expected<std::pair<std::string, std::string>> Auth =
      parseRemoteHeader("Authorization=Bearer a=b");
  ASSERT_TRUE(bool(Auth));
  // gRPC wants lowercase names; the value stays as given, '=' and all.
  EXPECT_EQ(Auth->first, "authorization");
  EXPECT_EQ(Auth->second, "Bearer a=b");
  // gRPC aborts on a value byte that is not printable ASCII: an error here.
  EXPECT_EQ(toString(parseRemoteHeader("x-team=caf\xC3\xA9").takeError()),
            "remote header 'x-team': byte 0xc3 at 4 is not printable ASCII, "
            "which a header cannot carry");
  EXPECT_EQ(toString(checkHeaderValue("token file 't'", "\xEF\xBB\xBF"
                                                        "abc")),
            "token file 't': byte 0xef at 1 is not printable ASCII (a UTF-8 "
            "byte-order mark), which a header cannot carry");
  EXPECT_FALSE(bool(checkHeaderValue("x", "Bearer a.b-c_d~e+f/g=")));
  for (StringRef Bad : {"noequals", "=value", "grpc-timeout=1", "a b=c"}) {
    Expected<std::pair<std::string, std::string>> H = parseRemoteHeader(Bad);
    EXPECT_FALSE(bool(H)) << Bad.str();
    if (!H)
      consumeError(H.takeError());
  }
}

// A password with a '/' (a token's base64) or a '@' in it, escaped or
// not, is the password, and no message shows it.
TEST(RemoteConfigTest, CredentialsInTheURL) {
  Expected<RemoteConfig> Slash =
      parseRemoteCacheURL("http://ci:a/b+c@cache:8080/team");
  ASSERT_TRUE(bool(Slash));
  EXPECT_EQ(Slash->UserPassword, "ci:a/b+c");
  EXPECT_EQ(Slash->Target, "http://cache:8080/team");
  EXPECT_EQ(Slash->URL, "http://cache:8080/team");
  Expected<RemoteConfig> At =
      parseRemoteCacheURL("http://ci:p@ss%2F@cache/x@y");
  ASSERT_TRUE(bool(At));
  EXPECT_EQ(At->UserPassword, "ci:p@ss/");
  EXPECT_EQ(At->Target, "http://cache/x@y");
  EXPECT_EQ(
      toString(parseRemoteCacheURL("http://ci:s3cret@cache/x?q").takeError()),
      "invalid remote cache 'http://cache/x?q': expected "
      "http[s]://host[:port][/path], without a query");
  EXPECT_EQ(toString(parseRemoteCacheURL("ftp://ci:s3cret@cache").takeError()),
            "invalid remote cache 'ftp://cache': expected grpc[s]://host:port "
            "or http[s]://host[:port][/path]");
  EXPECT_EQ(toString(parseRemoteURL("grpc://ci:s3cret@farm:1").takeError()),
            "invalid remote 'grpc://farm:1': a user and password have no "
            "place in a gRPC URL; a farm's credentials go in "
            "--remote-token-file or --remote-header");
}

// Cleartext crosses a network unless the server is this machine's loopback.
TEST(RemoteConfigTest, CleartextAndCredentials) {
  auto Cleartext = [](StringRef URL) {
    return isCleartext(cantFail(parseRemoteCacheURL(URL)));
  };
  EXPECT_TRUE(Cleartext("http://cache.example/team"));
  EXPECT_TRUE(Cleartext("grpc://cache.example:9092"));
  EXPECT_TRUE(Cleartext("http://10.0.0.1:8080"));
  EXPECT_FALSE(Cleartext("https://cache.example/team"));
  EXPECT_FALSE(Cleartext("grpcs://cache.example:9092"));
  EXPECT_FALSE(Cleartext("http://127.0.0.1:8080/team"));
  EXPECT_FALSE(Cleartext("http://u:p@localhost/team"));
  EXPECT_FALSE(Cleartext("grpc://[::1]:9092"));
  RemoteConfig Config = cantFail(parseRemoteCacheURL("http://cache/x"));
  EXPECT_FALSE(carriesCredentials(Config));
  Config.Headers.push_back({"authorization", "Bearer t"});
  EXPECT_TRUE(carriesCredentials(Config));
  EXPECT_TRUE(
      carriesCredentials(cantFail(parseRemoteCacheURL("http://u:p@cache/x"))));
}
