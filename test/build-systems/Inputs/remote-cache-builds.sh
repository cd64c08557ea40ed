# remote-cache-builds.sh DIR TOOLCHAIN: CI's build, then a developer's.
set -e
cd "$1"
build() {
  cmake -G Ninja -S src -B "$1" -DCMAKE_TOOLCHAIN_FILE="$2" \
    -DULTO_LTO_MODE=distributed "-DULTO_DIST_OPTIONS=$3" \
    -DCMAKE_SKIP_BUILD_RPATH=ON > "$1.log"
  ninja -C "$1" > "$1-build.log" 2>&1
}
build ci "$2" "--dist-cache-dir=$1/ci-cache;--dist-remote-cache=http://127.0.0.1:8981/team"
build dev "$2" "--dist-cache-dir=$1/dev-cache;--dist-remote-cache=http://127.0.0.1:8981/team;--dist-remote-cache-read-only"
