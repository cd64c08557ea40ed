#!/usr/bin/env bash
# with-remote-worker.sh DIR COMMAND...
#
# Runs COMMAND next to a real REAPI server, Bazel's RemoteWorker (built from
# Debian's bazel-bootstrap-source into DIR/classes), inside a new network
# namespace that has only loopback: the server listens on 127.0.0.1:8980 and
# nothing outside can reach it. With --debug the server keeps each executed
# action's directory under DIR/work and logs "Preserving work directory" once
# per action: tests count actions and look at input roots. The server's PID
# is in DIR/server.pid (a test may kill it early); it is stopped by that PID;
# COMMAND's exit status is the script's. Everything is bounded in time:
# ULTO_REMOTE_WORKER_TIMEOUT seconds (default 300). Benchmarks may set
# ULTO_REMOTE_WORKER_JOBS (default 2) and ULTO_REMOTE_WORKER_DEBUG=0 (keep
# no action directories); ULTO_REMOTE_WORKER_ARGS adds server options (TLS).
# ULTO_REMOTE_WORKER_EXECUTION=0 makes it a cache only (no --work_path: it
# executes nothing), which also serves Bazel's HTTP cache protocol, in
# memory, on 127.0.0.1:8981.
set -euo pipefail
dir=$1
shift
jar=/usr/share/bazel/A-server.jar
src=/usr/src/bazel-bootstrap/src/tools/remote/src/main/java/com/google/devtools/build/remote/worker

# The compiled server is shared by the tests that name one directory for it
# in ULTO_REMOTE_WORKER_CLASSES; the first to finish compiling installs it.
classes=${ULTO_REMOTE_WORKER_CLASSES:-$dir/classes}
if [ ! -d "$classes" ]; then
  mkdir -p "$(dirname "$classes")"
  tmp=$(mktemp -d "$classes.XXXXXX")
  javac -nowarn -d "$tmp" -cp "$jar" $(find "$src" -name '*.java') 2>/dev/null
  mv -T "$tmp" "$classes" 2>/dev/null || rm -rf "$tmp"
fi
mkdir -p "$dir/work" "$dir/cas" "$dir/jni"
# TLS needs netty's native OpenSSL binding, which Debian ships under another
# name and which refuses to load through a symbolic link.
tcnative=/usr/lib/x86_64-linux-gnu/jni/libnetty-tcnative.so
[ -e "$tcnative" ] && cp "$tcnative" "$dir/jni/libnetty_tcnative.so"

args="--debug --work_path=$dir/work"
[ "${ULTO_REMOTE_WORKER_DEBUG:-1}" = 0 ] && args="--work_path=$dir/work"
[ "${ULTO_REMOTE_WORKER_EXECUTION:-1}" = 0 ] && args=--http_listen_port=8981
args="$args ${ULTO_REMOTE_WORKER_ARGS:-}"
exec timeout "${ULTO_REMOTE_WORKER_TIMEOUT:-300}" unshare -n bash -c '
  dir=$1; jar=$2; classes=$3; jobs=$4; args=$5; shift 5
  ip link set lo up
  java -Djava.library.path="$dir/jni" -cp "$classes:$jar" com.google.devtools.build.remote.worker.RemoteWorker \
    --cas_path="$dir/cas" --listen_port=8980 --jobs="$jobs" $args \
    --pid_file="$dir/server.pid" > "$dir/server.log" 2>&1 &
  for i in $(seq 1 120); do
    (exec 3<>/dev/tcp/127.0.0.1/8980) 2>/dev/null && break
    sleep 0.25
  done
  set +e
  "$@"
  status=$?
  kill "$(cat "$dir/server.pid")" 2>/dev/null
  wait
  exit $status
' with-remote-worker "$dir" "$jar" "$classes" "${ULTO_REMOTE_WORKER_JOBS:-2}" \
  "$args" "$@"
