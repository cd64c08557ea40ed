#!/usr/bin/env python3
"""Distributed ThinLTO benchmark: ld.ulto --lto=distributed against ld.lld-22.

Compiles a generated corpus (gen_corpus.py) once to unified bitcode with
ulto-clang++ (objects plus an archive of about half the units, as
link_bench.py does) and links the same inputs, through clang-22's driver, as

  lld-inproc           ld.lld-22 --lto=thin, in-process ThinLTO backends
  lld-dtlto-seq        ld.lld-22 --lto=thin, DTLTO with seq_distributor.py
                       (the jobs one after another) and clang-22 as compiler
  ulto-dist-spawn      ld.ulto --lto=distributed, no cache, each job a new
                       clang-22 process (--dist-spawn), not a fork server worker
  ulto-dist-per-job    ld.ulto --lto=distributed, no cache, a new fork server
                       worker per job (--dist-jobs-per-process=1)
  ulto-dist-nocache    ld.ulto --lto=distributed, no cache, workers running
                       many jobs each (the default)
  ulto-dist-cold       ld.ulto --lto=distributed, fresh empty cache
  ulto-dist-nochange   the same link again, warm cache, nothing changed
  ulto-dist-onechange  one unit's source edited and its object recompiled,
                       relinked with the warm cache
  ulto-dist-nocache-NAME
                       ulto-dist-nocache with another build's ld.ulto and ulto
                       (--variant-bin NAME=DIR, repeatable), in the same
                       rounds: a change measured against its parent

and finally copies the sources to a second directory, compiles them there
with the same relative commands and links there with the cache warmed in the
first: the share of cache hits says whether cache keys depend on where a
build lives. Reported: link wall and CPU time (os.wait4 on the driver, which
covers the linker, the distributor and every backend compile they waited
for), ratios within each round, ulto dist's job counts. Every linked binary is
run and its output compared with the corpus's expected_output.txt.
"""

import argparse
import filecmp
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ultobench.corpus import plan_units
from ultobench.corpuslink import (
    build_first, check_dist_tools, COMPILE_FLAGS, DistConfig, Inputs, link_argv, link_once,
    make_bin, record_link, VARIANT_PREFIX)
from ultobench.errors import CompileError, LinkError
from ultobench.jobs import compile_jobs, Config, run_jobs
from ultobench.rounds import median_of, ratio, rotated
from ultobench.tables import fmt, report_main
from ultobench.toolchain import BENCH_DIR, LLVM_BIN, sha256, variant_bins
from ultobench.workdir import in_dir

# Rotation slots: the three ulto-dist links depend on each other's cache, so
# they run together, in this order, as one slot.
SLOTS = ["lld-inproc", "lld-dtlto-seq", "ulto-dist-spawn", "ulto-dist-per-job",
         "ulto-dist-nocache", "ulto-dist"]
ULTO_CHAIN = ["ulto-dist-cold", "ulto-dist-nochange", "ulto-dist-onechange"]
SECOND_DIR = "ulto-dist-second-dir"


# --- Helpers -------------------------------------------------------------------------


def unit_compiler(ulto_bin: Path) -> Config:
    """The compile build_inputs does, for recompiling here."""
    return Config("U", "ulto-clang++ -flto -funified-lto",
                                ulto_bin / "ulto-clang++", COMPILE_FLAGS)


def compile_in(tree: Path, ulto_bin: Path, sources: List[str],
               parallel: int) -> Tuple[float, float]:
    """Compile corpus/<src> to obj/<stem>.o in `tree`, paths relative to it
    (so the commands are the same in any tree). Returns (CPU s, wall s)."""
    with in_dir(tree):
        jobs = compile_jobs(unit_compiler(ulto_bin), Path("corpus"),
                                          sources, Path("obj"))
        try:
            cpu, wall = run_jobs(jobs, parallel)
        except CompileError as e:
            raise LinkError(f"in {tree}: {e}") from e
    return sum(cpu), wall


# --- Building the inputs ---------------------------------------------------------------


def build_second(args: argparse.Namespace, first: Path, second: Path,
                 inputs: Inputs) -> dict:
    """The same build at another absolute path: the sources copied, compiled
    with the same relative commands, the archive made the same way."""
    second.mkdir(parents=True)
    shutil.copytree(first / "corpus", second / "corpus")
    make_bin(args, second)
    sources = (second / "corpus" / "units.txt").read_text().split()
    cpu, wall = compile_in(second, args.ulto_bin, sources, args.jobs)
    in_archive = set(inputs.members)
    members = [str(Path("obj") / (Path(s).stem + ".o")) for s in sources if s in in_archive]
    proc = subprocess.run([str(LLVM_BIN / "llvm-ar"), "rcs", str(inputs.archive), *members],
                          cwd=second, capture_output=True, text=True)
    if proc.returncode != 0:
        raise LinkError(f"llvm-ar failed in {second}:\n{proc.stderr}")
    files = [*inputs.objects, inputs.archive]
    differ = [str(f) for f in files
              if not filecmp.cmp(first / f, second / f, shallow=False)]
    print(f"second tree {second}: compiled {len(sources)} sources "
          f"(cpu {cpu:.1f} s, wall {wall:.1f} s); "
          f"{len(files) - len(differ)}/{len(files)} link inputs byte-identical "
          f"to the first tree's", flush=True)
    return {"path": str(second), "compile_cpu_s": cpu, "compile_wall_s": wall,
            "link_inputs": len(files), "link_inputs_differing": differ}


def touch_target(args: argparse.Namespace, inputs: Inputs) -> str:
    """The unit the onechange link edits: the first public unit linked as an
    object (main.cpp calls every public unit, so its module is imported from);
    failing that, the first generated unit linked as an object."""
    direct = {p.stem for p in inputs.objects}
    units = [u for u in plan_units(args.seed, args.units) if u.name in direct]
    if not units:
        raise LinkError("no generated unit is linked as an object; use more --units")
    public = [u for u in units if not u.internal]
    return (public or units)[0].name + ".cpp"


# --- Linking ----------------------------------------------------------------------------

def make_configs(ulto_bin: Path, tree: Path,
                 variants: Dict[str, Path]) -> Dict[str, DistConfig]:
    lld, ulto = LLVM_BIN / "ld.lld", ulto_bin / "ld.ulto"
    specs = [("lld-inproc", "ld.lld-22 --lto=thin (in-process)", lld, "thin"),
             ("lld-dtlto-seq", "ld.lld-22 --lto=thin, DTLTO seq_distributor.py", lld, "thin"),
             ("ulto-dist-spawn", "ld.ulto --lto=distributed, no cache, a clang-22 "
              "process per job (--dist-spawn)", ulto, "distributed"),
             ("ulto-dist-per-job", "ld.ulto --lto=distributed, no cache, a fork "
              "server worker per job (--dist-jobs-per-process=1)", ulto, "distributed"),
             ("ulto-dist-nocache", "ld.ulto --lto=distributed, no cache", ulto,
              "distributed"),
             ("ulto-dist-cold", "ld.ulto --lto=distributed, empty cache", ulto,
              "distributed"),
             ("ulto-dist-nochange", "ld.ulto --lto=distributed, warm cache, no change",
              ulto, "distributed"),
             ("ulto-dist-onechange", "ld.ulto --lto=distributed, warm cache, one unit "
              "changed", ulto, "distributed"),
             (SECOND_DIR, "ld.ulto --lto=distributed, second tree, first tree's cache",
              ulto, "distributed")]
    specs += [(name, f"ulto-dist-nocache with {where / 'ld.ulto'}", where / "ld.ulto",
               "distributed") for name, where in variants.items()]
    return {name: DistConfig(name, label, linker, mode, tree / "bin" / name)
            for name, label, linker, mode in specs}


def one_change(configs: Dict[str, DistConfig], tree: Path, inputs: Inputs,
               expected: str, args: argparse.Namespace, cache: Path, unit: str,
               r: int) -> dict:
    """Edit `unit` (a new unused function, so the output stays the same),
    recompile its object, relink with the warm cache; then put the source
    back and recompile it, so later rounds link the same objects."""
    source = tree / "corpus" / unit
    obj = tree / "obj" / (Path(unit).stem + ".o")
    original_source, original_obj = source.read_text(), obj.read_bytes()
    source.write_text(original_source + f"\nint bench_touch_{r}() {{ return {r}; }}\n")
    try:
        compile_cpu, compile_wall = compile_in(tree, args.ulto_bin, [unit], 1)
        if obj.read_bytes() == original_obj:
            raise LinkError(f"editing {source} did not change {obj}")
        config = configs["ulto-dist-onechange"]
        record_link(config, link_once(config, tree, inputs, expected, args.thinlto_jobs, cache),
               r, args.rounds)
    finally:
        source.write_text(original_source)
        compile_in(tree, args.ulto_bin, [unit], 1)
    identical = obj.read_bytes() == original_obj
    if not identical:
        print(f"NOTE: recompiling the restored {unit} gave a different object; "
              f"putting the original bytes back", flush=True)
        obj.write_bytes(original_obj)
    return {"round": r + 1, "unit": unit, "compile_cpu_s": compile_cpu,
            "compile_wall_s": compile_wall, "restored_object_identical": identical}


def run_rounds(configs: Dict[str, DistConfig], tree: Path, inputs: Inputs,
               expected: str, args: argparse.Namespace, cache_root: Path,
               unit: str) -> Tuple[Path, List[dict]]:
    """Each round links every configuration once, the slots in rotating
    order; the ulto-dist slot starts from a fresh cache. Returns the last
    round's cache (kept for the second tree) and the onechange records."""
    cache = cache_root
    changes = []
    # Untimed: the first link after the corpus compile reads its inputs from
    # disk (this machine's page cache drops them within seconds), and the
    # rotation would give that cost to one configuration of round 1.
    link_once(configs["lld-inproc"], tree, inputs, expected, args.thinlto_jobs)
    for r in range(args.rounds):
        for slot in rotated(SLOTS + list(args.variant_bins), r):
            if slot != "ulto-dist":
                config = configs[slot]
                record_link(config, link_once(config, tree, inputs, expected, args.thinlto_jobs),
                       r, args.rounds)
                continue
            if cache != cache_root:
                shutil.rmtree(cache)  # the previous round's; only the last is kept
            cache = cache_root / f"round-{r + 1}"
            shutil.rmtree(cache, ignore_errors=True)
            for name in ULTO_CHAIN[:2]:
                config = configs[name]
                record_link(config, link_once(config, tree, inputs, expected,
                                         args.thinlto_jobs, cache), r, args.rounds)
            changes.append(one_change(configs, tree, inputs, expected, args, cache,
                                      unit, r))
    return cache, changes


# --- Report ------------------------------------------------------------------------------


BASELINE = {"lld-dtlto-seq": "lld-inproc", "ulto-dist-cold": "lld-inproc",
            "ulto-dist-spawn": "lld-inproc", "ulto-dist-per-job": "lld-inproc",
            "ulto-dist-nocache": "lld-inproc",
            "ulto-dist-nochange": "ulto-dist-cold", "ulto-dist-onechange": "ulto-dist-cold",
            SECOND_DIR: "ulto-dist-cold"}


def summarise(config: DistConfig, configs: Dict[str, DistConfig]) -> dict:
    base = configs.get("lld-inproc" if config.name.startswith(VARIANT_PREFIX)
                       else BASELINE.get(config.name, ""))
    if config.name == SECOND_DIR and base:
        # One link, against the median cold link.
        cpu_ratio = config.cpu_rounds[0] / statistics.median(base.cpu_rounds)
        wall_ratio = config.wall_rounds[0] / statistics.median(base.wall_rounds)
        cpu_min, wall_min = cpu_ratio, wall_ratio
    else:
        cpu_ratio = ratio(config, base, "cpu_rounds") if base else None
        wall_ratio = ratio(config, base, "wall_rounds") if base else None
        cpu_min = ratio(config, base, "cpu_rounds", min) if base else None
        wall_min = ratio(config, base, "wall_rounds", min) if base else None
    return {
        "config": config.name, "label": config.label, "linker": str(config.linker),
        "samples": len(config.wall_rounds),
        "cpu_s_rounds": config.cpu_rounds, "wall_s_rounds": config.wall_rounds,
        "cpu_s": statistics.median(config.cpu_rounds),
        "wall_s": statistics.median(config.wall_rounds),
        "ratio_vs": base.name if base else None,
        "cpu_ratio": cpu_ratio, "wall_ratio": wall_ratio,
        "cpu_ratio_min": cpu_min, "wall_ratio_min": wall_min,
        "jobs_rounds": config.jobs_rounds, "cached_rounds": config.cached_rounds,
        "executed_rounds": config.executed_rounds,
        "jobs": median_of(config.jobs_rounds),
        "cached": median_of(config.cached_rounds),
        "executed": median_of(config.executed_rounds),
        "parallelism": config.parallelism,
        "binary_bytes": config.sizes[-1],
        "binary_bytes_stable": len(set(config.sizes)) == 1,
        "stderr_other": config.messages,
    }


def markdown_table(rows: List[dict]) -> str:
    lines = ["| config | wall s | CPU s | ratio vs | wall ratio (min) | CPU ratio (min) "
             "| backend jobs | cached | executed | binary bytes |",
             "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['config']} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} "
                     f"| {r['ratio_vs'] or '–'} | {fmt(r['wall_ratio'], '.3f')} "
                     f"({fmt(r['wall_ratio_min'], '.3f')}) "
                     f"| {fmt(r['cpu_ratio'], '.3f')} ({fmt(r['cpu_ratio_min'], '.3f')}) "
                     f"| {fmt(r['jobs'], 'g')} "
                     f"| {fmt(r['cached'], 'g')} | {fmt(r['executed'], 'g')} "
                     f"| {r['binary_bytes']:,} |")
    return "\n".join(lines)


def headline(rows: Dict[str, dict], second: dict, target: float) -> Tuple[dict, str]:
    cold, seq, spawn = rows["ulto-dist-cold"], rows["lld-dtlto-seq"], rows["ulto-dist-spawn"]
    per_job, nocache = rows["ulto-dist-per-job"], rows["ulto-dist-nocache"]
    no, one, sec = rows["ulto-dist-nochange"], rows["ulto-dist-onechange"], rows[SECOND_DIR]
    hit_rate = sec["cached"] / sec["jobs"] if sec["jobs"] else None
    jobs = {r["jobs"] for r in (cold, no, one, sec)} | set(cold["jobs_rounds"])
    figures = {
        "cold_over_inproc_wall": cold["wall_ratio"], "cold_over_inproc_cpu": cold["cpu_ratio"],
        "cold_over_inproc_target": target,
        "cold_within_target": cold["wall_ratio"] <= target,
        "seq_over_inproc_wall": seq["wall_ratio"], "seq_over_inproc_cpu": seq["cpu_ratio"],
        "spawn_over_inproc_wall": spawn["wall_ratio"],
        "spawn_over_inproc_cpu": spawn["cpu_ratio"],
        "per_job_over_inproc_wall": per_job["wall_ratio"],
        "per_job_over_inproc_cpu": per_job["cpu_ratio"],
        "nocache_over_inproc_wall": nocache["wall_ratio"],
        "nocache_over_inproc_cpu": nocache["cpu_ratio"],
        "nochange_over_cold_wall": no["wall_ratio"],
        "onechange_over_cold_wall": one["wall_ratio"],
        "nochange_executed_rounds": no["executed_rounds"],
        "onechange_executed_rounds": one["executed_rounds"],
        "second_dir_hit_rate": hit_rate,
        "second_dir_link_inputs_differing": len(second["link_inputs_differing"]),
        "backend_jobs": cold["jobs"], "backend_jobs_consistent": len(jobs) == 1,
        "seq_distributor_jobs": seq["jobs"],
    }
    lines = [
        f"- ulto-dist-cold / lld-inproc: wall {fmt(cold['wall_ratio'], '.3f')}, "
        f"CPU {fmt(cold['cpu_ratio'], '.3f')} (target wall <= {target}: "
        f"{'met' if figures['cold_within_target'] else 'NOT met'})",
        f"- lld-dtlto-seq / lld-inproc: wall {fmt(seq['wall_ratio'], '.3f')}, "
        f"CPU {fmt(seq['cpu_ratio'], '.3f')}",
        f"- ulto-dist-spawn / lld-inproc: wall {fmt(spawn['wall_ratio'], '.3f')}, "
        f"CPU {fmt(spawn['cpu_ratio'], '.3f')} (a clang-22 process per job)",
        f"- ulto-dist-per-job / lld-inproc: wall {fmt(per_job['wall_ratio'], '.3f')}, "
        f"CPU {fmt(per_job['cpu_ratio'], '.3f')} (a fork server worker per job)",
        f"- ulto-dist-nocache / lld-inproc: wall {fmt(nocache['wall_ratio'], '.3f')}, "
        f"CPU {fmt(nocache['cpu_ratio'], '.3f')} (workers, no cache)",
        f"- ulto-dist-nochange / cold: wall {fmt(no['wall_ratio'], '.3f')}; jobs executed "
        f"per round {no['executed_rounds']} (expected 0)",
        f"- ulto-dist-onechange / cold: wall {fmt(one['wall_ratio'], '.3f')}; jobs executed "
        f"per round {one['executed_rounds']}",
        f"- second-dir hit rate: {sec['cached']:g}/{sec['jobs']:g} = "
        f"{fmt(hit_rate, '.1%')} (expected 100%); link inputs differing between the "
        f"trees: {figures['second_dir_link_inputs_differing']}",
        f"- backend jobs: {fmt(cold['jobs'], 'g')} (ulto dist), "
        f"{fmt(seq['jobs'], 'g')} (seq_distributor); ulto dist ran "
        f"{cold['parallelism']} at once",
    ]
    for name in rows:
        if name.startswith(VARIANT_PREFIX):
            mine, theirs = rows["ulto-dist-nocache"], rows[name]
            wall = [a / b for a, b in zip(mine["wall_s_rounds"], theirs["wall_s_rounds"]) if b]
            cpu = [a / b for a, b in zip(mine["cpu_s_rounds"], theirs["cpu_s_rounds"]) if b]
            figures[f"nocache_over_{name}"] = {"wall": wall, "cpu": cpu}
            lines.append(f"- ulto-dist-nocache / {name}: wall min / median "
                         f"{min(wall):.3f} / {statistics.median(wall):.3f}, CPU "
                         f"{min(cpu):.3f} / {statistics.median(cpu):.3f}")
    if any(no["executed_rounds"]):
        lines.append("- NOTE: the no-change relink executed jobs")
    if hit_rate is not None and hit_rate < 1:
        lines.append("- NOTE: the second tree missed the first tree's cache")
    if seq["jobs"] is not None and seq["jobs"] != cold["jobs"]:
        lines.append("- NOTE: lld and ld.ulto made different numbers of backend jobs")
    return figures, "\n".join(lines)


# --- Driver ------------------------------------------------------------------------------

def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--units", type=int, default=1000,
                    help="generated units (default 1000)")
    ap.add_argument("--seed", type=int, default=1, help="corpus seed (default 1)")
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds (default 3)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel compiles (default 2)")
    ap.add_argument("--thinlto-jobs", type=int, default=None,
                    help="backends at once: --thinlto-jobs= for lld-inproc and "
                         "--dist-jobs= for ld.ulto (default: each tool's own, one per "
                         "hardware thread; seq_distributor always runs one)")
    ap.add_argument("--target", type=float, default=1.03,
                    help="ulto-dist-cold / lld-inproc wall ratio to meet (default 1.03)")
    ap.add_argument("--build", type=Path, default=BENCH_DIR / "out-dist",
                    help="work directory for both trees, caches and dist.json "
                         "(default bench/out-dist)")
    ap.add_argument("--ulto-bin", type=Path, default=Path("/work/main/build/bin"),
                    help="directory holding ulto-clang++, ld.ulto and ulto "
                         "(default /work/main/build/bin)")
    ap.add_argument("--bin-dir", type=Path, default=None,
                    help="where the links write (each tree's bin/ becomes a symbolic "
                         "link to BIN_DIR/first or BIN_DIR/second), and so where lld "
                         "writes a distributed link's index shards and objects; a tmpfs "
                         "directory takes the file system's cost of creating them out "
                         "of the comparison (default: BUILD/first/bin, BUILD/second/bin)")
    ap.add_argument("--variant-bin", action="append", default=[], metavar="NAME=DIR",
                    help="directory holding another build's ld.ulto and ulto, linked as "
                         "ulto-dist-nocache-NAME and reported against ulto-dist-nocache "
                         "(repeatable)")
    args = ap.parse_args(argv)
    # The prefix makes no name of the fixed configurations.
    args.variant_bins = variant_bins(ap, args.variant_bin, VARIANT_PREFIX, [])
    if min(args.units, args.rounds, args.jobs) < 1:
        ap.error("--units, --rounds and --jobs must be positive")
    if args.thinlto_jobs is not None and args.thinlto_jobs < 1:
        ap.error("--thinlto-jobs must be positive")
    args.ulto_bin = args.ulto_bin.resolve()  # the trees are built from other directories
    args.build = args.build.resolve()
    if args.bin_dir:
        args.bin_dir = args.bin_dir.resolve()
    return args


def benchmark(args: argparse.Namespace) -> Tuple[dict, str]:
    check_dist_tools(args.ulto_bin)
    build = args.build
    first, second, cache_root = build / "first", build / "second", build / "cache"
    for d in (first, second, cache_root):
        shutil.rmtree(d, ignore_errors=True)
    build.mkdir(parents=True, exist_ok=True)
    if build == (BENCH_DIR / "out-dist").resolve():
        (build / ".gitignore").write_text("*\n")  # the default work dir ignores itself
    cache_root.mkdir()

    inputs = build_first(args, first)
    expected = (first / "corpus" / "expected_output.txt").read_text()
    configs = make_configs(args.ulto_bin, first, args.variant_bins)
    unit = touch_target(args, inputs)
    print(f"onechange edits {unit}; caches under {cache_root}", flush=True)

    cache, changes = run_rounds(configs, first, inputs, expected, args, cache_root, unit)

    second_info = build_second(args, first, second, inputs)
    config = configs[SECOND_DIR]
    config.output = second / "bin" / SECOND_DIR
    record_link(config, link_once(config, second, inputs, expected, args.thinlto_jobs, cache),
           0, 1)

    rows = [summarise(c, configs) for c in configs.values()]
    figures, notes = headline({r["config"]: r for r in rows}, second_info, args.target)
    report = {"units": args.units, "seed": args.seed, "rounds": args.rounds,
              "jobs": args.jobs, "thinlto_jobs": args.thinlto_jobs,
              "objects": len(inputs.objects), "archive_members": len(inputs.members),
              "sha256": {p.name: sha256(p)
                         for p in (args.ulto_bin / "ld.ulto", args.ulto_bin / "ulto",
                                   args.ulto_bin / "ulto-clang++")},
              "link_argv": {c.name: link_argv(c, inputs, args.thinlto_jobs,
                                              cache_root / "round-N")
                            for c in configs.values()},
              "first_tree": str(first), "second_tree": second_info,
              "bin_dir": str(args.bin_dir) if args.bin_dir else None,
              "onechange": changes, "configs": rows, "summary": figures}
    return report, markdown_table(rows) + "\n\n" + notes


def main(argv: Optional[List[str]] = None) -> int:
    return report_main(parse_args(argv), benchmark, "dist.json")


if __name__ == "__main__":
    sys.exit(main())
