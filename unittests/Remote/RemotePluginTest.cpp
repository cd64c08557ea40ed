//===- RemotePluginTest.cpp - Remote execution, loaded when asked for -----===//
//
// The plugin is looked for in <executable's directory>/../lib/ulto: the one
// this build made (ULTO_BUILD_BIN is the build's bin directory), a directory
// without it, and a library that is not it.
//
//===----------------------------------------------------------------------===//

#include "ulto/Remote/RemotePlugin.h"

#include "Common/ErrorText.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

TEST(RemotePluginTest, LoadsTheBuildsPlugin) {
  Expected<const RemotePlugin &> Plugin =
      loadRemotePlugin(ULTO_BUILD_BIN "/ulto");
  ASSERT_TRUE(bool(Plugin)) << errorText(Plugin.takeError());
  EXPECT_NE(Plugin->Connect, nullptr);
  // Nothing listens on port 1: gRPC's own error, from the plugin's code.
  RemoteConfig Config;
  Config.URL = "grpc://127.0.0.1:1";
  Config.Target = "127.0.0.1:1";
  Expected<RemoteCapabilities> Caps =
      Plugin->FetchCapabilities(Config, std::chrono::seconds(5));
  EXPECT_NE(errorText(Caps.takeError()).find("Connection refused"),
            std::string::npos);
}

TEST(RemotePluginTest, AMissingPluginIsAnErrorNamingIt) {
  unittest::TempDir Dir("plugin", /*Unique=*/true);
  std::string Text =
      errorText(loadRemotePlugin((Dir.path() + "/bin/ulto").str()).takeError());
  std::string Expected = ("cannot load remote execution from " + Dir.path() +
                          "/lib/ulto/libUltoRemote.so: ")
                             .str();
  EXPECT_EQ(Text.rfind(Expected, 0), 0u) << Text;
  EXPECT_NE(Text.find("No such file or directory"), std::string::npos) << Text;
}

TEST(RemotePluginTest, ALibraryWithoutTheEntryIsNotThePlugin) {
  unittest::TempDir Dir("plugin", /*Unique=*/true);
  SmallString<128> Lib(Dir.path());
  sys::path::append(Lib, "lib", "ulto");
  ASSERT_FALSE(sys::fs::create_directories(Lib));
  sys::path::append(Lib, "libUltoRemote.so");
  // Any shared library of the system that is not ulto's.
  ASSERT_FALSE(sys::fs::copy_file("/lib/x86_64-linux-gnu/libz.so.1", Lib));
  std::string Text =
      errorText(loadRemotePlugin((Dir.path() + "/bin/ulto").str()).takeError());
  EXPECT_EQ(Text, Lib.str().str() + " is not ulto's remote execution library: "
                                    "it has no ultoRemotePlugin");
}

} // namespace
