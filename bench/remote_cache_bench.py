#!/usr/bin/env python3
"""Remote cache benchmark: a team's cache of ThinLTO backend objects, no farm.

Relinks the executables of dist_realcode.py's build of the LLVM test-suite
subset (real programs; ../shared/testsuite, built once with ulto-clang as
dist_realcode.py builds it) with ld.ulto --lto=distributed, every link with
an empty local cache of its own, in five configurations:

  none       no remote cache: every job runs here (the reference)
  grpc-cold  --dist-remote-cache=grpc://127.0.0.1:8980, the server empty:
             every job runs here and its object is uploaded (CI's link)
  grpc-warm  --dist-remote-cache-read-only, the same server after grpc-cold:
             every job's object comes from the server (a developer's link
             after CI's)
  http-cold, http-warm
             the same over Bazel's HTTP cache protocol
             (http://127.0.0.1:8981/ulto)

The server is Bazel's RemoteWorker as a cache only (no execution; its CAS on
disk, its HTTP cache in memory), a new one per round, started by
test/tools/ulto-dist/Inputs/with-remote-worker.sh in a loopback-only network
namespace; the links run inside the namespace, so each round is this script
again (--phase-round) under that script, which writes what it measured to a
JSON file. Each round's server first links --server-warmup executables
untimed, on actions of their own (another --dist-remote-platform), so that
its JIT is warm. Within a round the order of none and the two cold links
rotates from executable to executable; the warm links follow their cold
ones. The server's CPU during each link is read from /proc: on this machine
it shares the cores with the link, which a team's server does not.
Every link uses --no-dist-service and --dist-jobs=N; it is timed with
os.wait4 on clang's driver (wall, and CPU of it and every process it waited
for). ulto dist's summary line gives the jobs taken from the remote cache and
the bytes down and up.

Reported: per configuration, the total over the executables of each round's
wall and CPU, their minimum and median over the rounds, and the ratios
cold ÷ none (the cost of uploading: target at most 1.03) and warm ÷ cold
(what is left of a link whose jobs all come from the cache: target at most
0.15), taken within each round; bytes down and up per link. Every binary
must equal none's, byte for byte.
"""

import argparse
import filecmp
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional

from ultobench.errors import LinkError
from ultobench.measure import server_cpu, timed_run
from ultobench.snapshot import snapshot
from ultobench.tables import report_main
from ultobench.testsuite import (
    find_targets, parse_programs, PROGRAMS, set_link_environment, Target)
from ultobench.toolchain import BENCH_DIR, LLVM_BIN, WITH_REMOTE_WORKER
from ultobench.workdir import fresh_own_dir

URLS = {"grpc": "grpc://127.0.0.1:8980", "http": "http://127.0.0.1:8981/ulto"}
CONFIGS = ["none", "grpc-cold", "grpc-warm", "http-cold", "http-warm"]
RATIOS = [("grpc-cold", "none"), ("http-cold", "none"),
          ("grpc-warm", "grpc-cold"), ("http-warm", "http-cold")]

# "...; remote cache URL: 4 hits, 0 misses, ..., 0 uploaded; 10.2 KiB down, 0 B up)"
REMOTE = re.compile(r"remote cache \S+: (\d+) hits?, (\d+) miss(?:es)?,.*?; "
                    r"([\d.]+) (B|KiB|MiB) down, ([\d.]+) (B|KiB|MiB) up")
UNITS = {"B": 1, "KiB": 1024, "MiB": 1024 * 1024}


def link_options(config: str, args: argparse.Namespace, cache: Path,
                 platform: Optional[str]) -> List[str]:
    options = ["-fuse-ld=lld", f"--ld-path={args.link_bin / 'ld.ulto'}",
               "-Wl,--lto=distributed", f"-Wl,--dist-jobs={args.jobs}",
               "-Wl,--no-dist-service", f"-Wl,--dist-cache-dir={cache}"]
    if config == "none":
        return options
    protocol, kind = config.split("-")
    options.append(f"-Wl,--dist-remote-cache={URLS[protocol]}")
    if kind == "warm":
        options.append("-Wl,--dist-remote-cache-read-only")
    if platform:
        options.append(f"-Wl,--dist-remote-platform={platform}")
    return options


def phase_server_cpu(args: argparse.Namespace) -> float:
    """CPU s of the round's server so far (0 outside a round)."""
    return sum(server_cpu(args.phase_server)) if args.phase_server else 0.0


def link(target: Target, config: str, args: argparse.Namespace,
         platform: Optional[str] = None) -> dict:
    """One timed link with an empty local cache; its figures."""
    server_before = phase_server_cpu(args)
    out = args.relink_dir / config / target.name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    driver = LLVM_BIN / ("clang++" if target.argv[0].endswith("++") else "clang")
    with tempfile.TemporaryDirectory(dir=args.relink_dir) as cache:
        argv = [str(driver), *target.argv[1:]] + link_options(config, args, Path(cache),
                                                              platform)
        argv[argv.index("-o") + 1] = str(out)
        cpu, wall, stderr = timed_run(argv, f"link {target.short} [{config}]",
                                                 target.cwd)
    result = {"wall": wall, "cpu": cpu, "server_cpu": phase_server_cpu(args) - server_before,
              "hits": 0, "down": 0, "up": 0,
              "warnings": [line for line in stderr.splitlines() if "warning" in line]}
    if config != "none":
        m = REMOTE.search(stderr)
        if not m:
            raise LinkError(f"link {target.short} [{config}]: no remote cache figures in:\n"
                            f"{stderr}")
        result["hits"] = int(m.group(1))
        result["down"] = round(float(m.group(3)) * UNITS[m.group(4)])
        result["up"] = round(float(m.group(5)) * UNITS[m.group(6)])
    return result


def phase_round(args: argparse.Namespace) -> int:
    """Inside the server's namespace: one round, written to --phase-out."""
    targets = find_targets(args)
    # The server's JIT warms up on actions of their own (another platform).
    for target in targets[:args.server_warmup]:
        for config in ("grpc-cold", "http-cold"):
            link(target, config, args, platform="warm-up=1")
    measured: Dict[str, Dict[str, dict]] = {}
    for i, target in enumerate(targets):
        first = ["none", "grpc-cold", "http-cold"]
        shift = (i + args.phase_round) % len(first)
        order = first[shift:] + first[:shift] + ["grpc-warm", "http-warm"]
        measured[target.name] = {c: link(target, c, args) for c in order}
        for config in CONFIGS[1:]:
            same = filecmp.cmp(args.relink_dir / "none" / target.name,
                               args.relink_dir / config / target.name, shallow=False)
            measured[target.name][config]["same_as_none"] = same
    args.phase_out.write_text(json.dumps(measured))
    return 0


def run_round(r: int, args: argparse.Namespace) -> Dict[str, Dict[str, dict]]:
    server = args.relink_dir / f"server-{r}"
    shutil.rmtree(server, ignore_errors=True)
    out = args.relink_dir / f"round-{r}.json"
    env = dict(os.environ, ULTO_REMOTE_WORKER_EXECUTION="0",
               ULTO_REMOTE_WORKER_TIMEOUT="7200")
    argv = [str(WITH_REMOTE_WORKER), str(server), sys.executable, __file__,
            f"--phase-round={r}", f"--phase-out={out}", f"--build={args.build}",
            f"--programs={';'.join(args.programs)}", f"--jobs={args.jobs}",
            f"--link-bin={args.link_bin}", f"--relink-dir={args.relink_dir}",
            f"--phase-server={server}", f"--server-warmup={args.server_warmup}"]
    subprocess.run(argv, env=env, check=True)
    shutil.rmtree(server, ignore_errors=True)
    return json.loads(out.read_text())


def min_median(values: List[float]) -> dict:
    return {"min": min(values), "median": statistics.median(values), "rounds": values}


def totals_of(rounds: List[Dict[str, Dict[str, dict]]], names: List[str]) -> dict:
    """Per configuration and figure, the sum over \p names of each round."""
    return {c: {k: [sum(rnd[n][c][k] for n in names) for rnd in rounds]
                for k in ("wall", "cpu", "server_cpu", "hits", "down", "up")}
            for c in CONFIGS}


def ratios_of(totals: dict) -> dict:
    return {f"{a} / {b}": {k: min_median([x / y for x, y in
                                          zip(totals[a][k], totals[b][k])])
                           for k in ("wall", "cpu")} for a, b in RATIOS}


def summarise(rounds: List[Dict[str, Dict[str, dict]]], large_s: float) -> dict:
    """Per configuration, the totals of each round; the ratios within rounds,
    for every executable and for those whose link takes at least \p large_s
    without a remote cache (where the backends, not lld, take the time)."""
    names = list(rounds[0])
    large = [n for n in names
             if statistics.median(rnd[n]["none"]["wall"] for rnd in rounds) >= large_s]
    totals = totals_of(rounds, names)
    ratios = ratios_of(totals)
    different = sorted({f"{name} [{c}]" for rnd in rounds for name, links in rnd.items()
                        for c in CONFIGS[1:] if not links[c]["same_as_none"]})
    warnings = sorted({w for rnd in rounds for links in rnd.values()
                       for link_ in links.values() for w in link_["warnings"]})
    return {"totals": totals, "ratios": ratios, "different": different,
            "warnings": warnings, "large": large,
            "large_ratios": ratios_of(totals_of(rounds, large)) if large else {}}


def table(summary: dict, executables: int, jobs: int, large_s: float) -> str:
    rows = ["| configuration | wall s (min / median) | CPU s (min / median) | "
            "server CPU s (median) | jobs from the cache | MiB down | MiB up |",
            "|---|---:|---:|---:|---:|---:|---:|"]
    for c in CONFIGS:
        t = summary["totals"][c]
        rows.append(f"| {c} | {min(t['wall']):.2f} / {statistics.median(t['wall']):.2f} | "
                    f"{min(t['cpu']):.2f} / {statistics.median(t['cpu']):.2f} | "
                    f"{statistics.median(t['server_cpu']):.2f} | "
                    f"{statistics.median(t['hits']):.0f} of {jobs} | "
                    f"{statistics.median(t['down']) / 2**20:.2f} | "
                    f"{statistics.median(t['up']) / 2**20:.2f} |")
    rows += ["", "| ratio, within a round | wall (min / median) | CPU (min / median) |",
             "|---|---:|---:|"]
    for label, ratios in (("", summary["ratios"]),
                          (f" ({len(summary['large'])} links of {large_s:g} s or more)",
                           summary["large_ratios"])):
        for name, r in ratios.items():
            rows.append(f"| {name}{label} | {r['wall']['min']:.3f} / "
                        f"{r['wall']['median']:.3f} | {r['cpu']['min']:.3f} / "
                        f"{r['cpu']['median']:.3f} |")
    rows.append("")
    rows.append(f"- {executables} executables, {jobs} backend jobs per configuration "
                f"and round")
    rows.append("- binaries equal to none's: " +
                ("all" if not summary["different"] else
                 "NOT " + ", ".join(summary["different"])))
    rows += [f"- warning seen: {w}" for w in summary["warnings"]]
    return "\n".join(rows)


def benchmark(args: argparse.Namespace) -> tuple:
    args.link_bin = snapshot(args.ulto_bin, args.build / "tools-remote-cache",
                                              ["ld.ulto", "ulto"])
    targets = find_targets(args)
    if not targets:
        raise LinkError(f"no executables with bitcode in {args.build}: build them with "
                        f"dist_realcode.py first")
    fresh_own_dir(args.relink_dir, "--relink-dir", mine=True)
    set_link_environment(args)
    for target in targets:  # Warm-up: the page cache, untimed.
        link(target, "none", args)
    rounds = [run_round(r, args) for r in range(args.rounds)]
    summary = summarise(rounds, args.large_s)
    jobs = sum(t.modules for t in targets)
    report = {"date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "argv": sys.argv,
              "programs": args.programs, "jobs": args.jobs, "rounds": rounds,
              "summary": summary, "executables": len(targets), "backend_jobs": jobs}
    args.failed = bool(summary["different"])
    return report, table(summary, len(targets), jobs, args.large_s)


def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", default=";".join(PROGRAMS),
                    help="';'-separated MultiSource/Benchmarks subdirectories (default: "
                         "dist_realcode.py's 15)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=2, help="--dist-jobs= (default 2)")
    ap.add_argument("--build", type=Path, default=BENCH_DIR / "out-realcode",
                    help="dist_realcode.py's build of the programs")
    ap.add_argument("--relink-dir", type=Path, help="default BUILD/relink-remote-cache")
    ap.add_argument("--ulto-bin", type=Path, default=Path("/work/main/build/bin"))
    ap.add_argument("--link-bin", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--phase-round", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--phase-out", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--phase-server", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--large-s", type=float, default=1.0,
                    help="the ratios again for the links that take at least this long "
                         "without a remote cache (default 1.0 s)")
    ap.add_argument("--server-warmup", type=int, default=8,
                    help="executables linked untimed against each round's new server "
                         "first, on actions of their own, to warm its JIT (default 8)")
    args = ap.parse_args(argv)
    args.programs = parse_programs(args.programs)
    args.build = args.build.resolve()
    args.relink_dir = (args.relink_dir or args.build / "relink-remote-cache").resolve()
    args.shared_slots = False  # A private slot pool (set_link_environment).
    return args


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    if args.phase_round is not None:
        return phase_round(args)
    args.failed = False
    status = report_main(args, benchmark, "remote-cache.json")
    return 1 if status == 0 and args.failed else status


if __name__ == "__main__":
    sys.exit(main())
