#!/usr/bin/env python3
"""The simplest ThinLTO distributor: runs a DTLTO job list's jobs one by one.

lld-22 runs `seq_distributor.py [ARGS...] JOBS.json` after the thin link
(--thinlto-distributor=, --thinlto-distributor-arg=) and waits. Each job's
command is common.args + job.args, run in the linker's working directory,
which this process inherits. No cache, no parallelism: dist_bench.py uses it
as the baseline for what distributing costs on top of lld's in-process
backends.

Exits 1 if any job fails (the link then fails), after naming the job.
Prints one summary line on stderr:
  seq_distributor: N jobs, wall W s
"""

import json
import shlex
import subprocess
import sys
import time


def main(argv):
    if len(argv) < 1:
        print("seq_distributor: usage: seq_distributor.py [ARGS...] JOBS.json",
              file=sys.stderr)
        return 1
    path = argv[-1]  # lld appends the job list after any distributor args
    try:
        with open(path, encoding="utf-8") as f:
            jobs_file = json.load(f)
        common = jobs_file["common"]["args"]
        jobs = jobs_file["jobs"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"seq_distributor: cannot read job list {path}: {e}", file=sys.stderr)
        return 1

    start = time.perf_counter()
    for index, job in enumerate(jobs):
        command = list(common) + list(job["args"])
        try:
            code = subprocess.run(command).returncode
        except OSError as e:
            print(f"seq_distributor: job {index + 1}/{len(jobs)}: cannot run "
                  f"{command[0]}: {e}", file=sys.stderr)
            return 1
        if code != 0:
            print(f"seq_distributor: job {index + 1}/{len(jobs)} failed "
                  f"(exit status {code}):\n  {shlex.join(command)}", file=sys.stderr)
            return 1
    print(f"seq_distributor: {len(jobs)} jobs, wall {time.perf_counter() - start:.2f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
