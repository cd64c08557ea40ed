#!/usr/bin/env python3
"""Link-side benchmark: does ld.ulto link as fast as stock ld.lld-22?

Compiles a generated corpus (gen_corpus.py) once to unified bitcode with
ulto-clang++, packs about half the units into a bitcode archive, and links
the same inputs in four configurations through clang-22's driver:

  ulto-thin  ld.ulto    --lto=thin
  ulto-full  ld.ulto    --lto=full
  lld-thin   ld.lld-22  --lto=thin
  lld-full   ld.lld-22  --lto=full

The LTO work is the same; ld.ulto adds a scan of the link's inputs (archive
members included) that reads their summary flags before lld runs. Reported
per configuration: link CPU time (user+sys of the clang++ driver and the
linker it waits for, from os.wait4) and wall time, binary size, and ld.ulto's
ratios against ld.lld-22 in the same mode. Every linked binary is run and its
output compared with the corpus's expected_output.txt.

Like compile_bench.py, configurations are interleaved within each round with
a rotating order, and ratios are medians of per-round pairs.
"""

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ultobench.corpuslink import build_inputs, check_binary, Inputs
from ultobench.errors import CompileError, LinkError
from ultobench.jobs import Job
from ultobench.measure import count_instructions as count_job_instructions, timed_run
from ultobench.rounds import rotated
from ultobench.tables import report_main
from ultobench.toolchain import BENCH_DIR, LLVM_BIN, sha256

MODES = ("thin", "full")


@dataclass
class LinkConfig:
    name: str     # ulto-thin, ...
    linker: str   # "ld.ulto" or "ld.lld-22"
    mode: str     # thin | full
    path: Path    # the linker binary, given to clang++ as --ld-path
    output: Path
    cpu_rounds: List[float] = field(default_factory=list)
    wall_rounds: List[float] = field(default_factory=list)
    sizes: List[int] = field(default_factory=list)
    instructions: int = 0

    @property
    def label(self) -> str:
        return f"{self.linker} --lto={self.mode}"


# --- Linking -------------------------------------------------------------------------

def make_configs(ulto_bin: Path, prog_dir: Path) -> List[LinkConfig]:
    ulto = ulto_bin / "ld.ulto"
    if not os.access(ulto, os.X_OK):
        raise LinkError(f"{ulto} not found (or not executable)")
    prog_dir.mkdir(parents=True, exist_ok=True)
    linkers = [("ulto", "ld.ulto", ulto), ("lld", "ld.lld-22", LLVM_BIN / "ld.lld")]
    return [LinkConfig(f"{key}-{mode}", linker, mode, path, prog_dir / f"{key}-{mode}")
            for key, linker, path in linkers for mode in MODES]


def driver_argv(config: LinkConfig, inputs: Inputs, thinlto_jobs: int,
                extra: Tuple[str, ...] = ()) -> List[str]:
    """The link through clang-22's driver: crt files and libraries are added
    the same way whichever linker runs. The ThinLTO cache stays off (no
    --thinlto-cache-dir)."""
    return [str(LLVM_BIN / "clang++"), "-fuse-ld=lld", f"--ld-path={config.path}",
            "-O2", "-flto", f"-Wl,--lto={config.mode}",
            f"-Wl,--thinlto-jobs={thinlto_jobs}", *extra,
            *map(str, inputs.objects), str(inputs.archive), "-o", str(config.output)]


def linker_argv(config: LinkConfig, inputs: Inputs, thinlto_jobs: int,
                extra: Tuple[str, ...] = ()) -> List[str]:
    """The linker's own command line, as `clang++ -###` would run it."""
    driver = driver_argv(config, inputs, thinlto_jobs, extra)
    proc = subprocess.run([driver[0], "-###", *driver[1:]], capture_output=True, text=True)
    lines = [l for l in proc.stderr.splitlines()
             if l.startswith(' "') and str(config.path) in l.split('" ')[0]]
    if proc.returncode != 0 or len(lines) != 1:
        raise LinkError(f"cannot get the linker command from clang++ -###:\n{proc.stderr}")
    return shlex.split(lines[0])


def link_once(config: LinkConfig, inputs: Inputs, expected: str,
              thinlto_jobs: int) -> Tuple[float, float, int]:
    argv = driver_argv(config, inputs, thinlto_jobs)
    config.output.unlink(missing_ok=True)
    cpu, wall, _ = timed_run(argv, f"link with {config.label}")
    return cpu, wall, check_binary(config, expected, argv)


def run_rounds(configs: List[LinkConfig], inputs: Inputs, expected: str,
               reps: int, thinlto_jobs: int) -> None:
    for config in configs:  # untimed warm-up; fails fast on a broken link
        link_once(config, inputs, expected, thinlto_jobs)
    for r in range(reps):
        for config in rotated(configs, r):
            cpu, wall, size = link_once(config, inputs, expected, thinlto_jobs)
            config.cpu_rounds.append(cpu)
            config.wall_rounds.append(wall)
            config.sizes.append(size)
            print(f"  round {r + 1}/{reps} {config.name:9}: cpu {cpu:7.2f} s  "
                  f"wall {wall:7.2f} s  size {size}", flush=True)


# --- ld.ulto's own input scan ---------------------------------------------------------

def scan_argv(config: LinkConfig, inputs: Inputs) -> List[str]:
    """The linker's command line plus --version: ld.ulto still scans the inputs
    (it does so whenever --lto= is given), then lld prints its version and
    returns before reading any input. ld.lld with the same line is the
    baseline: process start-up and option parsing only."""
    return linker_argv(config, inputs, 1) + ["--version"]


def measure_scan(configs: List[LinkConfig], inputs: Inputs, reps: int) -> Dict[str, dict]:
    """Per mode: CPU s of `ld.ulto <link> --version` minus `ld.lld <link>
    --version`, median of paired differences over reps rounds."""
    result = {}
    for mode in MODES:
        pair = [c for c in configs if c.mode == mode]
        argvs = {c.name: scan_argv(c, inputs) for c in pair}
        samples: Dict[str, List[float]] = {c.name: [] for c in pair}
        for r in range(reps + 1):
            for c in (pair if r % 2 else pair[::-1]):
                cpu, _, _ = timed_run(argvs[c.name], f"{c.label} --version")
                if r:  # round 0 warms up
                    samples[c.name].append(cpu)
        ulto, lld = (samples[c.name] for c in pair)
        result[mode] = {"reps": reps,
                        "ulto_cpu_s": statistics.median(ulto),
                        "lld_cpu_s": statistics.median(lld),
                        "scan_cpu_s": statistics.median(u - l for u, l in zip(ulto, lld)),
                        "argv_ulto": argvs[pair[0].name]}
    return result


# --- Instruction counts ---------------------------------------------------------------

def count_instructions(configs: List[LinkConfig], inputs: Inputs, expected: str,
                       parallel: int) -> Dict[str, int]:
    """One link per configuration under callgrind, linker run directly (not
    through clang++, whose driver callgrind would measure instead). lld runs
    ThinLTO backends and its own parallel passes on threads; with
    --thinlto-jobs=1 and --threads=1 the count does not depend on scheduling.
    Also counts the --version scan runs (see measure_scan)."""
    jobs = []
    for config in configs:
        argv = linker_argv(config, inputs, 1, ("-Wl,--threads=1",))
        jobs.append(Job(argv, config.output, f"link with {config.label}"))
        jobs.append(Job(scan_argv(config, inputs), config.output,
                                      f"{config.label} --version"))
    for config in configs:
        config.output.unlink(missing_ok=True)
    try:
        with ThreadPoolExecutor(parallel) as pool:
            counts = list(pool.map(lambda j: count_job_instructions([j], 1), jobs))
    except CompileError as e:
        raise LinkError(str(e)) from e
    result = {}
    for i, config in enumerate(configs):
        config.instructions = counts[2 * i]
        check_binary(config, expected, jobs[2 * i].argv)
        result[f"{config.name} --version"] = counts[2 * i + 1]
        print(f"  instructions {config.name}: {config.instructions:,} "
              f"(--version scan run: {counts[2 * i + 1]:,})", flush=True)
    return result


# --- Report ---------------------------------------------------------------------------

def summarise(config: LinkConfig, ref: LinkConfig) -> dict:
    """One configuration's row; ratios are against ld.lld-22 in the same mode,
    median of per-round pairs."""
    cpu_ratios = [a / b for a, b in zip(config.cpu_rounds, ref.cpu_rounds)]
    wall_ratios = [a / b for a, b in zip(config.wall_rounds, ref.wall_rounds)]
    return {
        "config": config.name, "label": config.label, "linker": str(config.path),
        "cpu_s_rounds": config.cpu_rounds, "wall_s_rounds": config.wall_rounds,
        "cpu_s": statistics.median(config.cpu_rounds),
        "wall_s": statistics.median(config.wall_rounds),
        "cpu_ratio_vs_lld": statistics.median(cpu_ratios),
        "wall_ratio_vs_lld": statistics.median(wall_ratios),
        "cpu_ratio_rounds": cpu_ratios, "wall_ratio_rounds": wall_ratios,
        "binary_bytes": config.sizes[-1],
        "binary_bytes_stable": len(set(config.sizes)) == 1,
        "size_ratio_vs_lld": config.sizes[-1] / ref.sizes[-1],
        "instructions": config.instructions or None,
        "instructions_ratio_vs_lld": (config.instructions / ref.instructions
                                      if config.instructions else None),
    }


def markdown_table(rows: List[dict]) -> str:
    lines = ["| config | CPU s | wall s | CPU ratio vs ld.lld | wall ratio vs ld.lld "
             "| binary bytes | size ratio vs ld.lld | instructions ratio vs ld.lld |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        instr = ("n/a" if r["instructions_ratio_vs_lld"] is None
                 else f"{r['instructions_ratio_vs_lld']:.4f}")
        lines.append(f"| {r['label']} | {r['cpu_s']:.2f} | {r['wall_s']:.2f} "
                     f"| {r['cpu_ratio_vs_lld']:.3f} | {r['wall_ratio_vs_lld']:.3f} "
                     f"| {r['binary_bytes']:,} | {r['size_ratio_vs_lld']:.4f} | {instr} |")
    return "\n".join(lines)


def scan_table(scan: Dict[str, dict], instr: Optional[Dict[str, int]]) -> str:
    lines = ["| mode | `ld.ulto … --version` CPU ms | `ld.lld … --version` CPU ms "
             "| scan CPU ms (paired median) | scan instructions |",
             "|---|---:|---:|---:|---:|"]
    for mode, s in scan.items():
        diff = "n/a"
        if instr:
            diff = f"{instr[f'ulto-{mode} --version'] - instr[f'lld-{mode} --version']:,}"
        lines.append(f"| {mode} | {s['ulto_cpu_s'] * 1e3:.1f} | {s['lld_cpu_s'] * 1e3:.1f} "
                     f"| {s['scan_cpu_s'] * 1e3:.1f} | {diff} |")
    return "\n".join(lines)


# --- Driver ---------------------------------------------------------------------------

def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--units", type=int, default=300, help="generated units (default 300)")
    ap.add_argument("--seed", type=int, default=1, help="corpus seed (default 1)")
    ap.add_argument("--reps", type=int, default=5, help="timed rounds (default 5)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="parallel compiles and callgrind runs (default 2)")
    ap.add_argument("--thinlto-jobs", type=int, default=2,
                    help="--thinlto-jobs= for the timed links (default 2)")
    ap.add_argument("--build", type=Path, default=BENCH_DIR / "out-link",
                    help="work directory for corpus, objects, binaries and link.json "
                         "(default bench/out-link)")
    ap.add_argument("--ulto-bin", type=Path, default=Path("/work/main/build/bin"),
                    help="directory holding ulto-clang++ and ld.ulto "
                         "(default /work/main/build/bin)")
    ap.add_argument("--instructions", action="store_true",
                    help="also link once per configuration under callgrind with "
                         "--thinlto-jobs=1 --threads=1 (slow; noise-free)")
    args = ap.parse_args(argv)
    if min(args.units, args.reps, args.jobs, args.thinlto_jobs) < 1:
        ap.error("--units, --reps, --jobs and --thinlto-jobs must be positive")
    return args


def benchmark(args: argparse.Namespace) -> Tuple[dict, str]:
    build = args.build.resolve()
    corpus_dir, obj_dir, prog_dir = build / "corpus", build / "obj", build / "bin"
    for d in (corpus_dir, obj_dir, prog_dir):
        shutil.rmtree(d, ignore_errors=True)
    build.mkdir(parents=True, exist_ok=True)
    if build == (BENCH_DIR / "out-link").resolve():
        (build / ".gitignore").write_text("*\n")  # the default work dir ignores itself
    configs = make_configs(args.ulto_bin, prog_dir)
    inputs = build_inputs(args, corpus_dir, obj_dir)
    expected = (corpus_dir / "expected_output.txt").read_text()

    run_rounds(configs, inputs, expected, args.reps, args.thinlto_jobs)
    print("timing ld.ulto's input scan (link line + --version)", flush=True)
    scan = measure_scan(configs, inputs, max(10, 2 * args.reps))
    instr = None
    if args.instructions:
        start = time.perf_counter()
        instr = count_instructions(configs, inputs, expected, args.jobs)
        print(f"  callgrind took {time.perf_counter() - start:.0f} s", flush=True)

    by_name = {c.name: c for c in configs}
    rows = [summarise(c, by_name[f"lld-{c.mode}"]) for c in configs]
    report = {"units": args.units, "seed": args.seed, "reps": args.reps,
              "jobs": args.jobs, "thinlto_jobs": args.thinlto_jobs,
              "objects": len(inputs.objects), "archive_members": len(inputs.members),
              "linker_sha256": {c.linker: sha256(c.path) for c in configs},
              "link_argv": {c.name: driver_argv(c, inputs, args.thinlto_jobs)
                            for c in configs},
              "configs": rows, "scan": scan, "scan_instructions": instr}
    text = markdown_table(rows) + "\n\n" + scan_table(scan, instr)
    return report, text


def main(argv: Optional[List[str]] = None) -> int:
    return report_main(parse_args(argv), benchmark, "link.json")


if __name__ == "__main__":
    sys.exit(main())
