"""Timing a command (CPU of it and every process it waited for, wall),
instruction counts under valgrind, and CPU seen from /proc and getrusage."""

import os
import re
import resource
import shlex
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ultobench.errors import CompileError, LinkError
from ultobench.jobs import Job


def timed_run(argv: List[str], what: str, cwd: Optional[Path] = None,
              env: Optional[Dict[str, str]] = None) -> Tuple[float, float, str]:
    """Run argv (in cwd, with env); returns (CPU s of it and every descendant
    it waited for, wall s, its stderr)."""
    err = tempfile.TemporaryFile()
    start = time.perf_counter()
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                stderr=err)
    except OSError as e:
        err.close()
        raise LinkError(f"{what}: cannot run {argv[0]}: {e}") from e
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err.seek(0)
    stderr = err.read().decode(errors="replace")
    err.close()
    if proc.returncode != 0:
        tail = "\n".join(stderr.strip().splitlines()[-30:])
        where = f", in {cwd}" if cwd else ""
        raise LinkError(f"{what} failed (exit status {proc.returncode}){where}:\n"
                        f"  {shlex.join(argv)}\n{tail}")
    return usage.ru_utime + usage.ru_stime, wall, stderr


# valgrind tools that count instructions: options, and the summary line's pattern.
# cachegrind without cache simulation is ~1.5x faster than callgrind; the two
# count slightly differently, so compare counts of one tool only.
VALGRIND_TOOLS = {
    "callgrind": (["--tool=callgrind", "--callgrind-out-file={tmp}/out"],
                  r"Collected : (\d+)"),
    "cachegrind": (["--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file={tmp}/out"],
                   r"I\s+refs:\s+([\d,]+)"),
}


def count_instructions(jobs: List[Job], parallel: int, tool: str = "callgrind") -> int:
    """Instructions the compiler executes for these jobs, under callgrind
    (or cachegrind --cache-sim=no).

    Unlike CPU time this does not depend on what else the machine is doing,
    so it can resolve the 1% differences the compile-time target is about
    (clang runs cc1 in-process, so one process is the whole compile).
    """
    options, pattern = VALGRIND_TOOLS[tool]

    def one(job: Job) -> int:
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.run(
                ["valgrind", *(o.format(tmp=tmp) for o in options), *job.argv],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        match = re.search(pattern, proc.stderr)
        if proc.returncode != 0 or not match:
            raise CompileError(f"{tool} of {job.source} failed:\n  "
                               f"{' '.join(job.argv)}\n{proc.stderr[-2000:]}")
        return int(match.group(1).replace(",", ""))

    with ThreadPoolExecutor(parallel) as pool:
        return sum(pool.map(one, jobs))


def run_logged(argv: List[str], what: str, log: Path) -> Tuple[float, float]:
    """Run argv with its output in log; (CPU s, wall s). Fails with the log's tail."""
    start = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-40:])
        raise LinkError(f"{what} failed (exit status {code}):\n  {shlex.join(argv)}\n"
                        f"{tail}\n(whole output in {log})")
    return usage.ru_utime + usage.ru_stime, wall


def own_cpu() -> float:
    """CPU s of this script and of every process it waited for."""
    return sum(resource.getrusage(who).ru_utime + resource.getrusage(who).ru_stime
               for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))


def server_cpu(server_dir: Path) -> Tuple[float, float]:
    """CPU s of the running RemoteWorker JVM itself (utime+stime) and of the
    children it has waited for, the actions' compilers (cutime+cstime)."""
    pid = (server_dir / "server.pid").read_text().strip()
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = [int(f) / os.sysconf("SC_CLK_TCK") for f in fields[11:15]]
    return ticks[0] + ticks[1], ticks[2] + ticks[3]


def machine_cpu() -> float:
    """CPU s every process on the machine has used since boot (/proc/stat)."""
    fields = [int(f) for f in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")
