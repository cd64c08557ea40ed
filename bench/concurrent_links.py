#!/usr/bin/env python3
"""Concurrent links: M test binaries over one library, linked all at once.

Build systems link many binaries at once (ninja runs the links of a project's
unit tests in parallel). This benchmark generates one C++ library of a few
hundred modules (gen_corpus.py's units, grouped into clusters whose units
only call each other) and M test mains, each calling every unit of its own
window of clusters, so neighbouring mains share most of their library. The
sources are compiled once with ulto-clang++ -O2 -flto=thin -funified-lto, the
library archived with llvm-ar, and a generated build.ninja links the M mains
with `ninja -j M` (every link at once), as

  lld-inproc   ld.lld-22 --lto=thin, in-process backends, lld's own cache
               (--thinlto-cache-dir) shared by the M links
  ulto-before  ld.ulto --lto=distributed from --before-bin, one shared cache
  ulto-after   ld.ulto --lto=distributed from --ulto-bin, one shared cache
  ulto-seq     (reference) the same M distributed links one after another
               with one fresh cache, --ulto-bin's ld.ulto

each with a fresh cache per run. Reported per configuration: the ninja run's
wall and CPU time, backend jobs executed (summed over ulto dist's summary
lines) over the distinct jobs (those ulto-seq executes), the most backend
processes running at once (sampled from /proc, and from ulto dist's time
traces), and from ulto-seq the cross-binary hit rate: of the library's
backend jobs across the M links, how many have the cache key of a job of an
earlier link. Every program is run and its output checked.
"""

import argparse
import contextlib
import hashlib
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

from ultobench.corpus import (
    BASE_CPP, COMMON_H, gen_unit, hexc, MAIN_SEED, mix, Program, Unit, unit_cpp)
from ultobench.errors import LinkError
from ultobench.jobs import compile_for_links, compile_jobs, Config as CompileConfig
from ultobench.measure import machine_cpu, timed_run
from ultobench.rounds import rotated
from ultobench.snapshot import snapshot
from ultobench.tables import fmt
from ultobench.toolchain import BENCH_DIR, LLVM_BIN, own_workers, sha256
from ultobench.workdir import in_dir

LIBRARY = Path("lib") / "libbench.a"
COMPILE_FLAGS = ["-flto=thin", "-funified-lto"]  # compile_bench adds -c -O2 -std=c++17
REPORT = "concurrent_links"  # BUILD/<REPORT>.json and .md

# ulto dist's summary line, one per link on stderr. A build with machine-wide
# in-flight deduplication adds ", W waited on another link" after the cached
# count when W > 0; the executor's report, if any, follows "at once; ".
SUMMARY = re.compile(
    r"^ulto dist: (?P<jobs>\d+) jobs?: (?P<cached>\d+) cached, "
    r"(?:(?P<waited>\d+) waited on another link, )?"
    r"(?P<executed>\d+) executed, (?P<failed>\d+) failed "
    r"\((?P<executor>[^,;)]+)(?:, (?P<at_once>\d+) at once)?[^)]*\).*$", re.M)

# An archive member as lld's DTLTO names it in a job (and ulto dist in its
# trace): "lib/libbench.a(u0001.o at 4064).7.6AE7.o".
MEMBER = re.compile(r"\.a\(([^()]+) at \d+\)")

# Processes that run ulto dist: a ulto process whose parent is one of these
# is ulto dist itself, not a backend job (see BackendSampler).
LINKER_COMMS = {b"ld.ulto", b"ld.lld", b"lld", b"ld"}

# Time-trace events of a ulto dist with the machine-wide slot pool and
# in-flight deduplication: inside "execute", before the job starts; and
# instead of it, for a job another link is running.
SLOT_WAIT = "wait for a slot"
LINK_WAIT = "wait for another link"


# --- The corpus: one library, M mains ---------------------------------------------------

@dataclass
class Library:
    units: List[Unit]
    clusters: List[List[Unit]]
    windows: List[List[int]]     # per main, the clusters it uses, in call order

    def main_units(self, k: int) -> List[Unit]:
        return [u for c in self.windows[k] for u in self.clusters[c]]


def plan_library(seed: int, units: int, cluster_size: int, mains: int,
                 share: float) -> Library:
    """`units` public gen_corpus units; unit i is in cluster i // cluster_size
    and calls leaf() of 2-4 others of its cluster only, so a main that calls
    any unit of a cluster loads that cluster's archive members and no other.
    Main k uses `share` of the clusters, a window starting at cluster
    k * clusters / mains (wrapping around), so neighbours overlap."""
    width = max(4, len(str(units - 1)))
    names = [f"u{i:0{width}d}" for i in range(units)]
    groups = [names[i:i + cluster_size] for i in range(0, units, cluster_size)]
    by_name = {n: gen_unit(seed, n, False, group)
               for group in groups for n in group}
    clusters = [[by_name[n] for n in group] for group in groups]
    count = len(clusters)
    used = min(count, max(1, round(share * count)))
    windows = [[(k * count // mains + j) % count for j in range(used)]
               for k in range(mains)]
    return Library([by_name[n] for n in names], clusters, windows)


def main_seed(k: int) -> int:
    return mix(MAIN_SEED + k)


def test_main_cpp(k: int, units: List[Unit]) -> str:
    out = [f"// Generated by bench/concurrent_links.py: test binary {k}, calls "
           f"{len(units)} library units.", '#include "common.h"', "", "#include <cstdio>", ""]
    out += [f"namespace {u.name} {{ bench::u64 entry(bench::u64 x); }}" for u in units]
    out += ["", "int main() {", f"  bench::u64 h = {hexc(main_seed(k))};"]
    out += [f"  h = bench::mix(h ^ {u.name}::entry(h));" for u in units]
    out += [f'  std::printf("test {k}: {len(units)} units\\n");',
            '  std::printf("checksum: %016llx\\n", (unsigned long long)h);',
            '  std::printf("trace: %016llx\\n", (unsigned long long)bench::g_trace);',
            "  return 0;", "}"]
    return "\n".join(out) + "\n"


def expected_output(k: int, library: Library) -> str:
    """What main k prints, from gen_corpus's Python mirror of the units."""
    units = library.main_units(k)
    program = Program(library.units)
    h = main_seed(k)
    for u in units:
        h = mix(h ^ program.drive(u, h))
    return (f"test {k}: {len(units)} units\n"
            f"checksum: {h:016x}\n"
            f"trace: {program.trace:016x}\n")


def write_corpus(out: Path, library: Library, mains: int) -> Tuple[List[str], List[str]]:
    """Every source into `out` (library units, base.cpp, main<k>.cpp, and
    expected/main<k>.txt). Returns (library sources, main sources)."""
    out.mkdir(parents=True)
    (out / "expected").mkdir()
    files = {"common.h": COMMON_H, "base.cpp": BASE_CPP}
    files.update({f"{u.name}.cpp": unit_cpp(u) for u in library.units})
    files.update({f"main{k}.cpp": test_main_cpp(k, library.main_units(k))
                  for k in range(mains)})
    files.update({f"expected/main{k}.txt": expected_output(k, library)
                  for k in range(mains)})
    for name, text in files.items():
        (out / name).write_text(text)
    lib_sources = [f"{u.name}.cpp" for u in library.units] + ["base.cpp"]
    return lib_sources, [f"main{k}.cpp" for k in range(mains)]


def build_corpus(args: argparse.Namespace) -> Tuple[Library, List[str]]:
    """Corpus, objects and archive in BUILD, paths relative to it. Returns the
    library and the expected output of each main."""
    build = args.build
    library = plan_library(args.seed, args.lib_units, args.cluster_size, args.mains,
                           args.share)
    lib_sources, main_sources = write_corpus(build / "corpus", library, args.mains)
    uses = [sum(k_uses.count(c) for k_uses in library.windows)
            for c in range(len(library.clusters))]
    print(f"corpus: {len(lib_sources)} library modules ({len(library.clusters)} clusters "
          f"of up to {args.cluster_size} units, plus base.cpp), {args.mains} mains of "
          f"{len(library.windows[0])} clusters each; each cluster used by "
          f"{min(uses)}-{max(uses)} mains", flush=True)
    compiler = CompileConfig("U", "ulto-clang++ -flto=thin -funified-lto",
                                    args.after_tools / "ulto-clang++", COMPILE_FLAGS)
    with in_dir(build):
        jobs = compile_jobs(compiler, Path("corpus"),
                                          lib_sources + main_sources, Path("obj"))
        compile_for_links(jobs, args.jobs)
        LIBRARY.parent.mkdir()
        members = [str(j.output) for j in jobs if j.source in set(lib_sources)]
        argv = [str(LLVM_BIN / "llvm-ar"), "rcs", str(LIBRARY), *members]
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode != 0:
            raise LinkError(f"llvm-ar failed (exit {proc.returncode}):\n  "
                            f"{shlex.join(argv[:4])} ...\n{proc.stderr}")
    print(f"archive: {len(members)} bitcode members in {build / LIBRARY}", flush=True)
    expected = [(build / "corpus" / "expected" / f"main{k}.txt").read_text()
                for k in range(args.mains)]
    return library, expected


# --- The programs measured ----------------------------------------------------------------


@contextlib.contextmanager
def link_environment(runtime: Optional[Path]) -> Iterator[None]:
    """The environment of a run's links: no make jobserver from outside
    (ulto dist would obey it instead of its slot pool) and, unless None, a
    private XDG_RUNTIME_DIR, where ulto dist keeps the machine's slot pool,
    so that the links share slots with each other and not with whatever else
    runs ulto on the machine."""
    saved = dict(os.environ)
    for name in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        os.environ.pop(name, None)
    if runtime is not None:
        shutil.rmtree(runtime, ignore_errors=True)
        runtime.mkdir(parents=True, mode=0o700)
        os.environ["XDG_RUNTIME_DIR"] = str(runtime.resolve())
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


# --- Configurations and their link commands ----------------------------------------------

@dataclass
class Config:
    name: str
    label: str
    linker: Path
    mode: str           # the -Wl,--lto= value
    concurrent: bool    # ninja -j M, or one link after another
    runs: List[dict] = field(default_factory=list)
    messages: List[str] = field(default_factory=list)  # other stderr lines, deduplicated

    @property
    def distributed(self) -> bool:
        return self.mode == "distributed"


def make_configs(args: argparse.Namespace) -> Tuple[Dict[str, Config], List[str]]:
    notes = []
    configs = {"lld-inproc": Config("lld-inproc", "ld.lld-22 --lto=thin, in-process, "
                                    "--thinlto-cache-dir", LLVM_BIN / "ld.lld", "thin",
                                    True)}
    if args.before_bin:
        configs["ulto-before"] = Config("ulto-before", f"ld.ulto --lto=distributed "
                                        f"({args.before_bin})",
                                        args.before_tools / "ld.ulto", "distributed",
                                        True)
    else:
        notes.append("ulto-before skipped: no --before-bin given")
    configs["ulto-after"] = Config("ulto-after", f"ld.ulto --lto=distributed "
                                   f"({args.ulto_bin})", args.after_tools / "ld.ulto",
                                   "distributed", True)
    if args.seq != "off":
        configs["ulto-seq"] = Config("ulto-seq", f"ld.ulto --lto=distributed "
                                     f"({args.ulto_bin}), one link after another",
                                     args.after_tools / "ld.ulto", "distributed",
                                     False)
    else:
        notes.append("ulto-seq skipped (--seq off): distinct jobs and the cross-binary "
                     "hit rate are unknown")
    return configs, notes


def run_dir(config: Config) -> Path:
    """Where a run keeps its build.ninja, programs, logs and traces, relative
    to BUILD."""
    return Path("runs") / config.name


def link_argv(config: Config, k: int, cache: Path,
              thinlto_jobs: Optional[int]) -> List[str]:
    """Link main k, through clang-22's driver, paths relative to BUILD."""
    here = run_dir(config)
    if config.distributed:
        extra = [f"-Wl,--dist-cache-dir={cache}",
                 f"-Wl,--dist-time-trace={here / 'traces' / f'main{k}.json'}",
                 *own_workers(config.linker)]
        if thinlto_jobs:
            extra.append(f"-Wl,--dist-jobs={thinlto_jobs}")
    else:
        extra = [f"-Wl,--thinlto-cache-dir={cache}"]
        if thinlto_jobs:
            extra.append(f"-Wl,--thinlto-jobs={thinlto_jobs}")
    return [str(LLVM_BIN / "clang++"), "-fuse-ld=lld", f"--ld-path={config.linker}",
            "-O2", "-flto=thin", f"-Wl,--lto={config.mode}", *extra,
            str(Path("obj") / f"main{k}.o"), str(LIBRARY),
            "-o", str(here / "bin" / f"main{k}")]


def ninja_escape(text: str) -> str:
    if "\n" in text:
        raise LinkError(f"a newline in a ninja variable: {text!r}")
    return text.replace("$", "$$")


def ninja_file(config: Config, argvs: List[List[str]]) -> str:
    """A build.ninja (run in BUILD) with one edge per link; each link's stderr
    goes to logs/main<k>.err, so its summary line can be read after."""
    here = run_dir(config)
    lines = [f"# Generated by bench/concurrent_links.py: {config.label}.",
             "ninja_required_version = 1.5", f"builddir = {here}", "",
             "rule link", "  command = $cmd 2> $log", "  description = LINK $out", ""]
    outs = []
    for k, argv in enumerate(argvs):
        out = here / "bin" / f"main{k}"
        outs.append(str(out))
        lines += [f"build {out}: link {Path('obj') / f'main{k}.o'} {LIBRARY}",
                  f"  cmd = {ninja_escape(shlex.join(argv))}",
                  f"  log = {here / 'logs' / f'main{k}.err'}", ""]
    lines.append("default " + " ".join(outs))
    return "\n".join(lines) + "\n"


# --- Counting backend processes ------------------------------------------------------------

class BackendSampler(threading.Thread):
    """Counts running ThinLTO backend processes every `interval` seconds.

    A backend process is one working in `root` (its cwd is under it, so other
    people's builds on the machine do not count) that is
      - a fork server's child: a `ulto` process whose parent is a `ulto`
        process that is not itself started by a linker (ulto dist's fork
        server is a child of ulto dist, whose parent is ld.ulto or ld.lld;
        a fork server shared machine-wide would have another parent), or
      - a clang process running a DTLTO backend (`-fthinlto-index=` on its
        command line): ulto dist's --spawn, or another distributor.
    lld's in-process backends are threads and are not counted (0).
    """

    def __init__(self, root: Path, interval: float):
        super().__init__(daemon=True)
        self.root = str(root.resolve())
        self.interval = interval
        self.stop_event = threading.Event()
        self.counts: List[int] = []
        self.cpu = 0.0  # this thread's own CPU s
        self.error: Optional[BaseException] = None

    @staticmethod
    def processes() -> Dict[int, Tuple[bytes, int, bytes]]:
        """pid -> (comm, ppid, state) of every process, from /proc/*/stat."""
        result = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue  # gone meanwhile
            close = stat.rindex(b")")
            state, ppid = stat[close + 2:].split(None, 2)[:2]
            result[int(name)] = (stat[stat.index(b"(") + 1:close], int(ppid), state)
        return result

    def is_ours(self, pid: int) -> bool:
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            return False
        return cwd == self.root or cwd.startswith(self.root + "/")

    def count(self) -> int:
        procs = self.processes()
        n = 0
        for pid, (comm, ppid, state) in procs.items():
            if state == b"Z":
                continue
            if comm == b"ulto":
                parent = procs.get(ppid)
                if parent is None or parent[0] != b"ulto":
                    continue
                grandparent = procs.get(parent[1])
                if grandparent is not None and grandparent[0] in LINKER_COMMS:
                    continue  # pid is the fork server, its parent ulto dist
                if state not in (b"R", b"D"):
                    continue  # an idle worker, waiting for its next job
            elif comm.startswith(b"clang"):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        if b"-fthinlto-index=" not in f.read():
                            continue
                except OSError:
                    continue
            else:
                continue
            n += self.is_ours(pid)
        return n

    def run(self) -> None:
        start = time.thread_time()
        try:
            while not self.stop_event.wait(self.interval):
                self.counts.append(self.count())
        except BaseException as e:  # reported by the caller
            self.error = e
        self.cpu = time.thread_time() - start

    def finish(self) -> dict:
        self.stop_event.set()
        self.join()
        if self.error:
            raise LinkError(f"sampling /proc failed: {self.error!r}")
        counts = self.counts or [0]
        return {"samples": len(self.counts), "peak": max(counts),
                "mean": statistics.mean(counts), "sampler_cpu_s": self.cpu}


# --- Reading what the links report ------------------------------------------------------

def parse_summary(text: str, what: str) -> dict:
    """The figures of the one ulto dist summary line in `text`."""
    found = list(SUMMARY.finditer(text))
    if len(found) != 1:
        raise LinkError(f"{what}: expected one `ulto dist:` summary line on stderr, "
                        f"found {len(found)}:\n{text}")
    g = found[0].groupdict()
    out = {k: int(g[k] or 0) for k in ("jobs", "cached", "waited", "executed", "failed")}
    out["at_once"] = int(g["at_once"]) if g["at_once"] else None
    out["executor"] = g["executor"]
    out["line"] = found[0].group(0)
    return out


def module_name(path: str) -> str:
    """An archive member's name ("u0001.o"), else the job's module path."""
    m = MEMBER.search(path)
    return m.group(1) if m else path


def read_trace(path: Path, what: str) -> dict:
    """From ulto dist's time trace: every job's module, those that are
    archive members (the library's), the executed ones, the time jobs waited
    for a machine-wide slot and for another link, and when each executed job
    ran: its "execute" event less the "wait for a slot" inside it, in µs
    since the epoch (beginningOfTime + ts), so that the traces of different
    processes line up. A job appears once per link, so its module names it."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise LinkError(f"{what}: cannot read its time trace {path}: {e}") from e
    base = data.get("beginningOfTime", 0)
    jobs: Set[str] = set()
    library: Set[str] = set()
    execute: Dict[str, Tuple[int, int]] = {}
    slot_end: Dict[str, int] = {}
    waits = {SLOT_WAIT: 0.0, LINK_WAIT: 0.0}
    for e in data.get("traceEvents", []):
        if e.get("ph") != "X" or "detail" not in e.get("args", {}):
            continue
        module = module_name(e["args"]["detail"])
        start, end = base + e["ts"], base + e["ts"] + e["dur"]
        if e["name"] == "backend":
            jobs.add(module)
            if MEMBER.search(e["args"]["detail"]):
                library.add(module)
        elif e["name"] == "execute":
            execute[module] = (start, end)
        elif e["name"] in waits:
            waits[e["name"]] += e["dur"] / 1e6
            if e["name"] == SLOT_WAIT:
                slot_end[module] = max(end, slot_end.get(module, end))
    spans = [(slot_end.get(m, start), end) for m, (start, end) in execute.items()]
    return {"jobs": sorted(jobs), "library": sorted(library), "executed": sorted(execute),
            "spans": spans, "slot_wait_s": waits[SLOT_WAIT],
            "link_wait_s": waits[LINK_WAIT]}


def peak_overlap(spans: Sequence[Tuple[int, int]], min_us: int = 5000) -> int:
    """The most spans (µs) open at once, held for at least min_us without a
    break: a job's "execute" event ends after its slot is given back and the
    next job has started (it reads the job's log and object back; on a loaded
    machine that took up to 2.5 ms), which is no overlap of processes. An end
    and a start at the same time do not overlap."""
    points = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans])
    segments = []  # (start, end, spans open)
    now = 0
    for (t, step), (following, _) in zip(points, points[1:]):
        now += step
        if following > t:
            segments.append((t, following, now))
    for level in range(max((n for _, _, n in segments), default=0), 1, -1):
        start = None
        for begin, end, n in segments:
            if n < level:
                start = None
                continue
            if start is None or begin != previous_end:
                start = begin
            previous_end = end
            if end - start >= min_us:
                return level
    return 1 if spans else 0


# --- Running one configuration -------------------------------------------------------------

def sha256_bytes(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_programs(config: Config, argvs: List[List[str]], expected: List[str]) -> List[str]:
    """Run every linked main; each must print its expected output. Returns
    their SHA-256."""
    digests = []
    for k, argv in enumerate(argvs):
        prog = Path.cwd() / run_dir(config) / "bin" / f"main{k}"
        if not prog.is_file() or prog.stat().st_size == 0:
            raise LinkError(f"{config.name}: link exited 0 but {prog} is missing or "
                            f"empty:\n  {shlex.join(argv)}")
        proc = subprocess.run([str(prog)], capture_output=True, text=True)
        if proc.returncode != 0 or proc.stdout != expected[k]:
            raise LinkError(f"{config.name}: {prog} printed the wrong output (exit "
                            f"{proc.returncode}).\nlink command:\n  {shlex.join(argv)}\n"
                            f"expected:\n{expected[k]}got:\n{proc.stdout}{proc.stderr}")
        digests.append(sha256_bytes(prog))
    return digests


def run_ninja(config: Config, parallel: int) -> Tuple[float, float]:
    """ninja -j parallel on the configuration's build.ninja, in BUILD.
    Returns (CPU s of ninja and every link it waited for, wall s)."""
    here = run_dir(config)
    argv = [shutil.which("ninja") or "ninja", "-f", str(here / "build.ninja"),
            "-j", str(parallel)]
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        try:
            proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
        except OSError as e:
            raise LinkError(f"{config.name}: cannot run ninja: {e}") from e
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        output = out.read().decode(errors="replace")
    if code != 0:
        logs = []  # the stderr of each link that made no program
        for log in sorted((Path.cwd() / here / "logs").glob("*.err")):
            if not (Path.cwd() / here / "bin" / log.stem).is_file():
                text = log.read_text(errors="replace").strip()
                logs.append(f"--- {log}:\n" + "\n".join(text.splitlines()[-30:]))
        raise LinkError(f"{config.name}: ninja failed (exit status {code}) in "
                        f"{Path.cwd()}:\n  {shlex.join(argv)}\n"
                        + "\n".join(output.strip().splitlines()[-40:]) + "\n"
                        + "\n".join(logs))
    return usage.ru_utime + usage.ru_stime, wall


def run_sequential(config: Config, argvs: List[List[str]]) -> Tuple[float, float,
                                                                     List[str]]:
    """The links one after another, in BUILD. Returns (CPU s, wall s, each
    link's stderr)."""
    cpu = wall = 0.0
    stderrs = []
    for k, argv in enumerate(argvs):
        c, w, stderr = timed_run(argv, f"{config.name}: link main{k}",
                                            Path.cwd())
        (run_dir(config) / "logs" / f"main{k}.err").write_text(stderr)
        cpu, wall = cpu + c, wall + w
        stderrs.append(stderr)
    return cpu, wall, stderrs


def cache_entries(cache: Path) -> int:
    """Entries of an lld or ulto cache: the llvmcache-* files (not the
    timestamp file)."""
    if not cache.is_dir():
        return 0
    return sum(1 for p in cache.rglob("llvmcache-*")
               if p.is_file() and p.name != "llvmcache.timestamp")


def run_config(config: Config, args: argparse.Namespace, expected: List[str],
               r: int) -> dict:
    """One run of a configuration (in BUILD, which is the cwd): fresh
    directories and cache, the links, their programs checked, the figures."""
    here = run_dir(config)
    shutil.rmtree(here, ignore_errors=True)
    for sub in ("bin", "logs", "traces"):
        (here / sub).mkdir(parents=True)
    cache = Path("caches") / f"{config.name}-r{r + 1}"
    shutil.rmtree(cache, ignore_errors=True)
    argvs = [link_argv(config, k, cache, args.thinlto_jobs) for k in range(args.mains)]
    (here / "build.ninja").write_text(ninja_file(config, argvs))

    runtime = None if args.shared_slots else Path("runtime") / f"{config.name}-r{r + 1}"
    sampler = BackendSampler(Path.cwd(), args.sample_ms / 1000)
    with link_environment(runtime):
        machine_before = machine_cpu()
        sampler.start()
        try:
            if config.concurrent:
                cpu, wall = run_ninja(config, args.ninja_jobs)
                stderrs = [(here / "logs" / f"main{k}.err").read_text(errors="replace")
                           for k in range(args.mains)]
            else:
                cpu, wall, stderrs = run_sequential(config, argvs)
        finally:
            sampled = sampler.finish()
        machine = machine_cpu() - machine_before

    digests = check_programs(config, argvs, expected)
    run = {"round": r + 1, "wall_s": wall, "cpu_s": cpu,
           "others_cpu_s": machine - cpu - sampled["sampler_cpu_s"],
           "sampled": sampled, "cache_entries": cache_entries(cache),
           "program_sha256": digests}
    if config.distributed:
        links = []
        for k, stderr in enumerate(stderrs):
            what = f"{config.name}: link main{k}"
            summary = parse_summary(stderr, f"{what}\n  {shlex.join(argvs[k])}")
            if summary["failed"]:
                raise LinkError(f"{what}: ulto dist reports {summary['failed']} failed "
                                f"jobs but the link succeeded:\n{stderr}")
            trace = read_trace(here / "traces" / f"main{k}.json", what)
            links.append({"summary": summary, "trace": trace})
            for line in stderr.splitlines():
                if line.strip() and not SUMMARY.match(line) and line not in config.messages:
                    config.messages.append(line)
                    print(f"  [{config.name} stderr] {line}", flush=True)
        for key in ("jobs", "cached", "waited", "executed"):
            run[key] = sum(link["summary"][key] for link in links)
        run["at_once"] = links[0]["summary"]["at_once"]
        run["trace_peak_running"] = peak_overlap(
            [s for link in links for s in link["trace"]["spans"]])
        run["trace_jobs"] = sum(len(link["trace"]["jobs"]) for link in links)
        run["trace_executed"] = sum(len(link["trace"]["executed"]) for link in links)
        for key in ("slot_wait_s", "link_wait_s"):
            run[key] = sum(link["trace"][key] for link in links)
        run["links"] = [{"summary": link["summary"]["line"],
                         "jobs": link["trace"]["jobs"],
                         "library": link["trace"]["library"],
                         "executed": link["trace"]["executed"]} for link in links]
    else:
        for line in "\n".join(stderrs).splitlines():
            if line.strip() and line not in config.messages:
                config.messages.append(line)
                print(f"  [{config.name} stderr] {line}", flush=True)
    if not args.keep_caches:
        shutil.rmtree(cache, ignore_errors=True)
    if runtime is not None:
        shutil.rmtree(runtime, ignore_errors=True)
    config.runs.append(run)

    jobs = ""
    if config.distributed:
        jobs = (f"  jobs {run['jobs']} ({run['cached']} cached, {run['waited']} waited, "
                f"{run['executed']} executed)  trace peak {run['trace_peak_running']}")
    print(f"  round {r + 1}/{args.rounds} {config.name:11}: cpu {cpu:7.2f} s  wall "
          f"{wall:7.2f} s  others {run['others_cpu_s']:6.2f} s  sampled peak "
          f"{sampled['peak']} ({sampled['samples']} samples){jobs}", flush=True)
    return run


def run_rounds(configs: Dict[str, Config], args: argparse.Namespace,
               expected: List[str]) -> None:
    """--seq once: the sequential reference first (it also warms the page
    cache); then each round runs the concurrent configurations (and with
    --seq rounds the sequential one) in rotating order."""
    slots = [c for c in configs.values() if c.concurrent]
    seq = configs.get("ulto-seq")
    if seq and args.seq == "once":
        run_config(seq, args, expected, 0)
    elif seq:
        slots.append(seq)
    for r in range(args.rounds):
        for config in rotated(slots, r):
            run_config(config, args, expected, r)


# --- Report -------------------------------------------------------------------------------

def reuse(seq: Config) -> dict:
    """Cross-binary reuse, from the first sequential run's traces: link k's
    library jobs that were cache hits (the same key as a job of links 0..k-1),
    and for comparison the jobs whose module an earlier link also compiled."""
    run = seq.runs[0]
    seen_modules: Set[str] = set()
    per_link = []
    uses: Dict[str, int] = {}
    keys: Dict[str, int] = {}
    for k, link in enumerate(run["links"]):
        library = link["library"]
        executed = set(link["executed"])
        hits = [m for m in library if m not in executed]
        again = [m for m in library if m in seen_modules]
        per_link.append({"link": f"main{k}", "library_jobs": len(library),
                         "hits": len(hits), "module_seen_before": len(again),
                         "executed": len(link["executed"])})
        seen_modules.update(library)
        for m in library:
            uses[m] = uses.get(m, 0) + 1
            keys[m] = keys.get(m, 0) + (m in executed)
    total = {key: sum(p[key] for p in per_link)
             for key in ("library_jobs", "hits", "module_seen_before", "executed")}
    shared = [m for m, n in uses.items() if n > 1]
    return {"per_link": per_link, "total": total,
            "distinct_library_modules": len(uses),
            "hit_rate": total["hits"] / total["library_jobs"] if total["library_jobs"] else None,
            "key_identity": (total["hits"] / total["module_seen_before"]
                             if total["module_seen_before"] else None),
            "shared_modules": len(shared),
            "shared_modules_one_key": sum(1 for m in shared if keys[m] == 1)}


def stat(values: List[float]) -> Tuple[Optional[float], Optional[float]]:
    return (min(values), statistics.median(values)) if values else (None, None)


def summarise(config: Config, base: Config, distinct: Optional[int]) -> dict:
    runs = config.runs
    by_round = {run["round"]: run for run in base.runs}
    ratios: Dict[str, List[float]] = {"wall_s": [], "cpu_s": []}
    if config is not base and config.concurrent:
        for run in runs:
            other = by_round.get(run["round"])
            for key in ratios:
                if other and other[key]:
                    ratios[key].append(run[key] / other[key])
    row = {"config": config.name, "label": config.label, "linker": str(config.linker),
           "concurrent": config.concurrent, "runs": len(runs), "rounds": runs,
           "stderr_other": config.messages}
    for key in ("wall_s", "cpu_s"):
        row[f"{key}_min"], row[f"{key}_median"] = stat([r[key] for r in runs])
        row[f"{key}_ratio"] = statistics.median(ratios[key]) if ratios[key] else None
    row["others_cpu_s_median"] = statistics.median(r["others_cpu_s"] for r in runs)
    row["cache_entries"] = statistics.median(r["cache_entries"] for r in runs)
    row["sampled_peak_max"] = max(r["sampled"]["peak"] for r in runs)
    row["sampled_peak_median"] = statistics.median(r["sampled"]["peak"] for r in runs)
    row["sampled_mean_median"] = statistics.median(r["sampled"]["mean"] for r in runs)
    row["programs_stable"] = len({tuple(r["program_sha256"]) for r in runs}) == 1
    if config.distributed:
        for key in ("jobs", "cached", "waited", "executed", "trace_peak_running",
                    "slot_wait_s", "link_wait_s"):
            row[key] = statistics.median(r[key] for r in runs)
        row["executed_over_distinct"] = (statistics.median(r["executed"] / distinct
                                                           for r in runs)
                                         if distinct else None)
        row["at_once"] = runs[-1]["at_once"]
    return row


def main_table(rows: List[dict], base: str) -> str:
    lines = [f"| config | wall s min / median | CPU s min / median | wall ÷ {base} "
             f"| CPU ÷ {base} | others' CPU s | jobs | cached | waited | executed "
             "| executed ÷ distinct | cache entries | peak backends sampled "
             "| peak running (trace) |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        dist = r["config"] != base
        peak = (f"{r['sampled_peak_median']:g} (max {r['sampled_peak_max']})"
                if r.get("jobs") is not None else "n/a (threads)")
        lines.append(
            f"| {r['config']} | {r['wall_s_min']:.2f} / {r['wall_s_median']:.2f} "
            f"| {r['cpu_s_min']:.2f} / {r['cpu_s_median']:.2f} "
            f"| {fmt(r['wall_s_ratio'], '.3f') if dist else '1'} "
            f"| {fmt(r['cpu_s_ratio'], '.3f') if dist else '1'} "
            f"| {r['others_cpu_s_median']:.2f} "
            f"| {fmt(r.get('jobs'), 'g')} | {fmt(r.get('cached'), 'g')} "
            f"| {fmt(r.get('waited'), 'g')} | {fmt(r.get('executed'), 'g')} "
            f"| {fmt(r.get('executed_over_distinct'), '.2f')} "
            f"| {r['cache_entries']:g} | {peak} "
            f"| {fmt(r.get('trace_peak_running'), 'g')} |")
    return "\n".join(lines)


def reuse_table(info: dict) -> str:
    lines = ["| link | library jobs | cache hits from earlier links | module compiled "
             "by an earlier link | jobs executed |", "|---|---:|---:|---:|---:|"]
    for p in info["per_link"] + [dict(info["total"], link="total")]:
        lines.append(f"| {p['link']} | {p['library_jobs']} | {p['hits']} "
                     f"| {p['module_seen_before']} | {p['executed']} |")
    return "\n".join(lines)


def notes(rows: Dict[str, dict], configs: Dict[str, Config], info: Optional[dict],
          distinct: Optional[int], skipped: List[str]) -> List[str]:
    out = [f"- {s}" for s in skipped]
    if info:
        t = info["total"]
        out.append(f"- distinct backend jobs (ulto-seq, one cache, links one after "
                   f"another): {distinct}, of {configs['ulto-seq'].runs[0]['jobs']} jobs "
                   f"in all")
        out.append(f"- cross-binary hit rate: {t['hits']} of {t['library_jobs']} library "
                   f"jobs ({fmt(info['hit_rate'], '.1%')}) had the key of a job of an "
                   f"earlier link; {t['module_seen_before']} had a module an earlier "
                   f"link compiled, so {fmt(info['key_identity'], '.1%')} of those kept "
                   f"their key; {info['shared_modules_one_key']} of the "
                   f"{info['shared_modules']} modules used by more than one link had one "
                   f"key in every link")
    for name, row in rows.items():
        if row.get("executed") is not None and distinct:
            for run in row["rounds"]:
                if run["executed"] < distinct:
                    out.append(f"- NOTE: {name} round {run['round']} executed "
                               f"{run['executed']} jobs, fewer than the {distinct} "
                               f"distinct ones (different cache keys?)")
        if not row["programs_stable"]:
            out.append(f"- NOTE: {name}'s programs differ between rounds")
        for run in row["rounds"]:
            if run.get("trace_jobs") is not None and run["trace_jobs"] != run["jobs"]:
                out.append(f"- NOTE: {name} round {run['round']}: the traces name "
                           f"{run['trace_jobs']} jobs, the summary lines {run['jobs']}")
    after, seq = configs.get("ulto-after"), configs.get("ulto-seq")
    if after and seq and after.runs and seq.runs:
        if all(r["program_sha256"] == seq.runs[0]["program_sha256"] for r in after.runs):
            out.append("- ulto-after's programs are byte-identical to ulto-seq's in "
                       "every round")
        else:
            out.append("- NOTE: ulto-after's programs differ from ulto-seq's (same "
                       "ld.ulto): a job's object depends on how it was shared")
    return out


# --- Driver -------------------------------------------------------------------------------

def self_test() -> int:
    """The summary-line parser on both forms of the line."""
    old = ("ulto dist: 13 jobs: 1 cached, 12 executed, 0 failed (local, 2 at once); "
           "wall 0.09s; slowest m.o 0.02s")
    new = ("ulto dist: 13 jobs: 1 cached, 3 waited on another link, 9 executed, "
           "0 failed (local, 2 at once); wall 0.09s; slowest m.o 0.02s")
    one = "ulto dist: 1 job: 0 cached, 1 executed, 0 failed (local, 1 at once); wall 0.01s"
    checks = [(old, (13, 1, 0, 12, 2)), (new, (13, 1, 3, 9, 2)), (one, (1, 0, 0, 1, 1))]
    for line, want in checks:
        s = parse_summary("warning: something else\n" + line + "\n", "self-test")
        got = (s["jobs"], s["cached"], s["waited"], s["executed"], s["at_once"])
        if got != want:
            print(f"self-test FAILED on {line!r}: {got} != {want}", file=sys.stderr)
            return 1
    assert module_name("lib/libbench.a(u0001.o at 4064).7.6AE7.o") == "u0001.o"
    assert module_name("obj/main3.o") == "obj/main3.o"
    assert peak_overlap([(0, 10), (10, 20), (5, 15)], 1) == 2
    assert peak_overlap([(0, 5000), (2000, 9000)]) == 1
    assert peak_overlap([(0, 9000), (3000, 9000)]) == 2
    assert peak_overlap([(0, 9000), (1000, 4000), (3000, 7000)]) == 2
    assert peak_overlap([(0, 100)]) == 1 and peak_overlap([]) == 0
    print("self-test passed")
    return 0


def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib-units", type=int, default=300,
                    help="library units (default 300; base.cpp comes on top)")
    ap.add_argument("--cluster-size", type=int, default=10,
                    help="units per cluster; a unit calls only units of its cluster "
                         "(default 10)")
    ap.add_argument("--mains", type=int, default=8, help="test mains (default 8)")
    ap.add_argument("--share", type=float, default=0.4,
                    help="fraction of the clusters each main uses (default 0.4)")
    ap.add_argument("--seed", type=int, default=1, help="corpus seed (default 1)")
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds (default 3)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel compiles (default 2)")
    ap.add_argument("--ninja-jobs", type=int, default=None,
                    help="ninja -j for the concurrent configurations (default: --mains, "
                         "every link at once)")
    ap.add_argument("--thinlto-jobs", type=int, default=None,
                    help="backends per link: --thinlto-jobs= for lld-inproc, "
                         "--dist-jobs= for ld.ulto (default: each tool's own)")
    ap.add_argument("--seq", choices=["once", "rounds", "off"], default="once",
                    help="the sequential reference ulto-seq: once before the rounds "
                         "(default), in every round, or not at all")
    ap.add_argument("--sample-ms", type=float, default=10.0,
                    help="interval of the /proc sampling of backend processes "
                         "(default 10)")
    ap.add_argument("--build", type=Path, default=BENCH_DIR / "out" / "concurrent-links",
                    help="work directory (default bench/out/concurrent-links)")
    ap.add_argument("--ulto-bin", type=Path, default=Path("/work/main/build/bin"),
                    help="ulto-clang++ (compiles everything), ld.ulto and ulto of "
                         "ulto-after and ulto-seq (default /work/main/build/bin)")
    ap.add_argument("--before-bin", type=Path, default=None,
                    help="ld.ulto and ulto of ulto-before (default: none, skipped)")
    ap.add_argument("--no-snapshot", action="store_true",
                    help="run the programs where they are, not copies made in "
                         "BUILD/tools-* at the start")
    ap.add_argument("--shared-slots", action="store_true",
                    help="let ulto dist use the machine's slot pool (shared with "
                         "anything else running ulto), not a private one per run")
    ap.add_argument("--keep-caches", action="store_true",
                    help="keep every run's cache under BUILD/caches")
    ap.add_argument("--self-test", action="store_true",
                    help="check the summary-line parser and exit")
    args = ap.parse_args(argv)
    if min(args.lib_units, args.cluster_size, args.mains, args.rounds, args.jobs) < 1:
        ap.error("--lib-units, --cluster-size, --mains, --rounds and --jobs must be "
                 "positive")
    if not 0 < args.share <= 1:
        ap.error("--share must be in (0, 1]")
    if args.sample_ms <= 0:
        ap.error("--sample-ms must be positive")
    if args.thinlto_jobs is not None and args.thinlto_jobs < 1:
        ap.error("--thinlto-jobs must be positive")
    args.ninja_jobs = args.ninja_jobs or args.mains
    args.ulto_bin = args.ulto_bin.resolve()
    args.before_bin = args.before_bin.resolve() if args.before_bin else None
    args.build = args.build.resolve()
    return args


def check_tools(args: argparse.Namespace) -> None:
    needed = [args.ulto_bin / "ulto-clang++", args.ulto_bin / "ld.ulto",
              args.ulto_bin / "ulto", LLVM_BIN / "clang++", LLVM_BIN / "ld.lld",
              LLVM_BIN / "llvm-ar", LLVM_BIN / "clang"]
    if args.before_bin:
        needed += [args.before_bin / "ld.ulto", args.before_bin / "ulto"]
    missing = [str(p) for p in needed if not os.access(p, os.X_OK)]
    if not shutil.which("ninja"):
        missing.append("ninja (apt-get install ninja-build)")
    if missing:
        raise LinkError("missing (or not executable):\n  " + "\n  ".join(missing))


def benchmark(args: argparse.Namespace) -> Tuple[dict, str]:
    check_tools(args)
    build = args.build
    for d in ("corpus", "obj", "lib", "runs", "caches", "runtime"):
        shutil.rmtree(build / d, ignore_errors=True)
    build.mkdir(parents=True, exist_ok=True)
    # The programs measured, copied first: others rebuild them at any time.
    after, before = ["ld.ulto", "ulto", "ulto-clang++"], ["ld.ulto", "ulto"]
    if args.no_snapshot:
        args.after_tools, args.before_tools = args.ulto_bin, args.before_bin
    else:
        args.after_tools = snapshot(args.ulto_bin, build / "tools-after", after)
        args.before_tools = (snapshot(args.before_bin, build / "tools-before", before)
                             if args.before_bin else None)
    sha = {str(args.ulto_bin / name): sha256(args.after_tools / name)
           for name in after}
    if args.before_bin:
        sha.update({str(args.before_bin / name): sha256(args.before_tools / name)
                    for name in before})
    library, expected = build_corpus(args)
    configs, skipped = make_configs(args)
    for note in skipped:
        print(f"NOTE: {note}", flush=True)

    with in_dir(build):
        run_rounds(configs, args, expected)

    seq = configs.get("ulto-seq")
    info = reuse(seq) if seq else None
    distinct = seq.runs[0]["executed"] if seq else None
    base = configs["lld-inproc"]
    rows = {name: summarise(c, base, distinct) for name, c in configs.items()}
    text = main_table(list(rows.values()), base.name)
    if info:
        text += "\n\n" + reuse_table(info)
    text += "\n\n" + "\n".join(notes(rows, configs, info, distinct, skipped))
    report = {"lib_units": args.lib_units, "library_modules": args.lib_units + 1,
              "cluster_size": args.cluster_size, "mains": args.mains,
              "share": args.share, "seed": args.seed, "rounds": args.rounds,
              "ninja_jobs": args.ninja_jobs, "thinlto_jobs": args.thinlto_jobs,
              "seq": args.seq, "sample_ms": args.sample_ms, "hardware_threads":
              os.cpu_count(), "sha256": sha, "snapshot": not args.no_snapshot,
              "private_slot_pool": not args.shared_slots,
              "ULTO_JOBS": os.environ.get("ULTO_JOBS"),
              "main_clusters": library.windows,
              "link_argv": {c.name: link_argv(c, 0, Path("caches") / f"{c.name}-rN",
                                              args.thinlto_jobs)
                            for c in configs.values()},
              "distinct_jobs": distinct, "reuse": info,
              "configs": list(rows.values())}
    return report, text


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    if args.self_test:
        return self_test()
    try:
        report, text = benchmark(args)
    except LinkError as e:
        print(f"ERROR: {e}", file=sys.stderr)
        return 1
    print()
    print(text)
    (args.build / f"{REPORT}.md").write_text(text + "\n")
    out = args.build / f"{REPORT}.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwrote {out} and {REPORT}.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
