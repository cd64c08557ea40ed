#!/bin/sh
exec ulto dist --no-cache "$@"
