#!/usr/bin/env python3
"""Distributed ThinLTO on real programs: ld.ulto --lto=distributed against ld.lld-22.

Builds programs of the LLVM test-suite subset in ../shared/testsuite (see
/work/shared/REALCODE.md) once with ulto-clang/ulto-clang++ and
`-O2 -flto=thin -funified-lto` (ninja -j2; the build's own links use lld's
in-process ThinLTO), takes every executable's link command from ninja and
relinks it, through clang-22's driver, in three configurations:

  lld-thin            ld.lld-22 --lto=thin --thinlto-jobs=2: in-process backends
  ulto-dist           ld.ulto --lto=distributed --dist-jobs=2 --no-dist-cache:
                      every backend job runs (cold), by default in the user's
                      worker service (this run's, started by its second link
                      and kept warm across links); its CPU is counted with
                      each link's (read from /proc), and it is stopped at the
                      end
  ulto-dist-own       the same with --no-dist-service: in long-lived workers
                      of the link's own
  ulto-dist-per-job   ulto-dist-own with --dist-jobs-per-process=1: a new
                      compiler process per backend job
  ulto-dist-NAME      ulto-dist with another build's ld.ulto and ulto
                      (--variant-bin NAME=DIR; --baseline-bin DIR is
                      NAME=baseline), in a worker service of its own: a
                      change measured against its parent in the same rounds,
                      where the spread between runs (about 0.02 of the ratio)
                      would hide it

One untimed warm-up link per executable and configuration, then --rounds
rounds, each linking every executable in every configuration, the order of
the configurations rotating from round to round. Each link is timed with
os.wait4 on the driver (wall, and user+sys CPU of it and every process it
waited for: the linker, ulto dist, its workers). Ratios against lld-thin are
taken within a round, then their minimum and median over rounds; TOTAL sums
every executable's link per round.

Checks: every relinked binary exists; ulto-dist's binary is compared byte for
byte with lld-thin's (reported, not fatal) and with ulto-dist-per-job's (must
be identical: how many jobs a process runs may not change an object), and so
must ulto-dist-own's (where the workers live may not either).
"""

import argparse
import filecmp
import shlex
import shutil
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ultobench.errors import LinkError
from ultobench.measure import machine_cpu, own_cpu, timed_run
from ultobench.rounds import ratio_stats, rotated
from ultobench.snapshot import snapshot
from ultobench.tables import fmt_ratio, report_main
from ultobench.testsuite import (
    add_programs_option, add_testsuite_option, check_build_tools, configure_and_build,
    find_targets, programs_of, set_link_environment, Target)
from ultobench.toolchain import (
    BENCH_DIR, LLVM_BIN, sha256, ULTO_SUMMARY, variant_bins, WorkerServices)
from ultobench.workdir import fresh_own_dir

REPO = BENCH_DIR.parent

CONFIGS = ["lld-thin", "ulto-dist", "ulto-dist-own", "ulto-dist-per-job"]
# A --variant-bin's configuration: ulto-dist with another build's tools.
VARIANT_PREFIX = "ulto-dist-"
# Must give ulto-dist's binaries, byte for byte.
SAME_AS_ULTO_DIST = ["ulto-dist-own", "ulto-dist-per-job"]
BASELINE = "lld-thin"


# --- Building the programs ---------------------------------------------------------------


# --- The executables and their link commands ------------------------------------------


# --- Relinking ----------------------------------------------------------------------------

def config_options(config: str, args: argparse.Namespace) -> List[str]:
    """What a configuration appends to the build's link command (the last
    -fuse-ld/--ld-path wins, so these decide the linker)."""
    if config == "lld-thin":
        return ["-fuse-ld=lld", f"--ld-path={LLVM_BIN / 'ld.lld'}", "-Wl,--lto=thin",
                f"-Wl,--thinlto-jobs={args.jobs}"]
    bin = args.variant_link_bins.get(config, args.link_bin)
    dist = ["-fuse-ld=lld", f"--ld-path={bin / 'ld.ulto'}",
            "-Wl,--lto=distributed", f"-Wl,--dist-jobs={args.jobs}", "-Wl,--no-dist-cache"]
    if served(config, args):
        # However many services the machine runs for the user.
        return dist + ["-Wl,--dist-service-limit=0"]
    dist.append("-Wl,--no-dist-service")
    if config == "ulto-dist-per-job":
        dist.append("-Wl,--dist-jobs-per-process=1")
    return dist


def served(config: str, args: argparse.Namespace) -> bool:
    """Whether the configuration's links use a worker service."""
    return config == "ulto-dist" or config in args.variant_bins


def services_cpu(args: argparse.Namespace) -> float:
    return sum(services.cpu() for services in args.services.values())


def output_of(target: Target, config: str, args: argparse.Namespace) -> Path:
    return args.relink_dir / config / target.name


def relink_argv(target: Target, config: str, args: argparse.Namespace) -> List[str]:
    """The build's link through clang-22's driver (clang or clang++, as the
    build used ulto-clang or ulto-clang++), writing the configuration's own
    output, never the build's binary."""
    driver = LLVM_BIN / ("clang++" if target.argv[0].endswith("++") else "clang")
    argv = [str(driver), *target.argv[1:]]
    argv[argv.index("-o") + 1] = str(output_of(target, config, args))
    return argv + config_options(config, args)


def link_once(target: Target, config: str, args: argparse.Namespace) -> dict:
    """One timed link; raises LinkError if it fails, writes no binary, or (a
    distributed link) has no `ulto dist:` summary line or a failed job."""
    argv = relink_argv(target, config, args)
    out = output_of(target, config, args)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    services = args.services.get(config)
    served = services is not None
    before = services.cpu() if served else 0.0
    cpu, wall, stderr = timed_run(argv, f"link {target.short} [{config}]",
                                             target.cwd, services.env if served else None)
    if served:
        cpu += services.cpu() - before
    if not out.is_file() or out.stat().st_size == 0:
        raise LinkError(f"link {target.short} [{config}] exited 0 but {out} is missing "
                        f"or empty:\n  {shlex.join(argv)}\n{stderr}")
    result = {"cpu": cpu, "wall": wall, "size": out.stat().st_size, "jobs": None,
              "stderr": [line for line in stderr.splitlines() if line.strip()]}
    if config.startswith("ulto-dist"):
        found = ULTO_SUMMARY.findall(stderr)
        if len(found) != 1 or int(found[0][3]):
            raise LinkError(f"link {target.short} [{config}]: expected one `ulto dist:` "
                            f"summary line without failed jobs on stderr:\n"
                            f"  {shlex.join(argv)}\n{stderr}")
        # Other runs' services may fill the user's limit: the link then runs
        # in workers of its own, which is ulto-dist-own's figure, not ulto-dist's.
        if served and "this link starts none" in stderr:
            raise LinkError(f"link {target.short} [{config}] found no worker service to "
                            f"use (the user's --service-limit is reached); stop the other "
                            f"`ulto dist --serve-workers` processes:\n{stderr}")
        result["jobs"] = int(found[0][0])
        result["stderr"] = [line for line in result["stderr"]
                            if not ULTO_SUMMARY.match(line)]
    return result


@dataclass
class Run:
    """What the rounds found besides timings."""
    problems: List[str] = field(default_factory=list)   # failed links; the run goes on
    errors: List[str] = field(default_factory=list)     # ulto-dist != own, per-job
    messages: Dict[str, List[str]] = field(default_factory=dict)  # other stderr lines
    others_cpu: List[float] = field(default_factory=list)  # per round


def link_all(target: Target, configs: List[str], args: argparse.Namespace, run: Run,
             label: str) -> Optional[Dict[str, dict]]:
    """Links target once in each configuration, in the given order, then
    compares the binaries. None (and target.failed set) if a link failed."""
    results = {}
    for config in configs:
        try:
            results[config] = link_once(target, config, args)
        except LinkError as e:
            target.failed = f"{label}: {e}"
            run.problems.append(target.failed)
            print(f"  PROBLEM {target.failed}", flush=True)
            return None
        for line in results[config]["stderr"]:
            seen = run.messages.setdefault(f"{target.short} [{config}]", [])
            if line not in seen:
                seen.append(line)
                print(f"  [{target.short} {config} stderr] {line}", flush=True)
    out = {c: output_of(target, c, args) for c in configs}
    for other in SAME_AS_ULTO_DIST:
        if "ulto-dist" not in out or other not in out or \
                filecmp.cmp(out["ulto-dist"], out[other], shallow=False):
            continue
        keep = out[other].with_name(out[other].name + f".{label}")
        shutil.copyfile(out[other], keep)
        msg = (f"{label}: {target.short}: ulto-dist and {other} binaries differ: "
               f"{out['ulto-dist']} vs {keep}\n  "
               f"{shlex.join(relink_argv(target, other, args))}")
        run.errors.append(msg)
        print(f"  ERROR {msg}", flush=True)
    if "ulto-dist" in out and BASELINE in out:
        target.same_as_lld.append(filecmp.cmp(out["ulto-dist"], out[BASELINE], shallow=False))
    for c in configs:
        target.sizes[c] = results[c]["size"]
    return results


def run_rounds(targets: List[Target], args: argparse.Namespace) -> Run:
    run = Run()
    print(f"warm-up: every executable once per configuration ({len(targets)} executables)",
          flush=True)
    for target in targets:
        link_all(target, args.configs, args, run, "warm-up")
    for r in range(args.rounds):
        order = rotated(args.configs, r)
        print(f"round {r + 1}/{args.rounds}: {' '.join(order)}", flush=True)
        # What else ran on the machine meanwhile: its busy CPU less ours and
        # our worker services'.
        machine, ours = machine_cpu(), own_cpu() + services_cpu(args)
        for target in targets:
            if target.failed:
                continue
            results = link_all(target, order, args, run, f"round {r + 1}")
            if results is None:
                continue
            for c in args.configs:
                target.cpu.setdefault(c, []).append(results[c]["cpu"])
                target.wall.setdefault(c, []).append(results[c]["wall"])
                target.jobs.setdefault(c, []).append(results[c]["jobs"])
            print(f"  {target.short:42} " + "  ".join(
                f"{c} {results[c]['wall']:6.2f}/{results[c]['cpu']:6.2f}"
                for c in args.configs), flush=True)
        others = (machine_cpu() - machine) - (
            own_cpu() + services_cpu(args) - ours)
        run.others_cpu.append(others)
        print(f"  others' CPU on the machine during round {r + 1}: {others:.1f} s", flush=True)
    return run


# --- Report -----------------------------------------------------------------------------


def summarise(name: str, modules: Optional[int], cpu: Dict[str, List[float]],
              wall: Dict[str, List[float]], configs: List[str]) -> dict:
    row = {"program": name, "modules": modules,
           "wall_s_rounds": wall, "cpu_s_rounds": cpu,
           "wall_s": {c: statistics.median(wall[c]) for c in configs},
           "cpu_s": {c: statistics.median(cpu[c]) for c in configs},
           "wall_ratio": {}, "cpu_ratio": {}}
    if BASELINE in configs:
        for c in configs:
            if c != BASELINE:
                row["wall_ratio"][c] = ratio_stats(wall[c], wall[BASELINE])
                row["cpu_ratio"][c] = ratio_stats(cpu[c], cpu[BASELINE])
    return row


def totals(targets: List[Target], configs: List[str], rounds: int) -> dict:
    """Every measured link of a configuration summed per round."""
    ok = [t for t in targets if not t.failed]
    cpu = {c: [sum(t.cpu[c][r] for t in ok) for r in range(rounds)] for c in configs}
    wall = {c: [sum(t.wall[c][r] for t in ok) for r in range(rounds)] for c in configs}
    return summarise("TOTAL", sum(t.modules for t in ok), cpu, wall, configs)


def markdown_table(rows: List[dict], same: Dict[str, str], configs: List[str]) -> str:
    others = [c for c in configs if c != BASELINE] if BASELINE in configs else []
    head = ["program", "modules"] + [f"{c} wall / CPU s" for c in configs]
    for c in others:
        head += [f"{c} ÷ {BASELINE} wall min / med", f"{c} ÷ {BASELINE} CPU min / med"]
    if "ulto-dist" in others:
        head.append(f"ulto-dist = {BASELINE}")
    align = ["---"] + ["---:"] * (len(head) - 1)
    if "ulto-dist" in others:
        align[-1] = "---"
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    for row in rows:
        cells = [row["program"], str(row["modules"])]
        cells += [f"{row['wall_s'][c]:.2f} / {row['cpu_s'][c]:.2f}" for c in configs]
        for c in others:
            cells += [fmt_ratio(row["wall_ratio"][c]), fmt_ratio(row["cpu_ratio"][c])]
        if "ulto-dist" in others:
            cells.append(same.get(row["program"], ""))
        name = f"**{row['program']}**" if row["program"] == "TOTAL" else row["program"]
        lines.append("| " + " | ".join([name] + cells[1:]) + " |")
    return "\n".join(lines)


def identity_word(flags: List[bool]) -> str:
    if not flags:
        return "–"
    return "yes" if all(flags) else ("no" if not any(flags) else "varies")


# --- Driver -------------------------------------------------------------------------------


def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_programs_option(ap)
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds (default 3)")
    ap.add_argument("--configs", default=",".join(CONFIGS),
                    help=f"comma-separated subset of {','.join(CONFIGS)} (default: all)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="backends at once: --thinlto-jobs= for ld.lld, --dist-jobs= for "
                         "ld.ulto (default 2)")
    ap.add_argument("--build-jobs", type=int, default=2,
                    help="ninja -j for building the programs (default 2)")
    ap.add_argument("--build", type=Path, default=BENCH_DIR / "out-realcode",
                    help="build directory; relinked binaries go to BUILD/relink (or --relink-dir), the "
                         "report to BUILD/realcode.json (default bench/out-realcode)")
    ap.add_argument("--relink-dir", type=Path,
                    help="where the relinked binaries go, and so lld's DTLTO files (index "
                         "shards, objects), which it writes next to its output (default "
                         "BUILD/relink; a tmpfs directory takes the file system's cost of "
                         "creating them out of the comparison: bench/README.md)")
    add_testsuite_option(ap)
    ap.add_argument("--ulto-bin", type=Path, default=Path("/work/main/build/bin"),
                    help="directory holding ulto-clang, ulto-clang++, ld.ulto and ulto "
                         "(default /work/main/build/bin)")
    ap.add_argument("--variant-bin", action="append", default=[], metavar="NAME=DIR",
                    help="directory holding another build's ld.ulto and ulto (with its "
                         "../lib/ulto), linked as the configuration ulto-dist-NAME, which "
                         "this adds and reports against ulto-dist (repeatable)")
    ap.add_argument("--baseline-bin", type=Path, metavar="DIR",
                    help="--variant-bin baseline=DIR")
    ap.add_argument("--no-snapshot", action="store_true",
                    help="link with --ulto-bin's ld.ulto and ulto themselves, not with "
                         "copies in BUILD/tools (others rebuild /work/main/build at any time)")
    ap.add_argument("--shared-slots", action="store_true",
                    help="let ulto dist use the machine's slot pool instead of a private "
                         "XDG_RUNTIME_DIR (BUILD/runtime)")
    args = ap.parse_args(argv)
    if min(args.rounds, args.jobs, args.build_jobs) < 1:
        ap.error("--rounds, --jobs and --build-jobs must be positive")
    args.programs = programs_of(ap, args.programs)
    args.configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    if not args.configs or any(c not in CONFIGS for c in args.configs):
        ap.error(f"--configs takes a subset of {','.join(CONFIGS)}")
    if args.baseline_bin:
        args.variant_bin.append(f"baseline={args.baseline_bin}")
    args.variant_bins = variant_bins(ap, args.variant_bin, VARIANT_PREFIX,
                                                CONFIGS)
    # Canonical order, the variants last.
    args.configs = [c for c in CONFIGS if c in args.configs] + list(args.variant_bins)
    args.ulto_bin = args.ulto_bin.resolve()
    args.build = args.build.resolve()
    args.relink_dir = (args.relink_dir or args.build / "relink").resolve()
    args.testsuite = args.testsuite.resolve()
    return args


def benchmark(args: argparse.Namespace) -> Tuple[dict, str]:
    check_build_tools(args)
    # The programs linked with, copied first: a rebuild of --ulto-bin during the
    # run must not break links or mix versions (ld.ulto runs the ulto next to it).
    args.link_bin = args.ulto_bin if args.no_snapshot else snapshot(
        args.ulto_bin, args.build / "tools", ["ld.ulto", "ulto"])
    args.variant_link_bins = {
        config: snapshot(where, args.build / f"tools-{config[len(VARIANT_PREFIX):]}",
                                          ["ld.ulto", "ulto"])
        for config, where in args.variant_bins.items()}
    build_info = configure_and_build(args)
    targets = find_targets(args)
    if not targets:
        raise LinkError("no executable with bitcode inputs among the requested programs")
    print(f"{len(targets)} executables, {sum(t.modules for t in targets)} bitcode modules; "
          f"configs {', '.join(args.configs)}; {args.rounds} rounds", flush=True)
    fresh_own_dir(args.relink_dir, "--relink-dir",
                             mine=args.relink_dir == args.build / "relink")
    runtime = set_link_environment(args)
    # After the environment: the services' names depend on it. One per served
    # configuration, so that each one's CPU is its own.
    args.services = {c: WorkerServices() for c in args.configs if served(c, args)}

    start = time.perf_counter()
    try:
        run = run_rounds(targets, args)
    finally:
        for services in args.services.values():
            services.stop()
    elapsed = time.perf_counter() - start
    if runtime is not None:
        shutil.rmtree(runtime, ignore_errors=True)

    ok = [t for t in targets if not t.failed]
    rows = [summarise(t.short, t.modules, t.cpu, t.wall, args.configs) for t in ok]
    total = totals(targets, args.configs, args.rounds) if ok else None
    same = {t.short: identity_word(t.same_as_lld) for t in ok}
    compared = [t for t in ok if t.same_as_lld]
    identical = sum(1 for t in compared if all(t.same_as_lld))
    if total:
        same["TOTAL"] = f"{identical}/{len(compared)}" if compared else "–"
    text = markdown_table(rows + ([total] if total else []), same, args.configs)

    notes = [f"- {len(ok)}/{len(targets)} executables linked in every configuration and "
             f"round; links took {elapsed:.0f} s; others' CPU on the machine per round: "
             + ", ".join(f"{max(c, 0.0):.1f} s" for c in run.others_cpu)]
    if compared:
        notes.append(f"- ulto-dist byte-identical to {BASELINE} (every round): "
                     f"{identical}/{len(compared)}")
    if "ulto-dist" in args.configs and "ulto-dist-per-job" in args.configs:
        notes.append(f"- ulto-dist byte-identical to ulto-dist-per-job: "
                     f"{'yes, every link' if not run.errors else 'NO'}")
    against_variants = {}
    for variant in args.variant_bins if total and "ulto-dist" in args.configs else []:
        tw, tc = total["wall_s_rounds"], total["cpu_s_rounds"]
        against = against_variants[variant] = {
            "wall": ratio_stats(tw["ulto-dist"], tw[variant]),
            "cpu": ratio_stats(tc["ulto-dist"], tc[variant])}
        notes.append(
            f"- ulto-dist ÷ {variant}, TOTAL, min / median of the rounds: wall "
            f"{fmt_ratio(against['wall'])}, CPU {fmt_ratio(against['cpu'])}; "
            f"wall per round " + ", ".join(f"{r:.3f}" for r in against["wall"]["rounds"]))
    jobs_mismatch = [t.short for t in ok for c in args.configs if c.startswith("ulto-dist")
                     and any(j != t.modules for j in t.jobs[c])]
    if jobs_mismatch:
        notes.append(f"- ulto dist's job count differs from the bitcode modules for: "
                     f"{', '.join(sorted(set(jobs_mismatch)))}")
    for p in run.problems:
        notes.append(f"- PROBLEM {p}")
    for e in run.errors:
        notes.append(f"- ERROR {e}")

    report = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
        "argv": sys.argv, "programs": args.programs, "configs": args.configs,
        "rounds": args.rounds, "jobs": args.jobs, "private_slots": runtime is not None,
        "build": build_info, "testsuite": str(args.testsuite),
        "link_bin": str(args.link_bin), "relink_dir": str(args.relink_dir),
        "variant_bins": {c: str(p) for c, p in args.variant_bins.items()},
        "ulto_dist_vs_variants": against_variants,
        "sha256": {str(p): sha256(q) for p, q in (
            (args.ulto_bin / "ld.ulto", args.link_bin / "ld.ulto"),
            (args.ulto_bin / "ulto", args.link_bin / "ulto"),
            (args.ulto_bin / "ulto-clang", args.ulto_bin / "ulto-clang"),
            (LLVM_BIN / "ld.lld", LLVM_BIN / "ld.lld"), (LLVM_BIN / "clang", LLVM_BIN / "clang"))},
        "others_cpu_s_rounds": run.others_cpu,
        "links_wall_s": elapsed,
        "executables": [{
            "target": t.name, "program": t.program, "modules": t.modules,
            "cwd": str(t.cwd), "build_link_argv": t.argv,
            "relink_argv": {c: relink_argv(t, c, args) for c in args.configs},
            "failed": t.failed, "cpu_s_rounds": t.cpu, "wall_s_rounds": t.wall,
            "dist_jobs_rounds": {c: j for c, j in t.jobs.items() if c.startswith("ulto")},
            "ulto_dist_same_as_lld_thin": t.same_as_lld, "binary_bytes": t.sizes,
        } for t in targets],
        "rows": rows, "total": total,
        "identical_ulto_dist_lld_thin": {"identical": identical, "compared": len(compared)},
        "problems": run.problems, "errors": run.errors, "stderr_other": run.messages,
    }
    args.failed = bool(run.errors or run.problems)
    return report, text + "\n\n" + "\n".join(notes)


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    args.failed = False
    status = report_main(args, benchmark, "realcode.json")
    if status == 0 and args.failed:
        print("ERROR: failed links or ulto-dist and ulto-dist-per-job binaries that "
              "differ (see ERROR and PROBLEM above)", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
