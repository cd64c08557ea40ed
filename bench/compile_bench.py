#!/usr/bin/env python3
"""Compile-side benchmark: what does ulto's universal bitcode cost to produce?

Compiles every TU of a generated corpus (gen_corpus.py) to bitcode in four
configurations and compares each with B, stock clang-22's unified LTO:

  A  clang-22 -flto=thin
  B  clang-22 -flto=thin -funified-lto                (the reference)
  C  ulto-clang++ ... -funified-lto-pipeline=full     (ulto: full pre-link,
                                                       the default)
  D  ulto-clang++ ... -funified-lto-pipeline=thin     (ulto: thin pre-link)

Reported per configuration: compile CPU time (user+sys of each compiler
process, from os.wait4) and wall time, total bitcode size, and the "split
share": among objects whose bitcode carries type metadata, how many were
written split into a thin and a regular half (only split objects take part
in whole-program devirtualisation/CFI under unified LTO).

The machine is assumed small and noisy: configurations are interleaved
within each round and the order rotates between rounds, so drift (thermal,
other tenants) hits every configuration alike; CPU time, not wall time, is
the headline because it does not depend on how busy the other core is.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ultobench.corpus import write_corpus
from ultobench.errors import CompileError
from ultobench.jobs import COMMON_FLAGS, compile_jobs, Config, Job, run_jobs
from ultobench.measure import count_instructions
from ultobench.rounds import rotated

LLVM_BIN = Path("/usr/lib/llvm-22/bin")
BENCH_DIR = Path(__file__).resolve().parent
INSPECT_CHUNK = 200  # files per `ulto inspect` invocation


@dataclass(frozen=True)
class ObjectInfo:
    """What the split-share metric needs to know about one output object."""
    type_metadata: bool
    split: bool


def make_configs(ulto_bin: Path) -> Tuple[List[Config], Optional[str]]:
    """The four configurations; C and D only when ulto-clang++ exists."""
    clang = LLVM_BIN / "clang++"
    unified = ["-flto=thin", "-funified-lto"]
    configs = [Config("A", "clang-22 -flto=thin", clang, ["-flto=thin"]),
               Config("B", "clang-22 -flto=thin -funified-lto", clang, unified)]
    ulto = ulto_bin / "ulto-clang++"
    if not os.access(ulto, os.X_OK):
        return configs, f"{ulto} not found (or not executable): skipping C and D"
    configs += [Config("C", "ulto -flto=thin -funified-lto -funified-lto-pipeline=full",
                       ulto, unified + ["-funified-lto-pipeline=full"]),
                Config("D", "ulto -flto=thin -funified-lto -funified-lto-pipeline=thin",
                       ulto, unified + ["-funified-lto-pipeline=thin"])]
    return configs, None


def run_rounds(configs: List[Config], jobs_of: Dict[str, List[Job]],
               reps: int, parallel: int) -> None:
    for r in range(reps):
        for config in rotated(configs, r):
            cpu, wall = run_jobs(jobs_of[config.name], parallel)
            config.cpu_rounds.append(sum(cpu))
            config.wall_rounds.append(wall)
            print(f"  round {r + 1}/{reps} {config.name}: "
                  f"cpu {sum(cpu):8.1f} s  wall {wall:7.1f} s", flush=True)


def warm_up(configs: List[Config], jobs_of: Dict[str, List[Job]]) -> None:
    """One untimed compile per configuration: fills the page cache with each
    compiler and fails fast if a compiler does not work at all."""
    for config in configs:
        run_jobs(jobs_of[config.name][:1], 1)


# --- Inspecting the objects ----------------------------------------------------

def inspect_with_ulto(ulto: Path, files: List[Path]) -> Dict[Path, ObjectInfo]:
    """Use `ulto inspect --json` (one entry per file, in argument order):
    split = has a thin and a regular module."""
    result = {}
    for i in range(0, len(files), INSPECT_CHUNK):
        chunk = files[i:i + INSPECT_CHUNK]
        proc = subprocess.run([str(ulto), "inspect", "--json", *map(str, chunk)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise CompileError(f"`ulto inspect --json` failed (exit {proc.returncode}):\n"
                               f"{proc.stderr.strip()}\n(use --inspect llvm to bypass it)")
        entries = json.loads(proc.stdout)["files"]
        if len(entries) != len(chunk):
            raise CompileError(f"`ulto inspect --json` described {len(entries)} files, "
                               f"expected {len(chunk)}")
        for path, entry in zip(chunk, entries):
            modules = entry["modules"]
            kinds = {m["kind"] for m in modules}
            result[path] = ObjectInfo(
                type_metadata=any(m.get("type_metadata") for m in modules),
                split={"thin", "regular"} <= kinds)
    return result


TYPE_MD = re.compile(r"!type !\d")


def module_kinds(dump: str) -> List[str]:
    """Kinds of the modules in an llvm-bcanalyzer dump, in file order: a
    GLOBALVAL_SUMMARY_BLOCK makes a ThinLTO module, anything else is regular."""
    kinds = []
    for line in dump.splitlines():
        tag = line.lstrip()
        if tag.startswith("<MODULE_BLOCK"):
            kinds.append("regular")
        elif tag.startswith("<GLOBALVAL_SUMMARY_BLOCK") and kinds:
            kinds[-1] = "thin"
    return kinds


def inspect_one_with_llvm(path: Path) -> ObjectInfo:
    """Stock-tools path: bcanalyzer for the module structure, then
    llvm-modextract | llvm-dis per module and look for !type attachments."""
    dump = subprocess.run([str(LLVM_BIN / "llvm-bcanalyzer"), "-dump", str(path)],
                          capture_output=True, text=True)
    if dump.returncode != 0:  # not bitcode: a native object
        return ObjectInfo(type_metadata=False, split=False)
    kinds = module_kinds(dump.stdout)
    has_type = False
    for index in range(len(kinds)):
        extract = subprocess.run(
            [str(LLVM_BIN / "llvm-modextract"), "-n", str(index), "-b", str(path), "-o", "-"],
            capture_output=True, check=True)
        ir = subprocess.run([str(LLVM_BIN / "llvm-dis"), "-o", "-"], input=extract.stdout,
                            capture_output=True, check=True)
        if TYPE_MD.search(ir.stdout.decode(errors="replace")):
            has_type = True
            break
    return ObjectInfo(type_metadata=has_type, split={"thin", "regular"} <= set(kinds))


def inspect_with_llvm(files: List[Path], parallel: int) -> Dict[Path, ObjectInfo]:
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        return dict(zip(files, pool.map(inspect_one_with_llvm, files)))


def inspect_objects(mode: str, ulto: Path, files: List[Path],
                    parallel: int) -> Dict[Path, ObjectInfo]:
    """mode: ulto | llvm | both (both must agree, object by object)."""
    if mode == "ulto":
        return inspect_with_ulto(ulto, files)
    fallback = inspect_with_llvm(files, parallel)
    if mode == "both":
        primary = inspect_with_ulto(ulto, files)
        differ = [str(f) for f in files if primary.get(f) != fallback[f]]
        if differ:
            raise CompileError("`ulto inspect` and llvm-bcanalyzer/llvm-dis disagree on:\n  "
                               + "\n  ".join(differ[:20]))
    return fallback


def resolve_inspect_mode(requested: str, ulto: Path) -> str:
    have_ulto = os.access(ulto, os.X_OK)
    if requested == "auto":
        return "ulto" if have_ulto else "llvm"
    if requested in ("ulto", "both") and not have_ulto:
        raise CompileError(f"--inspect {requested} needs {ulto}, which does not exist")
    return requested


def run_instruction_counts(configs: List[Config], jobs_of: Dict[str, List[Job]],
                           sample: int, parallel: int) -> None:
    for config in configs:
        config.instructions = count_instructions(jobs_of[config.name][:sample],
                                                 parallel)
        print(f"  instructions {config.name}: {config.instructions:,}", flush=True)


# --- Report --------------------------------------------------------------------------

def summarise(config: Config, ref: Config, objects: List[Path],
              infos: Dict[Path, ObjectInfo], ref_bytes: int) -> dict:
    """One configuration's row; ratios use per-round pairs with the reference,
    so a slow round slows both sides of the ratio."""
    size = sum(p.stat().st_size for p in objects)
    typed = [p for p in objects if infos[p].type_metadata]
    split = [p for p in typed if infos[p].split]
    ratios = [c / r for c, r in zip(config.cpu_rounds, ref.cpu_rounds)]
    return {
        "config": config.name, "label": config.label,
        "compiler": str(config.compiler), "flags": config.flags + COMMON_FLAGS,
        "cpu_s_rounds": config.cpu_rounds, "wall_s_rounds": config.wall_rounds,
        "cpu_s": statistics.median(config.cpu_rounds),
        "cpu_ratio_vs_B": statistics.median(ratios),
        "instructions": config.instructions,
        "instructions_ratio_vs_B": (config.instructions / ref.instructions
                                    if config.instructions else None),
        "wall_s": statistics.median(config.wall_rounds),
        "bitcode_bytes": size, "size_ratio_vs_B": size / ref_bytes,
        "objects": len(objects), "with_type_metadata": len(typed),
        "split_with_type_metadata": len(split),
        "split_share": len(split) / len(typed) if typed else None,
        "unsplit_with_type_metadata": sorted(p.name for p in typed if not infos[p].split),
    }


def markdown_table(rows: List[dict]) -> str:
    lines = ["| config | CPU s | ratio vs B | instructions ratio vs B | wall s | bitcode MB "
             "| size ratio vs B | modules with type metadata | split share |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        share = "n/a" if r["split_share"] is None else f"{r['split_share']:.1%}"
        instr = ("n/a" if r["instructions_ratio_vs_B"] is None
                 else f"{r['instructions_ratio_vs_B']:.4f}")
        lines.append(
            f"| {r['config']}: {r['label']} | {r['cpu_s']:.1f} | {r['cpu_ratio_vs_B']:.3f} "
            f"| {instr} "
            f"| {r['wall_s']:.1f} | {r['bitcode_bytes'] / 1e6:.2f} "
            f"| {r['size_ratio_vs_B']:.3f} | {r['with_type_metadata']}/{r['objects']} "
            f"| {share} |")
    return "\n".join(lines)


def unsplit_note(rows: List[dict], internal: List[str]) -> str:
    """Relate unsplit objects to the corpus's internal-only units, the case
    where stock clang has no module ID to split with."""
    internal_objs = {Path(s).stem + ".o" for s in internal}
    notes = []
    for r in rows:
        unsplit = set(r["unsplit_with_type_metadata"])
        notes.append(f"{r['config']}: {len(unsplit)} objects with type metadata unsplit, "
                     f"{len(unsplit & internal_objs)} of them internal-only units "
                     f"(corpus has {len(internal_objs)})")
    return "\n".join(notes)


# --- Driver ----------------------------------------------------------------------------

def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--units", type=int, default=300, help="generated units (default 300)")
    ap.add_argument("--seed", type=int, default=1, help="corpus seed (default 1)")
    ap.add_argument("--reps", type=int, default=3, help="timed rounds (default 3)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel compiles (default 2)")
    ap.add_argument("--build", type=Path, default=BENCH_DIR / "out",
                    help="work directory for corpus, objects and compile.json "
                         "(default bench/out)")
    ap.add_argument("--ulto-bin", type=Path, default=Path("/work/main/build/bin"),
                    help="directory holding ulto-clang++ and ulto (default /work/main/build/bin)")
    ap.add_argument("--instructions", type=int, default=0, metavar="N",
                    help="also count instructions under callgrind for the first N "
                         "sources of each configuration (slow; noise-free)")
    ap.add_argument("--inspect", choices=["auto", "ulto", "llvm", "both"], default="auto",
                    help="how to find split/type metadata: `ulto inspect`, stock llvm "
                         "tools, or both cross-checked (default: ulto if present)")
    args = ap.parse_args(argv)
    if args.units < 1 or args.reps < 1 or args.jobs < 1:
        ap.error("--units, --reps and --jobs must be positive")
    return args


def benchmark(args: argparse.Namespace) -> dict:
    configs, skipped = make_configs(args.ulto_bin)
    if skipped:
        print(f"NOTE: {skipped}", flush=True)
    ulto = args.ulto_bin / "ulto"
    inspect_mode = resolve_inspect_mode(args.inspect, ulto)

    corpus_dir = args.build / "corpus"
    obj_root = args.build / "obj"
    for d in (corpus_dir, obj_root):
        shutil.rmtree(d, ignore_errors=True)
    corpus = write_corpus(corpus_dir, args.units, args.seed)
    print(f"corpus: {len(corpus.sources)} sources in {corpus_dir} "
          f"({len(corpus.internal)} internal-only units)", flush=True)

    jobs_of = {c.name: compile_jobs(c, corpus_dir, corpus.sources, obj_root / c.name)
               for c in configs}
    warm_up(configs, jobs_of)
    run_rounds(configs, jobs_of, args.reps, args.jobs)
    if args.instructions:
        run_instruction_counts(configs, jobs_of, args.instructions, args.jobs)

    print(f"inspecting objects with: {inspect_mode}", flush=True)
    objects = {c.name: [j.output for j in jobs_of[c.name]] for c in configs}
    all_files = [p for c in configs for p in objects[c.name]]
    infos = inspect_objects(inspect_mode, ulto, all_files, args.jobs)
    ref = configs[1]
    ref_bytes = sum(p.stat().st_size for p in objects[ref.name])
    rows = [summarise(c, ref, objects[c.name], infos, ref_bytes) for c in configs]
    return {"units": args.units, "seed": args.seed, "reps": args.reps, "jobs": args.jobs,
            "sources": len(corpus.sources), "internal_only_units": len(corpus.internal),
            "inspect": inspect_mode, "skipped": skipped, "configs": rows,
            "notes": unsplit_note(rows, corpus.internal)}


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    try:
        report = benchmark(args)
    except CompileError as e:
        print(f"ERROR: {e}", file=sys.stderr)
        return 1
    table = markdown_table(report["configs"])
    print()
    print(table)
    print()
    print(report["notes"])
    out = args.build / "compile.json"
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
