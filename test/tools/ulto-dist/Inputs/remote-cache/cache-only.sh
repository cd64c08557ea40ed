set -e
cxx=$1
link() { out=$1; shift; "$cxx" -fuse-ld=ulto -flto -Wl,--lto=distributed \
  "$@" main.o total.o libshapes.a -o "$out"; }
entries() { find rw/cas/ac -type f | wc -l; }
link ci -Wl,--dist-cache-dir=one -Wl,--dist-remote-cache=grpc://127.0.0.1:8980 2> ci.err
echo "entries after the first link: $(entries)" > entries
link dev -Wl,--dist-cache-dir=two -Wl,--dist-remote-cache=grpc://127.0.0.1:8980 \
  -Wl,--dist-remote-cache-read-only 2> dev.err
echo "entries after the read-only link: $(entries)" >> entries
# One byte of every object on the server's disk flipped.
python3 -c "
import glob
for f in glob.glob('rw/cas/cas/*/*'):
    b = bytearray(open(f, 'rb').read()); b[64] ^= 1; open(f, 'wb').write(b)"
link damaged -Wl,--dist-cache-dir=three \
  -Wl,--dist-remote-cache=grpc://127.0.0.1:8980 2> damaged.err
link http-ci -Wl,--dist-cache-dir=four \
  -Wl,--dist-remote-cache=http://127.0.0.1:8981/team/ 2> http-ci.err
link http-dev -Wl,--dist-cache-dir=five \
  -Wl,--dist-remote-cache=http://127.0.0.1:8981/team/ \
  -Wl,--dist-remote-cache-read-only 2> http-dev.err

