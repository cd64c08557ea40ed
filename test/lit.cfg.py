# lit configuration for ulto's tests of the real binaries.
import os
import lit.formats

config.name = "ulto"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".c", ".cpp"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.ulto_obj_root, "test")

# ulto's binaries first, then the stock LLVM 22 tools (FileCheck, not,
# split-file, llvm-dis, ld.lld, clang).
path = os.pathsep.join([config.ulto_tools_dir, config.llvm_tools_dir,
                        config.environment.get("PATH", os.environ["PATH"])])
config.environment["PATH"] = path
config.environment["LC_ALL"] = "C"
# The stock toolchain ulto is compared with, always the same binaries.
config.substitutions.append(("%clangxx22", os.path.join(config.llvm_tools_dir, "clang++")))
config.substitutions.append(("%clang22", os.path.join(config.llvm_tools_dir, "clang")))
config.substitutions.append(("%lld22", os.path.join(config.llvm_tools_dir, "ld.lld")))
# Distributed links cache backend objects; keep tests' entries out of the
# user's cache. Tests that count cache hits name their own directory.
config.environment["ULTO_CACHE_DIR"] = os.path.join(config.test_exec_root,
                                                    "ulto-cache")
# Local jobs run in workers of each link's own: a worker service (the
# default) would outlive the test, and lit gives every test an environment of
# its own (TMPDIR), so a service of its own. Tests of the service ask for it.
config.environment["ULTO_DIST_FLAGS"] = "--no-service"
# Stock lld and clang run a distributor by path, not through PATH.
config.substitutions.append(("%ulto", os.path.join(config.ulto_tools_dir, "ulto")))
# Remote-execution tests run Bazel's RemoteWorker (Debian's bazel-bootstrap)
# in a network namespace of their own, which needs unshare -n (root).
import shutil, subprocess
if (shutil.which("javac") and shutil.which("unshare") and shutil.which("ip")
        and os.path.exists("/usr/share/bazel/A-server.jar")
        and subprocess.call(["unshare", "-n", "true"],
                            stderr=subprocess.DEVNULL) == 0):
    config.available_features.add("remote-worker")
    # TLS: netty's native OpenSSL binding, and openssl to make certificates.
    if (os.path.exists("/usr/lib/x86_64-linux-gnu/jni/libnetty-tcnative.so")
            and shutil.which("openssl")):
        config.available_features.add("remote-worker-tls")
# Tests of full and read-only file systems mount them in a mount namespace of
# their own (root).
if (shutil.which("unshare") and shutil.which("mount")
        and subprocess.call(["unshare", "-m", "true"],
                            stderr=subprocess.DEVNULL) == 0):
    config.available_features.add("mount-namespace")
# The tests share one compiled server.
config.environment["ULTO_REMOTE_WORKER_CLASSES"] = os.path.join(
    config.test_exec_root, "remote-worker-classes")
config.substitutions.append(("%with-remote-worker", os.path.join(
    config.test_source_root, "tools", "ulto-dist", "Inputs", "with-remote-worker.sh")))
# Tests that count the processes a command starts trace it with strace.
if shutil.which("strace") and subprocess.call(
        ["strace", "-f", "-qq", "-o", os.devnull, "true"],
        stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("strace")
# Build-system tests configure real CMake projects with ulto's tools: the
# directory they are in, and the toolchain file in its build-tree place.
config.substitutions.append(("%{ulto_bin}", config.ulto_tools_dir))
config.substitutions.append(("%{llvm22_bin}", config.llvm_tools_dir))
config.substitutions.append(("%{ulto_toolchain}", os.path.join(
    config.ulto_obj_root, "share", "ulto", "ulto.cmake")))
if shutil.which("cmake") and shutil.which("ninja"):
    config.available_features.add("cmake")
if shutil.which("mold"):
    config.available_features.add("mold")
if shutil.which("gdb"):
    config.available_features.add("gdb")
if shutil.which("meson") and shutil.which("ninja"):
    config.available_features.add("meson")
if all(shutil.which(t) for t in ["autoreconf", "automake", "libtoolize"]):
    config.available_features.add("autotools")
# googletest's sources (Debian's libgtest-dev), a real C++ library for the
# tests that link one in every mode.
gtest_src = "/usr/src/googletest"
if os.path.exists(os.path.join(gtest_src, "googlemock", "src", "gmock-all.cc")):
    config.available_features.add("googletest-source")
    config.substitutions.append(("%{gtest_src}", gtest_src))
    config.substitutions.append(("%{gtest_includes}", " ".join(
        "-I" + os.path.join(gtest_src, d) for d in
        ["googletest/include", "googletest", "googlemock/include", "googlemock"])))
# Tests that play another user of the machine hand files to nobody (root).
if os.geteuid() == 0:
    config.available_features.add("root")
# Tests that need a link's process ID known in advance run it as the first
# process of a PID namespace of their own (root).
if shutil.which("unshare") and subprocess.call(
        ["unshare", "-p", "-f", "true"], stderr=subprocess.DEVNULL) == 0:
    config.available_features.add("pid-namespace")
