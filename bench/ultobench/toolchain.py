"""Where the tools are: stock clang-22/lld-22, the benchmarks' own directory
and the repository; facts about an ulto build (its sha256, whether ld.ulto
has a worker service) and its worker services."""

import argparse
import functools
import hashlib
import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Dict, List

LLVM_BIN = Path("/usr/lib/llvm-22/bin")
BENCH_DIR = Path(__file__).resolve().parent.parent
REPO = BENCH_DIR.parent
WITH_REMOTE_WORKER = (BENCH_DIR.parent / "test" / "tools" / "ulto-dist" / "Inputs" /
                      "with-remote-worker.sh")
# The executor's report, if any (remote_bench.py reads it), follows "at once; ".
ULTO_SUMMARY = re.compile(r"^ulto dist: (\d+) jobs?: (\d+) cached, (\d+) executed, "
                          r"(\d+) failed \(([^,]+), (\d+) at once[;)].*$", re.M)


class WorkerServices:
    """The worker services (`ulto dist --service`) of one benchmark run: the
    `ulto workers` processes whose environment has ULTO_BENCH_SERVICE=<this
    run's tag>, which links run with env. Their CPU is no link's child's, so
    timed_run cannot see it: cpu() reads it from /proc."""

    def __init__(self) -> None:
        self.tag = f"{os.getpid()}-{time.time_ns()}"
        self.env = dict(os.environ, ULTO_BENCH_SERVICE=self.tag)

    def processes(self) -> List[int]:
        mark = f"ULTO_BENCH_SERVICE={self.tag}".encode()
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if Path(f"/proc/{pid}/comm").read_text().strip() != "ulto workers":
                    continue
                if mark in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                    found.append(int(pid))
            except OSError:
                pass
        return found

    def cpu(self) -> float:
        """CPU s the services and their workers have used: each live
        process's (schedstat, ns), and the workers that retired (their
        service's children's, in clock ticks)."""
        total = 0.0
        tick = os.sysconf("SC_CLK_TCK")
        for pid in self.processes():
            try:
                total += int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                total += (int(fields[13]) + int(fields[14])) / tick
            except (OSError, IndexError, ValueError):
                pass
        return total

    def stop(self) -> None:
        """SIGTERM to each, by its process ID: a service stops its workers."""
        for pid in self.processes():
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass


@functools.lru_cache(maxsize=None)
def own_workers(ld_ulto: Path) -> List[str]:
    """The driver option that keeps a distributed link's jobs in workers of
    its own (-Wl,--no-dist-service), for an ld.ulto that has a worker service
    by default; none for an older one, which has no such option. Benchmarks
    that count a link's CPU by its children use it: the service's CPU is no
    child's (dist_realcode.py counts it, WorkerServices)."""
    help_text = subprocess.run([str(ld_ulto), "--help"], capture_output=True,
                               text=True).stdout
    return ["-Wl,--no-dist-service"] if "--no-dist-service" in help_text else []


def sha256(path: Path) -> str:
    """Which build was measured (ld.ulto is rebuilt often)."""
    h = hashlib.sha256()
    with open(path.resolve(), "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def variant_bins(ap: argparse.ArgumentParser, specs: List[str], prefix: str,
                 taken: List[str]) -> Dict[str, Path]:
    """--variant-bin NAME=DIR options as {prefix + NAME: DIR}, in order; a
    malformed one, or a NAME given twice or making a name in `taken`, is
    argparse's error."""
    variants: Dict[str, Path] = {}
    for spec in specs:
        name, _, where = spec.partition("=")
        config = prefix + name
        if not re.fullmatch(r"[\w.-]+", name) or not where or config in taken \
                or config in variants:
            ap.error(f"--variant-bin {spec}: expected NAME=DIR, NAME new and a word")
        variants[config] = Path(where).resolve()
    return variants
