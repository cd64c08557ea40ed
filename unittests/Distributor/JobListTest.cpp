//===- JobListTest.cpp - Reading DTLTO job lists --------------------------===//

#include "ulto/Distributor/JobList.h"

#include "Common/ErrorText.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Testing/Support/SupportHelpers.h"
#include "gtest/gtest.h"

using namespace llvm;
using namespace ulto;
using namespace ulto::test;

namespace {

constexpr StringLiteral Valid = R"({
  "common": {"linker_output": "app", "args": ["clang", "-c", "-O2"],
             "inputs": ["prof.txt"]},
  "jobs": [{"args": ["a.o", "-fthinlto-index=a.1.thinlto.bc", "-o", "a.1.o"],
            "inputs": ["a.o", "a.1.thinlto.bc", "b.o"],
            "outputs": ["a.1.o"]}]
})";

TEST(JobListTest, ReadsTheProtocol) {
  Expected<JobList> List = parseJobList(Valid, "jobs.json");
  ASSERT_EQ(errorText(List), "");
  EXPECT_EQ(List->LinkerOutput, "app");
  EXPECT_EQ(List->compiler(), "clang");
  EXPECT_EQ(List->CommonInputs, std::vector<std::string>{"prof.txt"});
  ASSERT_EQ(List->Jobs.size(), 1u);
  const BackendJob &Job = List->Jobs[0];
  EXPECT_EQ(Job.module(), "a.o");
  EXPECT_EQ(Job.indexShard(), "a.1.thinlto.bc");
  EXPECT_EQ(Job.imports().vec(), std::vector<std::string>{"b.o"});
  EXPECT_EQ(Job.output(), "a.1.o");
  EXPECT_EQ(List->command(Job),
            (std::vector<std::string>{"clang", "-c", "-O2", "a.o",
                                      "-fthinlto-index=a.1.thinlto.bc", "-o",
                                      "a.1.o"}));
}

// The scheduler ranks a job by its module's bytes, not its imports'.
TEST(JobListTest, AJobWeighsItsModule) {
  unittest::TempDir Dir("joblist", /*Unique=*/true);
  auto Write = [&](StringRef Name, StringRef Text) {
    std::error_code EC;
    raw_fd_ostream OS(Dir.path(Name), EC);
    ASSERT_FALSE(EC);
    OS << Text;
  };
  Write("a.o", std::string(100, 'x'));
  Write("a.1.thinlto.bc", std::string(10, 'x'));
  Write("b.o", std::string(1000, 'x'));
  Write("jobs.json",
        formatv(R"({{"common": {{"linker_output": "app", "args": ["clang"]},
"jobs": [{{"args": ["-o", "{0}/a.1.o"], "inputs": ["{0}/a.o", "{0}/a.1.thinlto.bc",
"{0}/b.o"], "outputs": ["{0}/a.1.o"]}]})",
                Dir.path())
            .str());
  Expected<JobList> List = readJobList(Dir.path("jobs.json"));
  ASSERT_EQ(errorText(List), "");
  ASSERT_EQ(List->Jobs.size(), 1u);
  EXPECT_EQ(List->Jobs[0].ModuleBytes, 100u);
}

TEST(JobListTest, CommonInputsAreOptional) {
  Expected<JobList> List = parseJobList(
      R"({"common": {"linker_output": "x", "args": ["clang"]}, "jobs": []})",
      "j");
  ASSERT_EQ(errorText(List), "");
  EXPECT_TRUE(List->CommonInputs.empty());
}

void expectError(StringRef JSON, StringRef Message) {
  EXPECT_EQ(errorText(parseJobList(JSON, "jobs.json")), Message.str())
      << JSON.str();
}

TEST(JobListTest, NamesWhatIsWrong) {
  expectError("{", "jobs.json: not a DTLTO job list: [1:1, byte=1]: "
                   "Expected object key");
  expectError(R"({"jobs": []})",
              "jobs.json: not a DTLTO job list: missing value at "
              "(root).common");
  expectError(R"({"common": {"linker_output": "x", "args": []}, "jobs": []})",
              "jobs.json: not a DTLTO job list: common.args names no compiler");
  expectError(R"({"common": {"linker_output": "x", "args": ["c"]},
                  "jobs": [{"args": [], "inputs": ["a.o"], "outputs": ["o"]}]})",
              "jobs.json: not a DTLTO job list: expected the module and its "
              "index shard at (root).jobs[0].inputs");
  expectError(R"({"common": {"linker_output": "x", "args": ["c"]},
                  "jobs": [{"args": [], "inputs": ["a", "s"], "outputs": []}]})",
              "jobs.json: not a DTLTO job list: expected exactly one output "
              "at (root).jobs[0].outputs");
  expectError(R"({"common": {"linker_output": "x", "args": ["c"]},
                  "jobs": [{"args": [1], "inputs": ["a", "s"], "outputs": ["o"]}]})",
              "jobs.json: not a DTLTO job list: expected string at "
              "(root).jobs[0].args[0]");
}

// Outputs are written and removed: none may be an input or a second job's.
TEST(JobListTest, OutputsAreNeitherInputsNorShared) {
  expectError(R"({"common": {"linker_output": "x", "args": ["c"]},
                  "jobs": [{"args": [], "inputs": ["a.o", "s"],
                            "outputs": ["./a.o"]}]})",
              "jobs.json: job 1's output './a.o' is also an input");
  expectError(R"({"common": {"linker_output": "x", "args": ["c"],
                             "inputs": ["lib/x.o"]},
                  "jobs": [{"args": [], "inputs": ["a", "s"],
                            "outputs": ["lib/./x.o"]}]})",
              "jobs.json: job 1's output 'lib/./x.o' is also an input");
  expectError(R"({"common": {"linker_output": "x", "args": ["c"]},
                  "jobs": [{"args": [], "inputs": ["a", "s"], "outputs": ["o"]},
                           {"args": [], "inputs": ["b", "t"], "outputs": ["o"]}]})",
              "jobs.json: job 2's output 'o' is job 1's output too");
  // ".." names the same file another way: one file, two jobs' outputs.
  expectError(R"({"common": {"linker_output": "x", "args": ["c"]},
                  "jobs": [{"args": [], "inputs": ["a", "s"], "outputs": ["x.o"]},
                           {"args": [], "inputs": ["b", "t"],
                            "outputs": ["sub/../x.o"]}]})",
              "jobs.json: job 2's output 'sub/../x.o' is job 1's output too");
  // A later job's input is an input too.
  expectError(R"({"common": {"linker_output": "x", "args": ["c"]},
                  "jobs": [{"args": [], "inputs": ["a", "s"], "outputs": ["b"]},
                           {"args": [], "inputs": ["b", "t"], "outputs": ["o"]}]})",
              "jobs.json: job 1's output 'b' is also an input");
}

// The job's command writes its output: the last -o names it, separate or
// joined; without -o clang would write beside its input.
TEST(JobListTest, CommandWritesTheOutput) {
  auto Job = [](StringRef Args) {
    return (R"({"common": {"linker_output": "x", "args": ["c", "-O2"]},
                "jobs": [{"args": )" +
            Args + R"(, "inputs": ["a", "s"], "outputs": ["a.native.o"]}]})")
        .str();
  };
  EXPECT_EQ(
      errorText(parseJobList(Job(R"(["a", "-o", "a.native.o"])"), "jobs.json")),
      "");
  EXPECT_EQ(
      errorText(parseJobList(Job(R"(["-oa.native.o", "a"])"), "jobs.json")),
      "");
  for (StringRef Args :
       {R"(["a"])", R"(["a", "-o"])", R"(["-o", "a.native.o", "-o", "b.o"])",
        R"(["-o", "a.native.o", "-o"])"})
    expectError(Job(Args), "jobs.json: job 1's command does not write its "
                           "output 'a.native.o': its last -o must name it");
}

// LLVM 22 corrupts such module paths in the index shards: said up front.
TEST(JobListTest, ModulePathsAreASCII) {
  auto List = [](StringRef Module, StringRef Import) {
    return (R"({"common": {"linker_output": "x", "args": ["c"]},
                "jobs": [{"args": ["-o", "o"], "inputs": [")" +
            Module + R"(", "s", ")" + Import + R"("], "outputs": ["o"]}]})")
        .str();
  };
  EXPECT_EQ(errorText(parseJobList(List("m.o", "a.o"), "jobs.json")), "");
  for (auto [Module, Import] :
       {std::pair("m.o", "\u00e9.o"), std::pair("\u00e9.o", "a.o")})
    expectError(List(Module, Import),
                "jobs.json: module '\xc3\xa9.o' has a path that is not "
                "ASCII: LLVM 22 writes it corrupted into the index shards, and "
                "no backend could load it; rename the file, link with ld.ulto "
                "--lto=distributed (which names such inputs for the link), or "
                "link with --lto=thin");
}

TEST(JobListTest, RefusesDeepNestingBeforeParsing) {
  // Deep enough to overflow the stack of a recursive parser.
  expectError(std::string(100000, '['),
              "jobs.json: not a DTLTO job list: nested more than 64 levels "
              "deep");
  // Brackets inside strings do not count.
  std::string Args = "\"" + std::string(100, '[') + "\"";
  Expected<JobList> List =
      parseJobList(R"({"common": {"linker_output": "x", "args": ["c", )" +
                       Args + R"(]}, "jobs": []})",
                   "jobs.json");
  EXPECT_EQ(errorText(List), "");
}

} // namespace
