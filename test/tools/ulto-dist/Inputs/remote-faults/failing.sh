clang=$1
link() { "$clang" -fuse-ld=ulto -flto -Wl,--lto=distributed -Wl,--no-dist-cache \
  -Wl,--dist-remote=grpc://127.0.0.1:8980 -Wl,--dist-remote-compiler=/bin/sh \
  "$@" main.o u*.o; }
link -o failing 2> failing.err
link -Wl,--dist-no-local-fallback -o failed 2> failed.err
chmod +x garbage-clang
link -Wl,--dist-remote-compiler=$PWD/garbage-clang -o garbage 2> garbage.err
exit 0

