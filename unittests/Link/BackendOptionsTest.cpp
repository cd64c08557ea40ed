//===- BackendOptionsTest.cpp ---------------------------------------------===//

#include "ulto/Link/BackendOptions.h"
#include "gtest/gtest.h"

using namespace ulto;

namespace {

using Args = std::vector<std::string>;

BackendOptions backend(std::vector<LinkOption> Options) {
  return distributedBackendOptions(Options);
}

const LinkOption Pie = {"pie", "", "-pie"};

TEST(BackendOptionsTest, LLVMOptionsReachTheJobs) {
  BackendOptions B = backend({Pie,
                              {"mllvm", "-inline-threshold=5", "-mllvm -x"},
                              {"plugin-opt=-", "enable-x", "--plugin-opt=-x"}});
  EXPECT_EQ(B.CompilerArgs,
            (Args{"-mllvm", "-inline-threshold=5", "-mllvm", "-enable-x"}));
  EXPECT_TRUE(B.Errors.empty());
}

// lld's code generation options are not clang's LLVM options: the CPU and
// the features are left to each function's own attributes; the rest are
// refused by name.
TEST(BackendOptionsTest, LinkerOnlyLLVMOptions) {
  BackendOptions B =
      backend({Pie,
               {"plugin-opt=mcpu=", "znver3", "--plugin-opt=mcpu=znver3"},
               {"mllvm", "-mattr=+avx2,-sse4a", "-mllvm -mattr=+avx2,-sse4a"},
               {"mllvm", "-float-abi=hard", "-mllvm -float-abi=hard"}});
  EXPECT_TRUE(B.CompilerArgs.empty());
  ASSERT_EQ(B.Errors.size(), 1u);
  EXPECT_EQ(B.Errors[0], "--lto=distributed cannot honour -mllvm "
                         "-float-abi=hard: clang-22 has no LLVM option "
                         "-float-abi; link with --lto=thin");
  EXPECT_TRUE(isLinkerOnlyLLVMOption("relocation-model"));
  EXPECT_FALSE(isLinkerOnlyLLVMOption("inline-threshold"));
}

// What clang's driver passes for -ffunction-sections and -fdata-sections on
// a link line are clang's own options.
TEST(BackendOptionsTest, SectionOptions) {
  BackendOptions B = backend(
      {Pie,
       {"plugin-opt=-", "function-sections=1",
        "-plugin-opt=-function-sections=1"},
       {"plugin-opt=-", "data-sections=0", "-plugin-opt=-data-sections=0"},
       {"mllvm", "-function-sections", "-mllvm -function-sections"}});
  EXPECT_EQ(B.CompilerArgs, (Args{"-ffunction-sections", "-fno-data-sections",
                                  "-ffunction-sections"}));
  EXPECT_TRUE(B.Errors.empty());
  B = backend({Pie,
               {"plugin-opt=-", "data-sections=maybe",
                "-plugin-opt=-data-sections=maybe"}});
  EXPECT_EQ(B.Errors.size(), 1u);
}

// lld passes -fpic for PIC outputs and nothing for static ones.
TEST(BackendOptionsTest, RelocationModel) {
  EXPECT_EQ(backend({}).CompilerArgs, (Args{"-fno-pic"}));
  EXPECT_EQ(
      backend({{"pie", "", "-pie"}, {"no-pie", "", "-no-pie"}}).CompilerArgs,
      (Args{"-fno-pic"}));
  EXPECT_TRUE(backend({Pie}).CompilerArgs.empty());
  EXPECT_TRUE(backend({{"shared", "", "-shared"}}).CompilerArgs.empty());
  EXPECT_TRUE(backend({{"relocatable", "", "-r"}}).CompilerArgs.empty());
}

// A relocatable link keeps each module's own model in-process.
TEST(BackendOptionsTest, RelocatableLinksFollowTheModules) {
  const LinkOption R = {"relocatable", "", "-r"};
  EXPECT_EQ(distributedBackendOptions({R}, ModulesPIC::None).CompilerArgs,
            (Args{"-fno-pic"}));
  EXPECT_TRUE(
      distributedBackendOptions({R}, ModulesPIC::All).CompilerArgs.empty());
  BackendOptions Mixed = distributedBackendOptions({R}, ModulesPIC::Mixed);
  ASSERT_EQ(Mixed.Errors.size(), 1u);
  EXPECT_EQ(Mixed.Errors[0],
            "--lto=distributed cannot honour -r: its modules were compiled "
            "with and without -fno-pic, and each job gets the link's one "
            "relocation model; link with --lto=thin");
  // Not relocatable: the output's model, whatever the modules'.
  EXPECT_TRUE(
      distributedBackendOptions({Pie}, ModulesPIC::Mixed).Errors.empty());
}

TEST(BackendOptionsTest, OptimisationLevels) {
  EXPECT_EQ(backend({Pie, {"lto-O", "1", "--lto-O1"}}).CompilerArgs,
            (Args{"-funroll-loops"}));
  EXPECT_TRUE(backend({Pie, {"lto-O", "3", "--lto-O3"}, {"lto-CGO", "3", ""}})
                  .Errors.empty());
  BackendOptions B = backend({Pie, {"lto-CGO", "3", "--lto-CGO3"}});
  ASSERT_EQ(B.Errors.size(), 1u);
  EXPECT_EQ(B.Errors[0], "--lto=distributed cannot honour --lto-CGO3: the "
                         "jobs' code generation level follows --lto-O2; link "
                         "with --lto=thin");
}

TEST(BackendOptionsTest, BasicBlockSections) {
  EXPECT_EQ(backend({Pie,
                     {"lto-basic-block-sections=", "all", ""},
                     {"lto-unique-basic-block-section-names", "", ""},
                     {"lto-basic-block-address-map", "", ""},
                     {"no-lto-basic-block-address-map", "", ""}})
                .CompilerArgs,
            (Args{"-fbasic-block-sections=all",
                  "-funique-basic-block-section-names"}));
  EXPECT_EQ(backend({Pie,
                     {"lto-basic-block-sections=", "list.txt",
                      "--lto-basic-block-sections=list.txt"}})
                .Errors.size(),
            1u);
}

TEST(BackendOptionsTest, RefusedOptions) {
  for (const char *Name :
       {"lto-cs-profile-generate", "lto-cs-profile-file=", "lto-emit-asm",
        "lto-emit-llvm",
        "lto-newpm-passes=", "lto-aa-pipeline=", "plugin-opt=dwo_dir="}) {
    BackendOptions B = backend({Pie, {Name, "v", std::string("--") + Name}});
    ASSERT_EQ(B.Errors.size(), 1u) << Name;
    EXPECT_EQ(B.Refused, std::vector<std::string>{std::string("--") + Name});
    EXPECT_EQ(B.Errors[0].find("--lto=distributed cannot honour --"), 0u);
  }
  EXPECT_EQ(backend({Pie, {"load-pass-plugin", "p.so", ""}}).CompilerArgs,
            (Args{"-fpass-plugin=p.so"}));
}

} // namespace
