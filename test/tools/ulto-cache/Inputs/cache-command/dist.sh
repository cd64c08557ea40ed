#!/bin/sh
exec ulto dist --cache-dir="$(dirname "$0")/cache" "$@"
