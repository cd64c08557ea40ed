#!/usr/bin/env python3
"""What does ulto's Full LTO pre-link cost, and what does it buy, on real programs?

Builds programs of the LLVM test-suite subset in ../shared/testsuite (see
/work/shared/REALCODE.md) out of tree with CMake + Ninja, once per compile
configuration, each in its own build directory (--out/build-<config>):

  A   clang-22    -O2 -flto=thin                   classic ThinLTO bitcode
  A2  clang-22    -O2 -flto=full                   classic regular LTO bitcode
  B   clang-22    -O2 -flto=thin -funified-lto     stock unified LTO: THE REFERENCE
  C   ulto-clang  -O2 -flto=thin -funified-lto -funified-lto-pipeline=full
                                                   ulto with the Full LTO pre-link
                                                   (the default until 2026-11-24)
  D   ulto-clang  -O2 -flto=thin -funified-lto -funified-lto-pipeline=thin
                                                   ulto with the ThinLTO pre-link
                                                   (the default since)
  E   ulto-clang  C's flags and -fno-unroll-loops -fno-vectorize
                  -fno-slp-vectorize       a rejected experiment: the Full LTO
                                           pre-link without the loop
                                           transformations the backends run
                                           again (not a default run)

(ulto-clang/ulto-clang++ come from --ulto-bin, by default <repo>/ulto-bin: a
copy of build/bin, so that a rebuild of the build directory during a run
cannot change the compiler.) Build type Release with
CMAKE_{C,CXX}_FLAGS_RELEASE=-DNDEBUG (as dist_realcode.py: the suite's -O3
would otherwise follow -O2). The first `ninja -k 0` per build is untimed: it
warms the caches, creates the programs' data links and the suite's tools.

Then every executable's object files are compiled again and linked, in
--rounds rounds, and every linked program is run. The compile commands are
ninja's (`ninja -t compdb`), run in the build directory, --jobs at a time;
the link command is ninja's too (find_targets), relinked with
clang-22's driver and stock ld.lld-22 (for every configuration, so that only
the bitcode differs; a ulto-only `-funified-lto-pipeline=` on the link line is
dropped, it has no effect on a link) into --out/relink/<binary>/:

  <config>-thin   ... -fuse-ld=lld --ld-path=ld.lld-22 -Wl,--lto=thin -Wl,--thinlto-jobs=N
  <config>-full   ... -fuse-ld=lld --ld-path=ld.lld-22 -Wl,--lto=full -Wl,--thinlto-jobs=N

A is linked thin only and A2 full only, both without --lto= (classic
bitcode: any --lto= puts ld.lld in unified LTO mode, which refuses it; A's
ThinLTO bitcode is linked by ThinLTO, A2's regular LTO bitcode by full LTO),
so the binaries are A-thin, A2-full, B-thin, B-full, C-thin, C-full, D-thin,
D-full. B-thin is the reference of every -thin binary, B-full of every -full
one.

Each program runs with the arguments, input and working directory of its
generated `.test` file (RUN line), under the suite's tools/timeit-target the
way lit's timeit module runs it in "traditional output" mode (stdout and
stderr into one file, then `exit <status>` appended; the resource limits lit
sets), and every run is checked with the `.test` file's VERIFY lines
(tools/fpcmp-target with the suite's tolerances, HashProgramOutput.sh where
the suite hashes): a run that does not verify is a FAIL. The tools are B's
build's (timeit-target, fpcmp-target, HashProgramOutput.sh) for every
configuration.

Rounds: each round compiles (per executable, every configuration, the
order rotating from round to round), links (per executable, every binary,
rotating) and runs (per executable, --runs times, each time every binary,
rotating). Ratios against B are taken within a round, then their minimum and
median over rounds are reported.

Columns (medians over rounds unless said otherwise):
  compile CPU s   user+sys of the compiler processes (os.wait4) of the
                  executable's translation units (TUs); TOTAL sums all
  link CPU/wall s the relink through the driver (and ld.lld, its ThinLTO
                  threads) by os.wait4
  text+data       llvm-size (Berkeley) text + data of the linked binary
                  (text includes read-only data and EH frames)
  run s           user+sys CPU of the program (timeit's summary), minimum over
                  --runs runs in a round. Linux makes user+sys exact (sum of
                  scheduled time), the split between them is sampled, so
                  their sum, not the suite's `user` alone, is used
  ÷ B             this value / B's (same link mode) in the same round;
                  "min / med" over rounds, per-executable cells give the median
  run ÷ B geomean geometric mean over executables of the run-time ratio, per
                  round, then min / med over rounds; executables whose B run
                  takes less than --min-run-s, or that failed somewhere, are
                  left out (listed)
  instructions    with --instructions N: the N largest TUs (source bytes) are
                  compiled once more per configuration under valgrind
                  (--valgrind-tool: cachegrind --cache-sim=no, or callgrind);
                  instructions executed, and their ratio to B (same TUs).
                  Independent of machine load.

Notes under the tables list failures (PROBLEM: compile, link, run or verify,
with the command and its output; the run goes on without that executable in
that configuration or binary, and the script exits 1), executables left out
of the geometric means, and which binaries are byte-identical (same SHA-256
in every round) for how many executables.

Prints markdown tables and writes every raw figure to --out/realcode_compile.json.
"""

import argparse
import json
import os
import shlex
import shutil
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Dict, List, Optional, Tuple

from ultobench.errors import CompileError, LinkError
from ultobench.jobs import Job, run_jobs
from ultobench.measure import (
    count_instructions as count_job_instructions, machine_cpu, own_cpu, timed_run,
    VALGRIND_TOOLS)
from ultobench.rounds import geomean, median_of, ratio_stats, rotated
from ultobench.tables import fmt, fmt_ratio, report_main, table
from ultobench.testsuite import (
    add_programs_option, add_testsuite_option, build_settings, configure_and_build, Exe, fail,
    find_targets, llvm_size, ninja_out, parse_test, programs_of, relink_path, run_exe)
from ultobench.toolchain import BENCH_DIR, LLVM_BIN, sha256
from ultobench.workdir import in_dir

REPO = BENCH_DIR.parent
REPORT = "realcode_compile.json"
REF = "B"


@dataclass(frozen=True)
class Spec:
    """A compile configuration."""
    name: str
    ulto: bool            # ulto-clang rather than clang-22
    flags: str
    modes: Tuple[str, ...]  # how its bitcode is linked

    @property
    def unified(self) -> bool:
        return "-funified-lto" in self.flags.split()

    def label(self) -> str:
        return f"{'ulto-clang' if self.ulto else 'clang-22'} {self.flags}"


SPECS = [
    Spec("A", False, "-O2 -flto=thin", ("thin",)),
    Spec("A2", False, "-O2 -flto=full", ("full",)),
    Spec("B", False, "-O2 -flto=thin -funified-lto", ("thin", "full")),
    # The pipelines are named: the default changed (ThinLTO from 2026-11-24,
    # on these measurements; the Full LTO one again since 2026-11-27).
    Spec("C", True, "-O2 -flto=thin -funified-lto -funified-lto-pipeline=full",
         ("thin", "full")),
    Spec("D", True, "-O2 -flto=thin -funified-lto -funified-lto-pipeline=thin",
         ("thin", "full")),
    # An experiment of issue 17, rejected: the Full LTO pre-link without the
    # loop transformations the ThinLTO backends and the full-LTO link run
    # again.
    Spec("E", True, "-O2 -flto=thin -funified-lto -funified-lto-pipeline=full "
         "-fno-unroll-loops -fno-vectorize -fno-slp-vectorize", ("thin", "full")),
]
SPEC = {s.name: s for s in SPECS}


def ref_of(binary: str) -> str:
    """The reference binary of a binary: B linked the same way."""
    return f"{REF}-{binary.split('-', 1)[1]}"


# --- Builds --------------------------------------------------------------------------------

def build_dir(args: argparse.Namespace, config: str) -> Path:
    return args.out / f"build-{config}"


def compilers(spec: Spec, args: argparse.Namespace) -> Tuple[Path, Path]:
    if spec.ulto:
        return args.ulto_bin / "ulto-clang", args.ulto_bin / "ulto-clang++"
    return LLVM_BIN / "clang", LLVM_BIN / "clang++"


def settings_of(spec: Spec, args: argparse.Namespace) -> Dict[str, str]:
    """dist_realcode's build settings with this configuration's compilers and flags."""
    settings = build_settings(args)
    cc, cxx = compilers(spec, args)
    settings.update(CMAKE_C_COMPILER=str(cc), CMAKE_CXX_COMPILER=str(cxx),
                    CMAKE_C_FLAGS=spec.flags, CMAKE_CXX_FLAGS=spec.flags)
    return settings


def build_all(args: argparse.Namespace) -> Dict[str, dict]:
    info = {}
    for config in args.configs:
        ns = SimpleNamespace(build=build_dir(args, config), testsuite=args.testsuite,
                             programs=args.programs, build_jobs=args.jobs,
                             ulto_bin=args.ulto_bin)
        print(f"[{config}] {SPEC[config].label()}: build in {ns.build}", flush=True)
        info[config] = configure_and_build(
            ns, settings_of(SPEC[config], args), keep_going=True)
    return info


def compile_commands(build: Path) -> Dict[str, dict]:
    """ninja's compilation database by output (relative to the build)."""
    text = ninja_out(build, "compdb")
    entries = {}
    for entry in json.loads(text):
        out = entry.get("output")
        if out:
            entries[out] = entry
    return entries


def collect(args: argparse.Namespace) -> List[Exe]:
    """Every executable of the reference build, with each configuration's
    link command, compile jobs and .test file."""
    exes: Dict[str, Exe] = {}
    for config in [REF] + [c for c in args.configs if c != REF]:
        build = build_dir(args, config)
        ns = SimpleNamespace(build=build, programs=args.programs)
        targets = {t.name: t for t in find_targets(ns)}
        compdb = compile_commands(build)
        if config == REF:
            for t in targets.values():
                exes[t.name] = Exe(t.name, t.program)
        for exe in exes.values():
            target = targets.get(exe.name)
            if target is None or not (build / exe.name).is_file():
                exe.failed[config] = (f"not built by the first build of {config} "
                                      f"(see {build / 'realcode-build.log'})")
                continue
            exe.link[config] = target
            out_at = target.argv.index("-o") + 1
            objects = [a for i, a in enumerate(target.argv[1:], 1)
                       if i != out_at and not a.startswith("-") and a in compdb]
            jobs, sources = [], []
            for obj in objects:
                entry = compdb[obj]
                cwd = Path(entry["directory"])
                if cwd.resolve() != build.resolve():
                    raise LinkError(f"{obj}: compiled in {cwd}, not in {build}")
                source = Path(entry["file"])
                if not source.is_absolute():
                    source = cwd / source
                try:
                    short = str(source.resolve().relative_to(args.testsuite))
                except ValueError:
                    short = str(source)
                jobs.append(Job(shlex.split(entry["command"]), build / obj, short))
                sources.append((short, source.stat().st_size))
            if not jobs:
                exe.failed[config] = "no compile command found for its objects"
                continue
            exe.jobs[config] = jobs
            if config == REF:
                exe.sources = sources
            try:
                exe.test[config] = parse_test(build / (exe.name + ".test"), exe.name)
            except (LinkError, OSError) as e:
                exe.failed[config] = f"no usable .test file: {e}"
    return list(exes.values())


# --- Compile, link, run --------------------------------------------------------------------

def binaries(args: argparse.Namespace) -> List[str]:
    return [f"{c}-{m}" for c in args.configs for m in SPEC[c].modes if m in args.modes]


def relink_argv(args: argparse.Namespace, binary: str, exe: Exe) -> List[str]:
    """The build's link command through clang-22's driver and ld.lld-22."""
    config, mode = binary.split("-", 1)
    target = exe.link[config]
    driver = LLVM_BIN / ("clang++" if target.argv[0].endswith("++") else "clang")
    argv = [str(driver)] + [a for a in target.argv[1:]
                            if not a.startswith("-funified-lto-pipeline=")]
    argv[argv.index("-o") + 1] = str(relink_path(args, binary, exe))
    argv += ["-fuse-ld=lld", f"--ld-path={LLVM_BIN / 'ld.lld'}"]
    # Any --lto= puts lld in unified LTO mode, which refuses classic bitcode
    # ("unified LTO compilation must use compatible bitcode modules").
    if SPEC[config].unified:
        argv.append(f"-Wl,--lto={mode}")
    return argv + [f"-Wl,--thinlto-jobs={args.thinlto_jobs}"]


def compile_exe(exe: Exe, config: str, args: argparse.Namespace, r: int) -> None:
    try:
        with in_dir(build_dir(args, config)):
            cpu, wall = run_jobs(exe.jobs[config], args.jobs)
        exe.compile_cpu[config][r] = sum(cpu)
        exe.compile_wall[config][r] = wall
    except CompileError as e:
        fail(exe, config, f"round {r + 1}: {e}")


def link_exe(exe: Exe, binary: str, args: argparse.Namespace, r: int) -> None:
    argv = relink_argv(args, binary, exe)
    out = relink_path(args, binary, exe)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    try:
        cpu, wall, _ = timed_run(argv, f"link {exe.short} [{binary}]",
                                            exe.link[binary.split("-")[0]].cwd)
        if not out.is_file() or out.stat().st_size == 0:
            raise LinkError(f"link {exe.short} [{binary}] exited 0 but wrote no "
                            f"binary:\n  {shlex.join(argv)}")
        exe.size.setdefault(binary, []).append(
            {**llvm_size(out), "sha256": sha256(out)})
    except LinkError as e:
        fail(exe, binary, f"round {r + 1}: {e}")
        return
    exe.link_cpu[binary][r] = cpu
    exe.link_wall[binary][r] = wall


def alive(exe: Exe, binary: str) -> bool:
    return binary not in exe.failed and binary.split("-")[0] not in exe.failed


def run_rounds(exes: List[Exe], args: argparse.Namespace) -> dict:
    bins = binaries(args)
    rounds = args.rounds
    for exe in exes:
        for c in args.configs:
            exe.compile_cpu[c] = [None] * rounds
            exe.compile_wall[c] = [None] * rounds
        for b in bins:
            exe.link_cpu[b] = [None] * rounds
            exe.link_wall[b] = [None] * rounds
            exe.runs[b] = [[] for _ in range(rounds)]
    phases = []
    for r in range(rounds):
        machine, ours = machine_cpu(), own_cpu()
        spent = {}
        start = time.perf_counter()
        print(f"round {r + 1}/{rounds}: compile", flush=True)
        for exe in exes:
            for config in rotated(args.configs, r):
                if config not in exe.failed:
                    compile_exe(exe, config, args, r)
        spent["compile"] = time.perf_counter() - start
        start = time.perf_counter()
        print(f"round {r + 1}/{rounds}: link", flush=True)
        for exe in exes:
            for binary in rotated(bins, r):
                if alive(exe, binary):
                    link_exe(exe, binary, args, r)
        spent["link"] = time.perf_counter() - start
        start = time.perf_counter()
        print(f"round {r + 1}/{rounds}: run", flush=True)
        for exe in exes:
            for k in range(args.runs):
                for binary in rotated(bins, r + k):
                    if alive(exe, binary):
                        run_exe(exe, binary, args, r, k)
            print(f"  {exe.short:44} " + " ".join(
                f"{b} {best_run(exe, b, r):.3f}" if best_run(exe, b, r) is not None
                else f"{b} FAIL" for b in bins), flush=True)
        spent["run"] = time.perf_counter() - start
        others = (machine_cpu() - machine) - (own_cpu() - ours)
        spent["others_cpu"] = max(others, 0.0)
        phases.append(spent)
        print(f"  round {r + 1}: compile {spent['compile']:.0f} s, link {spent['link']:.0f} s, "
              f"run {spent['run']:.0f} s; others' CPU on the machine {spent['others_cpu']:.1f} s",
              flush=True)
    return {"rounds": phases}


def best_run(exe: Exe, binary: str, r: int) -> Optional[float]:
    """Minimum run CPU over the round's runs, if every run verified."""
    runs = exe.runs.get(binary, [[]] * (r + 1))[r]
    if not runs or not all(x["verified"] for x in runs) or not alive(exe, binary):
        return None
    return min(x["cpu"] for x in runs)


# --- Instruction counts --------------------------------------------------------------------

def count_instructions(exes: List[Exe], args: argparse.Namespace) -> dict:
    """The N largest TUs (by source bytes) compiled once per configuration
    under valgrind (count_job_instructions)."""
    tus = []  # (bytes, exe, index)
    for exe in exes:
        if all(c in exe.jobs and c not in exe.failed for c in args.configs):
            tus += [(size, exe, i) for i, (_, size) in enumerate(exe.sources)]
    tus.sort(key=lambda t: (-t[0], t[1].name, t[2]))
    tus = tus[:args.instructions]
    print(f"instructions: {len(tus)} TUs under {args.valgrind_tool}, {len(args.configs)} "
          f"configurations", flush=True)
    counts: Dict[str, List[int]] = {}
    for config in args.configs:
        jobs = [exe.jobs[config][i] for _, exe, i in tus]
        with in_dir(build_dir(args, config)), \
                ThreadPoolExecutor(args.jobs) as pool:
            counts[config] = list(pool.map(
                lambda job: count_job_instructions([job], 1, args.valgrind_tool),
                jobs))
        print(f"  {config}: {sum(counts[config]):,}", flush=True)
    return {"tool": args.valgrind_tool,
            "tus": [{"source": exe.sources[i][0], "bytes": size, "executable": exe.short,
                     "instructions": {c: counts[c][n] for c in args.configs}}
                    for n, (size, exe, i) in enumerate(tus)],
            "total": {c: sum(counts[c]) for c in args.configs}}


# --- Report ------------------------------------------------------------------------------------


def cell(value: Optional[float], r: Optional[dict], spec: str = ".2f") -> str:
    """A per-executable cell: the value and, if any, its median ratio to B."""
    if value is None:
        return "FAIL"
    return fmt(value, spec) + ("" if r is None else f" ({r['median']:.3f})")


def exe_row(exe: Exe, args: argparse.Namespace) -> dict:
    """Every per-executable figure and ratio the tables and the JSON need."""
    bins = binaries(args)
    row = {"compile_cpu_s": {}, "compile_ratio": {}, "link_cpu_s": {}, "link_wall_s": {},
           "link_ratio": {}, "text_data": {}, "size_ratio": {}, "run_s_rounds": {},
           "run_s": {}, "run_ratio": {}}
    for c in args.configs:
        cpu = exe.compile_cpu[c] if c not in exe.failed else [None] * args.rounds
        row["compile_cpu_s"][c] = median_of(cpu)
        if c != REF and REF not in exe.failed:
            row["compile_ratio"][c] = ratio_stats(cpu, exe.compile_cpu[REF])
    for b in bins:
        ok = alive(exe, b)
        ref_ok = alive(exe, ref_of(b))
        lcpu = exe.link_cpu[b] if ok else [None] * args.rounds
        row["link_cpu_s"][b] = median_of(lcpu)
        row["link_wall_s"][b] = median_of(exe.link_wall[b] if ok else [None])
        sizes = exe.size.get(b, [])
        row["text_data"][b] = sizes[-1]["text_data"] if sizes and ok else None
        runs = [best_run(exe, b, r) for r in range(args.rounds)]
        row["run_s_rounds"][b] = runs
        row["run_s"][b] = median_of(runs)
        if b != ref_of(b) and ref_ok:
            row["link_ratio"][b] = ratio_stats(lcpu, exe.link_cpu[ref_of(b)])
            ref_size = row["text_data"].get(ref_of(b))
            if ref_size is None and exe.size.get(ref_of(b)):
                ref_size = exe.size[ref_of(b)][-1]["text_data"]
            if row["text_data"][b] is not None and ref_size:
                row["size_ratio"][b] = row["text_data"][b] / ref_size
            row["run_ratio"][b] = ratio_stats(
                runs, [best_run(exe, ref_of(b), r) for r in range(args.rounds)])
    return row


def complete(exe: Exe, keys: List[str]) -> bool:
    return all(k not in exe.failed and k.split("-")[0] not in exe.failed for k in keys)


def summary(exes: List[Exe], rows: Dict[str, dict], args: argparse.Namespace,
            instr: Optional[dict]) -> Tuple[dict, List[str]]:
    """TOTAL figures: compile and link summed per round over the executables
    that succeeded in every configuration; sizes summed; run-time ratios as a
    geometric mean per round."""
    bins = binaries(args)
    notes = []
    whole = [e for e in exes if complete(e, args.configs + bins)]
    if len(whole) < len(exes):
        notes.append(f"- TOTAL rows sum the {len(whole)} of {len(exes)} executables that "
                     f"compiled, linked and verified in every configuration")
    R = range(args.rounds)
    total = {"executables": [e.short for e in whole], "compile": {}, "link": {}, "size": {},
             "run": {}}
    for c in args.configs:
        cpu = [sum(e.compile_cpu[c][r] for e in whole) if whole else None for r in R]
        wall = [sum(e.compile_wall[c][r] for e in whole) if whole else None for r in R]
        total["compile"][c] = {"cpu_s_rounds": cpu, "wall_s_rounds": wall,
                               "tus": sum(len(e.jobs[c]) for e in whole)}
    for c in args.configs:
        t = total["compile"][c]
        t["ratio"] = ratio_stats(t["cpu_s_rounds"], total["compile"][REF]["cpu_s_rounds"]) \
            if c != REF else None
        if instr:
            t["instructions"] = instr["total"][c]
            t["instructions_ratio"] = instr["total"][c] / instr["total"][REF]
    short = {}
    for b in bins:
        cpu = [sum(e.link_cpu[b][r] for e in whole) if whole else None for r in R]
        wall = [sum(e.link_wall[b][r] for e in whole) if whole else None for r in R]
        total["link"][b] = {"cpu_s_rounds": cpu, "wall_s_rounds": wall}
        total["size"][b] = sum(rows[e.short]["text_data"][b] for e in whole)
    for b in bins:
        lt = total["link"][b]
        lt["ratio"] = ratio_stats(lt["cpu_s_rounds"], total["link"][ref_of(b)]["cpu_s_rounds"]) \
            if b != ref_of(b) else None
        total["size"][b + "_ratio"] = (total["size"][b] / total["size"][ref_of(b)]
                                       if total["size"][ref_of(b)] else None)
        # Run time: geometric mean over executables of the per-round ratio.
        per_round, used = [], set()
        for r in R:
            ratios = []
            for e in exes:
                a, ref = best_run(e, b, r), best_run(e, ref_of(b), r)
                if a is None or ref is None:
                    continue
                if ref < args.min_run_s:
                    short.setdefault(e.short, ref)
                    continue
                ratios.append(a / ref)
                used.add(e.short)
            per_round.append(geomean(ratios) if ratios else None)
        present = [x for x in per_round if x is not None]
        total["run"][b] = {
            "geomean_rounds": per_round, "executables": sorted(used),
            "geomean": ({"min": min(present), "median": statistics.median(present)}
                        if present else None),
            "run_s_total": median_of([sum(best_run(e, b, r) for e in whole) if whole else None
                                      for r in R])}
    if short:
        notes.append(f"- left out of the run-time geometric means (B's run under "
                     f"{args.min_run_s} s): " + ", ".join(f"{k} ({v:.3f} s)"
                                                          for k, v in sorted(short.items())))
    return total, notes


def identity_notes(exes: List[Exe], args: argparse.Namespace) -> List[str]:
    """Per link mode, which binaries are byte-identical (in every round) for
    how many executables: identical binaries share code and layout, so their
    run-time ratio is pure measurement noise."""
    bins = binaries(args)
    notes = []
    for mode in args.modes:
        found = []
        of_mode = [b for b in bins if b.endswith("-" + mode)]
        for i, a in enumerate(of_mode):
            for b in of_mode[i + 1:]:
                pairs = [e for e in exes if alive(e, a) and alive(e, b) and e.size.get(a)
                         and len(e.size[a]) == len(e.size.get(b, []))]
                same = sum(1 for e in pairs if all(x["sha256"] == y["sha256"]
                                                   for x, y in zip(e.size[a], e.size[b])))
                found.append(f"{a} = {b} {same}/{len(pairs)}")
        if found:
            notes.append(f"- byte-identical {mode} binaries (executables, every round): "
                         + ", ".join(found))
    return notes


def report_text(exes: List[Exe], rows: Dict[str, dict], total: dict, args: argparse.Namespace,
                instr: Optional[dict]) -> str:
    bins = binaries(args)
    out = ["## Compile (per configuration)", ""]
    head = ["config", "compiler and flags", "TUs", "compile CPU s", "÷ B min / med",
            "compile wall s"]
    if instr:
        head += [f"instructions ({len(instr['tus'])} largest TUs)", "÷ B"]
    body = []
    for c in args.configs:
        t = total["compile"][c]
        row = [c, f"`{SPEC[c].label()}`", str(t["tus"]), fmt(median_of(t["cpu_s_rounds"]), ".2f"),
               fmt_ratio(t["ratio"]), fmt(median_of(t["wall_s_rounds"]), ".2f")]
        if instr:
            row += [f"{t['instructions']:,}", f"{t['instructions_ratio']:.4f}"]
        body.append(row)
    out += [table(head, body), ""]

    out += ["## Link, size and run time (per binary; ÷ B = ÷ B linked the same way)", ""]
    head = ["binary", "link CPU s", "link wall s", "link CPU ÷ B min / med", "text+data bytes",
            "size ÷ B", "run s (sum)", "run ÷ B geomean min / med", "executables verified"]
    body = []
    for b in bins:
        lt, rt = total["link"][b], total["run"][b]
        verified = sum(1 for e in exes if all(best_run(e, b, r) is not None
                                              for r in range(args.rounds)))
        geo = rt["geomean"]
        body.append([b, fmt(median_of(lt["cpu_s_rounds"]), ".2f"),
                     fmt(median_of(lt["wall_s_rounds"]), ".2f"),
                     fmt_ratio(lt["ratio"]), f"{total['size'][b]:,}",
                     fmt(total["size"][b + "_ratio"], ".4f"), fmt(rt["run_s_total"], ".2f"),
                     "–" if geo is None or b == ref_of(b)
                     else f"{geo['min']:.3f} / {geo['median']:.3f}",
                     f"{verified}/{len(exes)}"])
    out += [table(head, body), ""]

    others = [c for c in args.configs if c != REF]
    out += ["## Compile CPU s per executable (median over rounds; in brackets: ÷ B, median)", ""]
    body = [[e.short, str(len(e.jobs.get(REF, [])))] +
            [cell(rows[e.short]["compile_cpu_s"][c], rows[e.short]["compile_ratio"].get(c))
             for c in args.configs] for e in exes]
    body.append(["**TOTAL**", str(total["compile"][REF]["tus"])] +
                [cell(median_of(total["compile"][c]["cpu_s_rounds"]),
                      total["compile"][c]["ratio"]) for c in args.configs])
    out += [table(["executable", "TUs"] + args.configs, body), ""]

    out += ["## Link CPU s per executable (median; in brackets: ÷ B same mode, median)", ""]
    body = [[e.short] + [cell(rows[e.short]["link_cpu_s"][b], rows[e.short]["link_ratio"].get(b))
                         for b in bins] for e in exes]
    body.append(["**TOTAL**"] + [cell(median_of(total["link"][b]["cpu_s_rounds"]),
                                      total["link"][b]["ratio"]) for b in bins])
    out += [table(["executable"] + bins, body), ""]

    out += ["## text+data bytes per executable (in brackets: ÷ B same mode)", ""]

    def size_cell(value, ratio):
        return "FAIL" if value is None else f"{value:,}" + (
            "" if ratio is None else f" ({ratio:.3f})")
    body = [[e.short] + [size_cell(rows[e.short]["text_data"][b],
                                   rows[e.short]["size_ratio"].get(b)) for b in bins]
            for e in exes]
    body.append(["**TOTAL**"] + [size_cell(total["size"][b], total["size"][b + "_ratio"]
                                           if b != ref_of(b) else None) for b in bins])
    out += [table(["executable"] + bins, body), ""]

    out += [f"## Run s per executable (user+sys, min of {args.runs} runs, median over rounds; "
            f"in brackets: ÷ B same mode, median; FAIL: did not verify or not built)", ""]
    body = [[e.short] + [cell(rows[e.short]["run_s"][b], rows[e.short]["run_ratio"].get(b), ".3f")
                         for b in bins] for e in exes]
    geo_row = ["**geomean ÷ B**"]
    for b in bins:
        geo = total["run"][b]["geomean"]
        geo_row.append("–" if geo is None or b == ref_of(b) else f"{geo['median']:.3f}")
    body.append(geo_row)
    out += [table(["executable"] + bins, body), ""]

    if instr:
        out += [f"## Compile instructions, the {len(instr['tus'])} largest TUs "
                f"({instr['tool']})", ""]
        body = [[t["source"], f"{t['bytes']:,}"] +
                [f"{t['instructions'][c] / 1e6:,.0f}" for c in args.configs] +
                [f"{t['instructions'][c] / t['instructions'][REF]:.4f}" for c in others]
                for t in instr["tus"]]
        body.append(["**TOTAL**", f"{sum(t['bytes'] for t in instr['tus']):,}"] +
                    [f"{instr['total'][c] / 1e6:,.0f}" for c in args.configs] +
                    [f"{instr['total'][c] / instr['total'][REF]:.4f}" for c in others])
        out += [table(["TU", "bytes"] + [f"{c} M instr" for c in args.configs] +
                      [f"{c} ÷ B" for c in others], body), ""]
    return "\n".join(out)


# --- Driver ----------------------------------------------------------------------------------

def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_programs_option(ap)
    ap.add_argument("--configs", default=",".join(s.name for s in SPECS if s.name != "E"),
                    help="comma-separated subset of A,A2,B,C,D,E (B, the reference, is "
                         "always included; default: all but the experiment E)")
    ap.add_argument("--modes", default="thin,full",
                    help="link modes: thin, full or both (default thin,full)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    ap.add_argument("--runs", type=int, default=3,
                    help="runs of each binary per round; the minimum counts (default 3)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="parallel compiles (first build, rounds, callgrind) (default 2)")
    ap.add_argument("--thinlto-jobs", type=int, default=2,
                    help="ld.lld --thinlto-jobs= of the links (default 2)")
    ap.add_argument("--instructions", type=int, default=0, metavar="N",
                    help="also count compile instructions under valgrind for the N "
                         "largest TUs, once per configuration (slow: 60-100x a compile)")
    ap.add_argument("--valgrind-tool", choices=sorted(VALGRIND_TOOLS),
                    default="cachegrind",
                    help="how --instructions counts: cachegrind --cache-sim=no (default, "
                         "~1.5x faster) or callgrind (as compile_bench.py)")
    ap.add_argument("--min-run-s", type=float, default=0.05,
                    help="leave executables whose B run takes less CPU than this out of "
                         "the run-time geometric mean (default 0.05)")
    ap.add_argument("--run-timeout", type=int, default=600,
                    help="timeit --timeout and --limit-cpu of a run (default 600 s)")
    ap.add_argument("--out", type=Path, default=BENCH_DIR / "out-realcode-compile",
                    help="build directories, relinked binaries, outputs and the JSON report "
                         "(default bench/out-realcode-compile)")
    add_testsuite_option(ap)
    ap.add_argument("--ulto-bin", type=Path, default=REPO / "ulto-bin",
                    help="directory holding ulto-clang and ulto-clang++; default <repo>/ulto-bin, "
                         "a copy of build/bin (cp -a build/bin/. ulto-bin/)")
    args = ap.parse_args(argv)
    if min(args.rounds, args.runs, args.jobs, args.thinlto_jobs) < 1:
        ap.error("--rounds, --runs, --jobs and --thinlto-jobs must be positive")
    args.programs = programs_of(ap, args.programs)
    configs = {c.strip() for c in args.configs.split(",") if c.strip()} | {REF}
    if configs - set(SPEC):
        ap.error(f"unknown configurations {sorted(configs - set(SPEC))}; choose from A,A2,B,C,D")
    args.configs = [s.name for s in SPECS if s.name in configs]
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not args.modes or set(args.modes) - {"thin", "full"}:
        ap.error("--modes takes thin, full or thin,full")
    args.out = args.out.resolve()
    args.testsuite = args.testsuite.resolve()
    args.ulto_bin = args.ulto_bin.absolute()  # keep the names (ulto-clang++ is a link)
    return args


def check_tools(args: argparse.Namespace) -> None:
    needed = [LLVM_BIN / n for n in ("clang", "clang++", "ld.lld", "llvm-size")]
    if any(SPEC[c].ulto for c in args.configs):
        needed += [args.ulto_bin / "ulto-clang", args.ulto_bin / "ulto-clang++"]
    missing = [str(p) for p in needed if not os.access(p, os.X_OK)]
    missing += [t for t in ("cmake", "ninja") if shutil.which(t) is None]
    if args.instructions and shutil.which("valgrind") is None:
        missing.append("valgrind (for --instructions)")
    if not (args.testsuite / "CMakeLists.txt").is_file():
        missing.append(str(args.testsuite / "CMakeLists.txt"))
    if missing:
        hint = ""
        if not (args.ulto_bin / "ulto-clang").exists():
            hint = (f"\n(make the ulto copy with: mkdir -p {args.ulto_bin} && "
                    f"cp -a {REPO}/build/bin/. {args.ulto_bin}/)")
        raise LinkError("missing (or not executable):\n  " + "\n  ".join(missing) + hint)


def tool_hashes(args: argparse.Namespace) -> Dict[str, str]:
    paths = [LLVM_BIN / "clang", LLVM_BIN / "ld.lld"]
    if any(SPEC[c].ulto for c in args.configs):
        paths.append(args.ulto_bin / "ulto-clang")
    return {str(p): sha256(p) for p in paths}


def benchmark(args: argparse.Namespace) -> Tuple[dict, str]:
    check_tools(args)
    hashes = tool_hashes(args)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        os.environ.pop(name, None)
    started = time.perf_counter()
    builds = build_all(args)
    args.tools = build_dir(args, REF) / "tools"
    for tool in ("timeit-target", "fpcmp-target", "HashProgramOutput.sh"):
        if not os.access(args.tools / tool, os.X_OK):
            raise LinkError(f"{args.tools / tool} was not built (see "
                            f"{build_dir(args, REF) / 'realcode-build.log'})")
    exes = collect(args)
    if not exes:
        raise LinkError("no executable with bitcode inputs among the requested programs")
    for exe in exes:
        for config, why in exe.failed.items():
            print(f"  PROBLEM {exe.short} [{config}]: {why}", flush=True)
    bins = binaries(args)
    print(f"{len(exes)} executables, {sum(len(e.jobs.get(REF, [])) for e in exes)} TUs; "
          f"configurations {', '.join(args.configs)}; binaries {', '.join(bins)}; "
          f"{args.rounds} rounds, {args.runs} runs", flush=True)
    shutil.rmtree(args.out / "relink", ignore_errors=True)
    shutil.rmtree(args.out / "runs", ignore_errors=True)

    timing = run_rounds(exes, args)
    instr = count_instructions(exes, args) if args.instructions else None
    if tool_hashes(args) != hashes:
        raise LinkError("a compiler or linker changed during the run (rebuilt?): "
                        "the figures mix versions; run again")

    rows = {e.short: exe_row(e, args) for e in exes}
    total, notes = summary(exes, rows, args, instr)
    text = report_text(exes, rows, total, args, instr)
    elapsed = time.perf_counter() - started
    notes.insert(0, f"- {len(exes)} executables; whole run {elapsed:.0f} s; per round: " +
                 "; ".join(f"compile {p['compile']:.0f} s, link {p['link']:.0f} s, run "
                           f"{p['run']:.0f} s, others' CPU {p['others_cpu']:.1f} s"
                           for p in timing["rounds"]))
    unstable = [f"{e.short} [{b}]" for e in exes for b, s in e.size.items()
                if len({x["text_data"] for x in s}) > 1]
    if unstable:
        notes.append("- text+data changed between rounds for: " + ", ".join(unstable))
    notes += identity_notes(exes, args)
    problems = [f"{e.short} [{k}]: {why}" for e in exes for k, why in e.failed.items()]
    notes += [f"- PROBLEM {p}" for p in problems]
    args.failed = bool(problems)

    report = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "argv": sys.argv,
        "programs": args.programs, "configs": {c: SPEC[c].label() for c in args.configs},
        "binaries": bins, "rounds": args.rounds, "runs": args.runs, "jobs": args.jobs,
        "thinlto_jobs": args.thinlto_jobs, "min_run_s": args.min_run_s,
        "testsuite": str(args.testsuite), "ulto_bin": str(args.ulto_bin), "sha256": hashes,
        "builds": builds, "timing": timing, "elapsed_s": elapsed,
        "executables": [{
            "target": e.name, "program": e.program,
            "sources": [{"source": s, "bytes": n} for s, n in e.sources],
            "failed": e.failed,
            "compile_argv": {c: [j.argv for j in e.jobs[c]] for c in e.jobs},
            "relink_argv": {b: relink_argv(args, b, e) for b in bins
                            if b.split("-")[0] in e.link},
            "run": {c: {"workdir": str(t.workdir), "args": t.args,
                        "stdin": str(t.stdin) if t.stdin else None, "verify": t.verify}
                    for c, t in e.test.items()},
            "compile_cpu_s_rounds": e.compile_cpu, "compile_wall_s_rounds": e.compile_wall,
            "link_cpu_s_rounds": e.link_cpu, "link_wall_s_rounds": e.link_wall,
            "size_per_link": e.size, "runs_per_round": e.runs, "summary": rows[e.short],
        } for e in exes],
        "total": total, "instructions": instr, "problems": problems,
    }
    return report, text + "\n" + "\n".join(notes)


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    args.failed = False
    args.build = args.out  # where report_main writes the report
    status = report_main(args, benchmark, REPORT)
    if status == 0 and args.failed:
        print("ERROR: some executables failed to build, link or verify (see PROBLEM above)",
              file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
