"""Compiling the generated corpus: one job per source, run a few at a
time, CPU per job from os.wait4."""

import os
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ultobench.errors import CompileError, LinkError

COMMON_FLAGS = ["-c", "-O2", "-std=c++17"]


@dataclass
class Config:
    name: str
    label: str
    compiler: Path
    flags: List[str]
    cpu_rounds: List[float] = field(default_factory=list)
    wall_rounds: List[float] = field(default_factory=list)
    instructions: int = 0


@dataclass
class Job:
    argv: List[str]
    output: Path
    source: str


def compile_jobs(config: Config, corpus_dir: Path, sources: List[str],
                 obj_dir: Path) -> List[Job]:
    obj_dir.mkdir(parents=True, exist_ok=True)
    jobs = []
    for src in sources:
        out = obj_dir / (Path(src).stem + ".o")
        argv = [str(config.compiler), *config.flags, *COMMON_FLAGS,
                str(corpus_dir / src), "-o", str(out)]
        jobs.append(Job(argv, out, src))
    return jobs


def run_jobs(jobs: List[Job], parallel: int) -> Tuple[List[float], float]:
    """Run jobs `parallel` at a time; returns (CPU seconds per job, wall seconds).

    Each child is reaped with os.wait4, whose rusage covers the child and
    every descendant it waited for (a driver that forks cc1 is counted whole).
    Fails on the first non-zero exit or empty output (clang can exit 0 with
    a 0-byte object, see DESIGN.md), after letting running jobs finish.
    """
    pending = list(jobs)
    running: Dict[int, Tuple[Job, subprocess.Popen, object]] = {}
    cpu = []
    failure = None
    start = time.perf_counter()
    while running or (pending and failure is None):
        while pending and failure is None and len(running) < parallel:
            job = pending.pop(0)
            job.output.unlink(missing_ok=True)
            err = tempfile.TemporaryFile()
            try:
                proc = subprocess.Popen(job.argv, stdout=subprocess.DEVNULL, stderr=err)
            except OSError as e:
                err.close()
                failure = f"cannot run {job.argv[0]} for {job.source}: {e}"
                break
            running[proc.pid] = (job, proc, err)
        if not running:
            break
        pid, status, usage = os.wait4(-1, 0)
        job, proc, err = running.pop(pid)
        proc.returncode = os.waitstatus_to_exitcode(status)
        cpu.append(usage.ru_utime + usage.ru_stime)
        err.seek(0)
        stderr = err.read().decode(errors="replace")
        err.close()
        if failure is None:
            failure = job_failure(job, proc.returncode, stderr)
    wall = time.perf_counter() - start
    if failure:
        raise CompileError(failure)
    return cpu, wall


def compile_for_links(jobs: List[Job], parallel: int) -> None:
    """run_jobs for a benchmark of links: a failed compile ends it as a
    LinkError, and one line says what the compiles took."""
    try:
        cpu, wall = run_jobs(jobs, parallel)
    except CompileError as e:
        raise LinkError(str(e)) from e
    print(f"compiled {len(jobs)} sources: cpu {sum(cpu):.1f} s, wall {wall:.1f} s",
          flush=True)


def job_failure(job: Job, code: int, stderr: str) -> Optional[str]:
    if code != 0:
        reason = f"exit status {code}"
    elif not job.output.is_file() or job.output.stat().st_size == 0:
        reason = "exit status 0 but the object is missing or empty"
    else:
        return None
    tail = "\n".join(stderr.strip().splitlines()[-20:])
    return f"compiling {job.source} failed ({reason}):\n  {' '.join(job.argv)}\n{tail}"
