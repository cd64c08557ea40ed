#!/bin/sh
for a in "$@"; do [ "$prev" = -o ] && out=$a; prev=$a; done
echo garbage > "$out"
