set -e
cxx=$1
link() { out=$1; shift; "$cxx" -fuse-ld=ulto -flto -Wl,--lto=distributed \
  -Wl,--dist-remote=grpc://127.0.0.1:8980 "$@" main.o total.o libshapes.a \
  -o "$out"; }
link remote -Wl,--dist-cache-dir=cache-one 2> cold.err
link remote-hits -Wl,--dist-cache-dir=cache-two 2> hits.err
