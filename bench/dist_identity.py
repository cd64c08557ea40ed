#!/usr/bin/env python3
"""Is ld.ulto --lto=distributed's program --lto=thin's, under CFI and WPD, on real programs?

Builds the LLVM test-suite subset in ../shared/testsuite (see
/work/shared/REALCODE.md) with ulto-clang/ulto-clang++ once per flag set, as
dist_realcode.py does (configure_and_build, each flag set in
its own build directory BUILD/<flags>; the flags are CMAKE_{C,CXX}_FLAGS, so
the build's own links get them too):

  plain   -O2 -flto=thin -funified-lto
  cfi     plain -fvisibility=hidden -fsanitize=cfi
  wpd     plain -fvisibility=hidden -fwhole-program-vtables

then takes every executable's link command from ninja
(find_targets) and relinks it through clang-22's driver with
ld.ulto (a copy in BUILD/tools/bin, snapshot) twice, into
BUILD/relink/<flags>-<mode>/:

  thin    -fuse-ld=lld --ld-path=ld.ulto -Wl,--lto=thin -Wl,--thinlto-jobs=N
  dist    -fuse-ld=lld --ld-path=ld.ulto -Wl,--lto=distributed -Wl,--dist-jobs=N
          -Wl,--no-dist-cache: every backend job runs, in ld.ulto's default
          worker service (this run's own, stopped at the end)

and compares the two binaries byte for byte. Unless --no-run, the distributed
binary then runs the way the suite runs it (run_exe: the
generated .test file's RUN line under the build's tools/timeit-target, its
VERIFY lines with fpcmp-target on the output); if it fails, the thin binary
runs too, and a failure of both is "thin fails too": a property of the
program under those flags (C code that calls through a pointer of another
function type traps under -fsanitize=cfi), not of the link.

Prints one table per flag set and a final `N identical, M differ` line;
writes every command, size and output to BUILD/identity.json. Exit status 1
if any pair of binaries differs, or a distributed link or run fails where the
thin one does not.
"""

import argparse
import filecmp
import shlex
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Dict, List, Optional, Tuple

from ultobench.errors import LinkError
from ultobench.measure import timed_run
from ultobench.snapshot import snapshot
from ultobench.tables import report_main, table
from ultobench.testsuite import (
    add_programs_option, add_testsuite_option, BENCHMARKS, build_settings, check_build_tools,
    configure_and_build, Exe, EXE_TARGET, find_targets, FLAGS, llvm_size, ninja_out, parse_test,
    programs_of, relink_path, run_exe, set_link_environment, Target)
from ultobench.toolchain import BENCH_DIR, LLVM_BIN, sha256, ULTO_SUMMARY, WorkerServices
from ultobench.workdir import fresh_own_dir

REPORT = "identity.json"

FLAG_SETS = {
    "plain": FLAGS,
    "cfi": FLAGS + " -fvisibility=hidden -fsanitize=cfi",
    "wpd": FLAGS + " -fvisibility=hidden -fwhole-program-vtables",
}
MODES = ("thin", "dist")


@dataclass
class Result:
    """One executable under one flag set."""
    name: str                     # relative to the build directory
    program: str
    target: Optional[Target] = None   # None: not built
    link_error: Dict[str, str] = field(default_factory=dict)    # mode -> why
    jobs: Optional[int] = None    # the distributed link's backend jobs
    identical: Optional[bool] = None
    sizes: Dict[str, dict] = field(default_factory=dict)        # mode -> llvm_size
    run: Dict[str, Optional[str]] = field(default_factory=dict)  # mode -> None (ok) or why
    no_test: Optional[str] = None  # why it cannot run as the suite runs it

    @property
    def short(self) -> str:
        return self.name[len(BENCHMARKS) + 1:]

    def outcome(self) -> str:
        """What the run says: ok, failed (dist only), thin fails too, or not run."""
        if "dist" not in self.run or self.no_test:
            return "not run"
        if self.run["dist"] is None:
            return "ok"
        return "thin fails too" if self.run.get("thin") is not None else "failed"


# --- Building and linking -----------------------------------------------------------------

def build_ns(args: argparse.Namespace, flags: str) -> SimpleNamespace:
    """What dist_realcode's build helpers read, for one flag set's build."""
    return SimpleNamespace(build=args.build / flags, testsuite=args.testsuite,
                           programs=args.programs, build_jobs=args.build_jobs,
                           ulto_bin=args.ulto_bin)


def build(args: argparse.Namespace, flags: str) -> dict:
    ns = build_ns(args, flags)
    settings = build_settings(ns)
    settings.update(CMAKE_C_FLAGS=FLAG_SETS[flags], CMAKE_CXX_FLAGS=FLAG_SETS[flags])
    print(f"[{flags}] {FLAG_SETS[flags]}: build in {ns.build}", flush=True)
    # ninja -k 0: a program that does not compile under these flags is reported.
    return configure_and_build(ns, settings, keep_going=True)


def executables(args: argparse.Namespace, flags: str) -> List[Result]:
    """Every executable ninja links for the requested programs; those the
    build made, and whose link line has bitcode, with their link command."""
    ns = build_ns(args, flags)
    names = [m.group(1) for m in map(EXE_TARGET.match,
                                     ninja_out(ns.build, "targets", "all")
                                     .splitlines()) if m]
    results = []
    for name in names:
        program = next((p for p in args.programs if name.startswith(f"{BENCHMARKS}/{p}/")),
                       None)
        if program is not None:
            results.append(Result(name, program))
    linked = {t.name: t for t in find_targets(ns)}
    for r in results:
        if (ns.build / r.name).is_file():
            r.target = linked.get(r.name)
    return results


def link_options(mode: str, args: argparse.Namespace) -> List[str]:
    ld = ["-fuse-ld=lld", f"--ld-path={args.link_bin / 'ld.ulto'}"]
    if mode == "thin":
        return ld + ["-Wl,--lto=thin", f"-Wl,--thinlto-jobs={args.jobs}"]
    return ld + ["-Wl,--lto=distributed", f"-Wl,--dist-jobs={args.jobs}",
                 "-Wl,--no-dist-cache"]


def relink_argv(r: Result, binary: str, args: argparse.Namespace) -> List[str]:
    """The build's link through clang-22's driver, into realcode_bench's
    relink path of the binary (where run_exe runs it)."""
    argv = r.target.argv
    driver = LLVM_BIN / ("clang++" if argv[0].endswith("++") else "clang")
    out_at = argv.index("-o") + 1
    return [str(driver), *argv[1:out_at], str(relink_path(args, binary, r)),
            *argv[out_at + 1:], *link_options(binary.split("-")[1], args)]


def link(r: Result, binary: str, args: argparse.Namespace) -> float:
    """Links one binary; wall s. LinkError if the link fails, writes no
    binary or (distributed) has no `ulto dist:` line with 0 failed jobs."""
    argv = relink_argv(r, binary, args)
    out = relink_path(args, binary, r)
    out.parent.mkdir(parents=True, exist_ok=True)
    dist = binary.endswith("-dist")
    _, wall, stderr = timed_run(argv, f"link {r.short} [{binary}]", r.target.cwd,
                                           args.services.env if dist else None)
    if not out.is_file() or out.stat().st_size == 0:
        raise LinkError(f"link {r.short} [{binary}] exited 0 but wrote no binary:\n"
                        f"  {shlex.join(argv)}")
    if dist:
        found = ULTO_SUMMARY.findall(stderr)
        if len(found) != 1 or int(found[0][3]):
            raise LinkError(f"link {r.short} [{binary}]: expected one `ulto dist:` line "
                            f"without failed jobs:\n  {shlex.join(argv)}\n{stderr}")
        r.jobs = int(found[0][0])
    return wall


def run(r: Result, binary: str, args: argparse.Namespace) -> Optional[str]:
    """Runs the binary as the suite does (run_exe, with the
    build's tools); None if its output verifies, else why not."""
    flags = binary.split("-")[0]
    exe = Exe(r.name, r.program, runs={binary: [[]]})
    exe.test[flags] = parse_test(args.build / flags / (r.name + ".test"),
                                                r.name)
    ns = SimpleNamespace(out=args.out, tools=args.build / flags / "tools",
                         run_timeout=args.run_timeout)
    try:
        run_exe(exe, binary, ns, 0, 0)
    except UnicodeDecodeError:
        # run_exe reads the VERIFY step's messages as text; fpcmp prints none
        # for output that verifies, and quotes output it rejects, which may
        # be binary (mediabench's reference outputs are).
        raw = args.out / "runs" / binary / (r.name + ".out.raw")
        status = raw.read_bytes().decode("latin-1").rstrip("\n").rsplit("\n", 1)[-1]
        return (f"output does not verify (program {status}; its output is in {raw}; "
                f"fpcmp's message is not UTF-8)")
    return exe.failed.get(binary)


def check(r: Result, flags: str, args: argparse.Namespace) -> None:
    """Both links, the comparison and the runs of one executable."""
    walls = {}
    for mode in MODES:
        try:
            walls[mode] = link(r, f"{flags}-{mode}", args)
        except LinkError as e:
            r.link_error[mode] = str(e)
            print(f"  PROBLEM {e}", flush=True)
    if r.link_error:
        return
    out = {m: relink_path(args, f"{flags}-{m}", r) for m in MODES}
    r.identical = filecmp.cmp(out["thin"], out["dist"], shallow=False)
    r.sizes = {m: llvm_size(out[m]) for m in MODES}
    if not args.no_run:
        try:
            r.run["dist"] = run(r, f"{flags}-dist", args)
            if r.run["dist"] is not None:
                r.run["thin"] = run(r, f"{flags}-thin", args)
        except (LinkError, OSError) as e:
            r.no_test = f"no usable .test file: {e}"
    print(f"  {r.short:44} thin {walls['thin']:5.2f} s, dist {walls['dist']:5.2f} s: "
          f"{'identical' if r.identical else 'DIFFER'}; run {r.outcome()}", flush=True)


# --- Report -----------------------------------------------------------------------------

def results_table(results: List[Result], programs: List[str]) -> str:
    head = ["program", "executables", "built", "linked", "identical", "differing",
            "run ok", "run failed", "thin fails too"]
    rows = []
    for program in programs + ["TOTAL"]:
        rs = [r for r in results if program in ("TOTAL", r.program)]
        linked = [r for r in rs if r.identical is not None]
        differ = [r.short for r in linked if not r.identical]
        outcomes = [r.outcome() for r in linked]
        cells = [program, len(rs), sum(1 for r in rs if r.target),
                 len(linked), len(linked) - len(differ),
                 (f"{len(differ)}: {', '.join(differ)}" if differ and program != "TOTAL"
                  else len(differ)),
                 outcomes.count("ok"), outcomes.count("failed"),
                 outcomes.count("thin fails too")]
        if program == "TOTAL":
            cells = [f"**{c}**" for c in cells]
        rows.append(cells)
    return table(head, [[str(c) for c in row] for row in rows])


def notes(results: List[Result], build: Path) -> List[str]:
    lines = []
    missing = [r.short for r in results if not (build / r.name).is_file()]
    if missing:
        lines.append(f"- not built ({len(missing)}; see {build / 'realcode-build.log'}): "
                     + ", ".join(missing))
    no_bitcode = [r.short for r in results if (build / r.name).is_file() and not r.target]
    if no_bitcode:
        lines.append("- no bitcode on the link line, not relinked: " + ", ".join(no_bitcode))
    for r in results:
        for mode, why in r.link_error.items():
            lines.append(f"- PROBLEM {r.short}: the {mode} link failed: {why}")
        if r.identical is False:
            t, d = r.sizes["thin"], r.sizes["dist"]
            lines.append(f"- {r.short} differs: text {t['text']:,} / {d['text']:,}, data "
                         f"{t['data']:,} / {d['data']:,}, file {t['file']:,} / "
                         f"{d['file']:,} bytes (thin / dist)")
        if r.outcome() in ("failed", "thin fails too"):
            # run_exe's first line, without its "round 1 run 1: <name> [<binary>]: ".
            why = r.run["dist"].splitlines()[0].split("]: ", 1)[-1].rstrip(":")
            lines.append(f"- run {r.outcome()}: {r.short}: {why}")
        elif r.no_test:
            lines.append(f"- not run: {r.short}: {r.no_test}")
    return lines


def failures(results: List[Result]) -> List[str]:
    """What makes the exit status 1: binaries that differ, and a distributed
    link or run that fails where the thin one does not."""
    bad = [f"{r.short} differs" for r in results if r.identical is False]
    bad += [f"{r.short}: the {m} link fails, the other does not" for r in results
            for m in r.link_error if len(r.link_error) == 1]
    bad += [f"{r.short}: the distributed binary fails its run, the thin one does not"
            for r in results if r.outcome() == "failed"]
    return bad


def build_failures(build: Path) -> List[str]:
    """ninja's FAILED lines of the build (the objects or programs it could not make)."""
    log = build / "realcode-build.log"
    if not log.is_file():
        return []
    return [line[len("FAILED: "):] for line in log.read_text(errors="replace").splitlines()
            if line.startswith("FAILED: ")]


# --- Driver -------------------------------------------------------------------------------

def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_programs_option(ap)
    ap.add_argument("--flags", default=",".join(FLAG_SETS),
                    help=f"comma-separated subset of {','.join(FLAG_SETS)} (default: all)")
    ap.add_argument("--ulto-bin", type=Path, default=Path("/work/main/build/bin"),
                    help="directory holding ulto-clang, ulto-clang++, ld.ulto and ulto "
                         "(default /work/main/build/bin)")
    ap.add_argument("--build", type=Path, default=BENCH_DIR / "out-identity",
                    help="work directory: a build per flag set in BUILD/<flags>, binaries "
                         "in BUILD/relink, run outputs in BUILD/runs, the report in "
                         f"BUILD/{REPORT} (default bench/out-identity)")
    ap.add_argument("--no-run", action="store_true",
                    help="compare the binaries only, do not run them")
    ap.add_argument("--jobs", type=int, default=2, metavar="N",
                    help="--thinlto-jobs=N and --dist-jobs=N of the links (default 2)")
    ap.add_argument("--build-jobs", type=int, default=2,
                    help="ninja -j for building the programs (default 2)")
    ap.add_argument("--run-timeout", type=int, default=600, metavar="S",
                    help="timeit --timeout and --limit-cpu of a run (default 600 s)")
    add_testsuite_option(ap)
    args = ap.parse_args(argv)
    if min(args.jobs, args.build_jobs, args.run_timeout) < 1:
        ap.error("--jobs, --build-jobs and --run-timeout must be positive")
    args.programs = programs_of(ap, args.programs)
    flags = {f.strip() for f in args.flags.split(",") if f.strip()}
    if not flags or flags - set(FLAG_SETS):
        ap.error(f"--flags takes a subset of {','.join(FLAG_SETS)}")
    args.flags = [f for f in FLAG_SETS if f in flags]
    args.ulto_bin = args.ulto_bin.absolute()  # keep the names (ulto-clang++ is a link)
    args.build = args.build.resolve()
    args.out = args.build  # where realcode_bench puts binaries (relink/) and outputs (runs/)
    args.testsuite = args.testsuite.resolve()
    # set_link_environment's: a private slot pool in BUILD/runtime.
    args.shared_slots = False
    return args


def identity(args: argparse.Namespace) -> Tuple[dict, str]:
    check_build_tools(args)
    args.build.mkdir(parents=True, exist_ok=True)
    if args.build == (BENCH_DIR / "out-identity").resolve():
        (args.build / ".gitignore").write_text("*\n")  # the default work dir ignores itself
    # ld.ulto and ulto copied first: a rebuild of --ulto-bin during the run
    # must not break links or mix versions.
    args.link_bin = snapshot(args.ulto_bin, args.build / "tools",
                                              ["ld.ulto", "ulto"])
    fresh_own_dir(args.build / "relink", "--build", mine=True)
    shutil.rmtree(args.build / "runs", ignore_errors=True)
    runtime = set_link_environment(args)
    args.services = WorkerServices()  # after the environment: it names them
    started = time.perf_counter()
    sections, report, bad = [], {}, []
    totals = {"identical": 0, "differ": 0}
    try:
        for flags in args.flags:
            info = build(args, flags)
            results = executables(args, flags)
            todo = [r for r in results if r.target]
            print(f"[{flags}] {len(results)} executables, {len(todo)} to relink", flush=True)
            for r in todo:
                check(r, flags, args)
            build_dir = args.build / flags
            lines = notes(results, build_dir)
            failed_steps = build_failures(build_dir)
            if failed_steps:
                lines.insert(0, f"- the build failed to make {len(failed_steps)} "
                                f"outputs: " + ", ".join(failed_steps[:20])
                             + (" …" if len(failed_steps) > 20 else ""))
            sections.append(f"### {flags}: `{FLAG_SETS[flags]}`\n\n"
                            + results_table(results, args.programs)
                            + ("\n\n" + "\n".join(lines) if lines else ""))
            totals["identical"] += sum(1 for r in results if r.identical)
            totals["differ"] += sum(1 for r in results if r.identical is False)
            bad += [f"[{flags}] {b}" for b in failures(results)]
            report[flags] = {"flags": FLAG_SETS[flags], "build": info,
                             "build_failed": failed_steps, "executables": [{
                                 "target": r.name, "program": r.program,
                                 "built": (build_dir / r.name).is_file(),
                                 "relink_argv": ({m: relink_argv(r, f"{flags}-{m}", args)
                                                  for m in MODES} if r.target else None),
                                 "modules": r.target.modules if r.target else None,
                                 "dist_jobs": r.jobs, "link_error": r.link_error,
                                 "identical": r.identical, "sizes": r.sizes,
                                 "run": r.run, "outcome": r.outcome(),
                             } for r in results]}
    finally:
        args.services.stop()
        if runtime is not None:
            shutil.rmtree(runtime, ignore_errors=True)
    elapsed = time.perf_counter() - started
    args.failed = bad
    text = "\n\n".join(sections) + (
        f"\n\n{totals['identical']} identical, {totals['differ']} differ "
        f"({elapsed:.0f} s)")
    for b in bad:
        text += f"\nFAILED {b}"
    summary = {"date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "argv": sys.argv,
               "programs": args.programs, "ulto_bin": str(args.ulto_bin),
               "sha256": {str(p): sha256(p) for p in (
                   args.ulto_bin / "ulto-clang", args.link_bin / "ld.ulto",
                   args.link_bin / "ulto", LLVM_BIN / "clang")},
               "elapsed_s": elapsed, **totals, "failed": bad, "flag_sets": report}
    return summary, text


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    args.failed = []
    status = report_main(args, identity, REPORT)
    if status == 0 and args.failed:
        print(f"ERROR: {len(args.failed)} failures (see FAILED above)", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
