#!/bin/sh
# Runs $REAL_CC, except for main.o's backend, which fails as $FAKE says.
out=
prev=
for arg; do
  if [ "$prev" = -o ]; then out=$arg; fi
  prev=$arg
done
case " $* " in
*" main.o "*) ;;
*) exec "$REAL_CC" "$@" ;;
esac
case $FAKE in
empty) : > "$out" ;;
garbage) echo garbage > "$out"; echo "fake: wrote garbage" ;;
none) ;;
crash) echo partial > "$out"; echo "fake: about to crash" >&2; kill -SEGV $$ ;;
error)
  echo partial > "$out"
  echo "main.c:3:1: error: the backend says no" >&2
  echo "a line on stdout"
  exit 1 ;;
esac
exit 0
