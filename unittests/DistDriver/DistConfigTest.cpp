//===- DistConfigTest.cpp - ulto dist's command line as data --------------===//
//
// Options whose only effect is on what a remote server is told, or that
// another option implies, read as the help says.
//
//===----------------------------------------------------------------------===//

#include "DistConfig.h"

#include "ulto/DistProtocol/DistOptTable.h"

#include "Common/ErrorText.h"
#include "gtest/gtest.h"

#include <cstdlib>

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

// \p Args, then the job list, read as ulto dist reads them.
Expected<DistConfig> read(std::vector<const char *> Args) {
  Args.push_back("app.1.dist-file.json");
  unsigned MissingIndex, MissingCount;
  opt::InputArgList List =
      dist::optTable().ParseArgs(Args, MissingIndex, MissingCount);
  return readDistConfig(List);
}

TEST(DistConfigTest, BuildIdFromTheOptionElseTheEnvironment) {
  ::setenv("ULTO_BUILD_ID", "from-env", 1);
  Expected<DistConfig> Given =
      read({"--remote=grpc://127.0.0.1:1", "--remote-build-id=ci-4711"});
  ASSERT_EQ(errorText(Given), "");
  EXPECT_EQ(Given->Remote->BuildId, "ci-4711");
  Expected<DistConfig> Default = read({"--remote=grpc://127.0.0.1:1"});
  ASSERT_EQ(errorText(Default), "");
  EXPECT_EQ(Default->Remote->BuildId, "from-env");
  ::unsetenv("ULTO_BUILD_ID");
  Expected<DistConfig> None = read({"--remote=grpc://127.0.0.1:1"});
  ASSERT_EQ(errorText(None), "");
  EXPECT_EQ(None->Remote->BuildId, "");
}

TEST(DistConfigTest, RemoteImpliesTheRemoteExecutor) {
  Expected<DistConfig> Remote = read({"--remote=grpc://127.0.0.1:1"});
  ASSERT_EQ(errorText(Remote), "");
  EXPECT_EQ(Remote->Executor, ExecutorKind::Remote);
  // A --remote from $ULTO_DIST_FLAGS, overridden for one link.
  Expected<DistConfig> Here =
      read({"--remote=grpc://127.0.0.1:1", "--executor=local"});
  ASSERT_EQ(errorText(Here), "");
  EXPECT_EQ(Here->Executor, ExecutorKind::Local);
  Expected<DistConfig> Local = read({});
  ASSERT_EQ(errorText(Local), "");
  EXPECT_EQ(Local->Executor, ExecutorKind::Local);
  EXPECT_EQ(errorText(read({"--executor=remote"})),
            "--executor=remote needs --remote=grpc://host:port");
}

} // namespace
