"""Recipes of bench/realworld/realworld.py: one dict per project.

Keys (all but name, package, system optional):
  name        the project's name in the table (one Debian source package can
              give several: zstd's make, CMake and Meson builds)
  package     the Debian source package (`apt-get source NAME`)
  system      make | autotools | cmake | meson
  subdir      where the build system lives in the source tree
  prepare     shell commands run in the tree before configuring, as a user
              of a git checkout would (autoreconf); not timed
  generator   CMake's generator: "Ninja" (default) or "Unix Makefiles"
  cmake_args, meson_args, configure_args   extra arguments of the configure step
  make_args   plain make: make's arguments in the test commands ({make_args}),
              with {cc} {cxx} {cflags} {cxxflags} {ldflags} {ar} {ranlib} {nm}
              {jobs} replaced; CC, CXX, AR, RANLIB, NM, CFLAGS, CXXFLAGS and
              LDFLAGS are in the environment of every step too
  build       plain make: the build commands (lists of argv after `make`, the
              same replacements; an item "{make_args}" stands for make_args),
              default [["-j{jobs}"]]
  tests       how the project's own tests run and are counted:
                {"kind": "ctest"}                      ctest, one test per ctest test
                {"kind": "meson"}                      meson test, testlog.json
                                                       ("names": only these tests)
                {"kind": "automake", "cmd": [...]}     make check; PASS:/FAIL: lines
                {"kind": "commands", "cmds": {name: shell command}}  one test each
              "timeout" (seconds, whole test run; default 900), "exclude"
              (ctest -E regex), "env" (added to the environment)
  link_flags  added to every link of every configuration (LDFLAGS; CMake: LDFLAGS
              for the toolchain file's configurations, the linker flags otherwise)
  deps        Debian packages the build or the tests need (checked, not installed)
"""

MAKE_TOOLCHAIN = ["CC={cc}", "CXX={cxx}", "AR={ar}", "RANLIB={ranlib}", "NM={nm}"]

RECIPES = [
    # ---- plain make --------------------------------------------------------
    {
        "name": "zstd-make", "package": "libzstd", "system": "make",
        # zstd's Makefiles take CFLAGS/LDFLAGS from the environment (?=) and
        # add their own; CC etc. on the command line as well.
        "make_args": MAKE_TOOLCHAIN,
        "build": [["-j{jobs}", "lib-release", "zstd-release"] + MAKE_TOOLCHAIN],
        "tests": {"kind": "commands", "timeout": 900, "cmds": {
            # `make check`: playTests.sh without the long tests
            "check": "make {make_args} check",
            "test-invalidDictionaries": "make -C tests {make_args} test-invalidDictionaries",
            "test-legacy": "make -C tests {make_args} test-legacy",
            "test-pool": "make -C tests {make_args} test-pool",
            # not test-fuzzer, test-zstream: each compiles the library again,
            # and zstd-cmake runs them
        }},
    },
    {
        "name": "bzip2", "package": "bzip2", "system": "make",
        # upstream's Makefile assigns CC, AR, RANLIB, CFLAGS, LDFLAGS itself:
        # they go on make's command line
        "make_args": ["CC={cc}", "AR={ar}", "RANLIB={ranlib}",
                      "CFLAGS={cflags} -Wall -Winline -D_FILE_OFFSET_BITS=64",
                      "LDFLAGS={ldflags}"],
        # Debian's makefile.diff: bzip2 links against libbz2.so, built from
        # -fPIC objects of their own
        "build": [["-j{jobs}", "libbz2.a", "bzip2", "bzip2recover", "{make_args}"]],
        "tests": {"kind": "commands", "timeout": 300, "cmds": {
            "test": "make {make_args} test",
        }},
    },
    {
        "name": "lz4", "package": "lz4", "system": "make",
        "make_args": MAKE_TOOLCHAIN,
        "build": [["-j{jobs}"] + MAKE_TOOLCHAIN],
        "tests": {"kind": "commands", "timeout": 600, "cmds": {
            "check": "make {make_args} check",  # test-lz4-essentials
            "test-fuzzer": "make -C tests {make_args} test-fuzzer FUZZER_TIME=-T15s",
            "test-frametest": "make -C tests {make_args} test-frametest FUZZER_TIME=-T15s",
        }},
    },
    # ---- autotools ---------------------------------------------------------
    {
        "name": "libsodium", "package": "libsodium", "system": "autotools",
        "prepare": ["autoreconf -fi"],
        "tests": {"kind": "automake", "timeout": 1500},
    },
    {
        "name": "libyaml", "package": "libyaml", "system": "autotools",
        "prepare": ["autoreconf -fi"],
        "tests": {"kind": "automake", "timeout": 600},
    },
    {
        "name": "expat-autotools", "package": "expat", "system": "autotools",
        "subdir": "expat",
        "prepare": ["./buildconf.sh"],
        "configure_args": ["--without-docbook"],
        "tests": {"kind": "automake", "timeout": 900},
    },
    # ---- CMake ---------------------------------------------------------------
    {
        "name": "json-c", "package": "json-c", "system": "cmake",
        "generator": "Ninja",
        "cmake_args": ["-DDISABLE_WERROR=ON"],
        # json-c.sym names json_number_chars, which 0.16 does not define: lld
        # (17 and later) refuses that by default
        "link_flags": ["-Wl,--undefined-version"],
        "tests": {"kind": "ctest", "timeout": 600},
    },
    # Not expat's CMake build: bookworm's 2.5.0-1+deb12u2 security patches test
    # `#if XML_DTD == 1`, and CMake's expat_config.h says `#define XML_DTD`
    # (empty): "invalid token at start of a preprocessor expression" with any
    # compiler. Debian builds it with autotools, as expat-autotools does.
    {
        "name": "zstd-cmake", "package": "libzstd", "system": "cmake",
        "subdir": "build/cmake", "generator": "Ninja",
        # fuzzer and zstreamtest run for minutes by default
        "cmake_args": ["-DZSTD_BUILD_TESTS=ON", "-DZSTD_FUZZER_FLAGS=-T20s;--no-big-tests",
                       "-DZSTD_ZSTREAM_FLAGS=-T20s;--no-big-tests"],
        "tests": {"kind": "ctest", "timeout": 900},
    },
    {
        "name": "brotli", "package": "brotli", "system": "cmake",
        "generator": "Unix Makefiles",
        "tests": {"kind": "ctest", "timeout": 900},
    },
    {
        "name": "pugixml", "package": "pugixml", "system": "cmake",
        "generator": "Ninja",
        "cmake_args": ["-DPUGIXML_BUILD_TESTS=ON"],
        "tests": {"kind": "ctest", "timeout": 600},
    },
    {
        "name": "leveldb", "package": "leveldb", "system": "cmake",
        "generator": "Ninja",
        "cmake_args": ["-DLEVELDB_BUILD_TESTS=ON", "-DLEVELDB_BUILD_BENCHMARKS=OFF"],
        "deps": ["libgmock-dev", "libgtest-dev"],
        "tests": {"kind": "ctest", "timeout": 900},
    },
    {
        "name": "gflags", "package": "gflags", "system": "cmake",
        "generator": "Unix Makefiles",
        "cmake_args": ["-DBUILD_TESTING=ON", "-DBUILD_SHARED_LIBS=ON"],
        "tests": {"kind": "ctest", "timeout": 600},
    },
    {
        "name": "spdlog", "package": "spdlog", "system": "cmake",
        "generator": "Unix Makefiles",
        # as debian/rules: fmt from libfmt-dev (the +ds tarball has no bundled fmt)
        "cmake_args": ["-DSPDLOG_BUILD_TESTS=ON", "-DSPDLOG_FMT_EXTERNAL=ON",
                       "-DSPDLOG_BUILD_SHARED=ON", "-DSPDLOG_BUILD_EXAMPLE=ON"],
        "deps": ["libfmt-dev", "catch2"],
        "tests": {"kind": "ctest", "timeout": 600},
    },
    {
        "name": "googletest", "package": "googletest", "system": "cmake",
        "generator": "Ninja",
        "cmake_args": ["-Dgtest_build_tests=ON", "-Dgmock_build_tests=ON"],
        "tests": {"kind": "ctest", "timeout": 900},
    },
    # ---- Meson -----------------------------------------------------------------
    {
        "name": "fribidi", "package": "fribidi", "system": "meson",
        "meson_args": ["-Ddocs=false"],
        "tests": {"kind": "meson", "timeout": 600},
    },
    {
        "name": "zstd-meson", "package": "libzstd", "system": "meson",
        "subdir": "build/meson",
        "meson_args": ["-Dbin_tests=true", "-Dzlib=disabled", "-Dlzma=disabled",
                       "-Dlz4=disabled"],
        # not valgrindTest (valgrind is installed here), the zstreamtest runs
        # (90 s each) or the slow suite
        "tests": {"kind": "meson", "timeout": 900, "names": [
            "test-zstd-fast", "test-fullbench-1", "test-fullbench-2", "test-longmatch",
            "test-invalidDictionaries", "test-legacy", "test-decodecorpus",
            "test-poolTests"]},
    },
]
