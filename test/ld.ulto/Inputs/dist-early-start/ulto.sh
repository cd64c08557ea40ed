#!/bin/sh
echo "started: $*" >> LOG
REAL "$@"
status=$?
echo "ended: $status" >> LOG
exit $status
