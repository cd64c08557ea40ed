#!/bin/sh
# build-sdk.sh: the vendor's SDK of docs/SDK.md ("The vendor: compile once"),
# libsdk.a, built in the current directory, which holds the sources of
# Inputs/vendor-guide. vendor-guide-vendor-compile.test runs these commands
# itself and checks the archive; the other vendor-guide-*.test build it here.
# Arguments are added to every compile (-ffat-lto-objects: a fat SDK).
set -ex
ulto-clang++ -c -O2 -flto -funified-lto -fvisibility=hidden "$@" -Iinclude shapes.cpp -o shapes.o
ulto-clang++ -c -O2 -flto -funified-lto -fvisibility=hidden "$@" -Iinclude greeter.cpp -o greeter.o
ulto-clang++ -c -O2 -flto -funified-lto -fvisibility=hidden "$@" -Iinclude scene.cpp -o scene.o
ulto-clang++ -c -O2 -flto -funified-lto -fvisibility=hidden "$@" -Iinclude capi.cpp -o capi.o
llvm-ar rcs libsdk.a shapes.o greeter.o scene.o capi.o
