"""Linking the generated corpus: its link inputs (objects and a bitcode
archive, compiled by ulto-clang++), a linked program checked against the
corpus's expected output, and the distributed links of dist_bench.py and
remote_bench.py (their configurations, link commands and summary lines)."""

import argparse
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence

from ultobench.corpus import Corpus, write_corpus
from ultobench.errors import LinkError
from ultobench.jobs import compile_for_links, compile_jobs, Config
from ultobench.measure import timed_run
from ultobench.toolchain import BENCH_DIR, LLVM_BIN, own_workers, ULTO_SUMMARY
from ultobench.workdir import fresh_own_dir, in_dir

COMPILE_FLAGS = ["-flto", "-funified-lto"]  # compile_bench adds -c -O2 -std=c++17
ARCHIVE = "libunits.a"


@dataclass
class Inputs:
    objects: List[Path]   # linked as objects, in this order, before the archive
    archive: Path
    members: List[str]    # sources whose objects are in the archive


def archive_members(corpus: Corpus, units: int) -> List[str]:
    """About half the generated units, spread evenly over the public ones.

    Internal-only units stay objects: nothing refers to them, so as archive
    members they would not be loaded and their registrations would be lost.
    """
    internal = set(corpus.internal)
    public = [s for s in corpus.sources if s.startswith("u") and s not in internal]
    target = min(len(public), units // 2)
    if target == 0:
        return []
    step = len(public) / target
    return [public[int(k * step)] for k in range(target)]


def build_inputs(args: argparse.Namespace, corpus_dir: Path, obj_dir: Path) -> Inputs:
    ulto_clang = args.ulto_bin / "ulto-clang++"
    if not os.access(ulto_clang, os.X_OK):
        raise LinkError(f"{ulto_clang} not found (or not executable)")
    corpus = write_corpus(corpus_dir, args.units, args.seed)
    print(f"corpus: {len(corpus.sources)} sources in {corpus_dir} "
          f"({len(corpus.internal)} internal-only units)", flush=True)

    compiler = Config("U", "ulto-clang++ -flto -funified-lto",
                                    ulto_clang, COMPILE_FLAGS)
    jobs = compile_jobs(compiler, corpus_dir, corpus.sources, obj_dir)
    compile_for_links(jobs, args.jobs)

    members = archive_members(corpus, args.units)
    in_archive = set(members)
    archive = obj_dir / ARCHIVE
    archive.unlink(missing_ok=True)
    proc = subprocess.run([str(LLVM_BIN / "llvm-ar"), "rcs", str(archive),
                           *(str(j.output) for j in jobs if j.source in in_archive)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise LinkError(f"llvm-ar failed:\n{proc.stderr}")
    objects = [j.output for j in jobs if j.source not in in_archive]
    print(f"archive: {len(members)} bitcode members in {archive}; "
          f"{len(objects)} objects linked directly", flush=True)
    return Inputs(objects, archive, members)


def check_binary(config, expected: str, argv: List[str]) -> int:
    """Run the linked program (config.output: a link_bench LinkConfig's or a
    DistConfig's); its output must be the corpus's expected output. Returns
    the binary's size; config.label names it in errors."""
    prog = config.output
    if not prog.is_file() or prog.stat().st_size == 0:
        raise LinkError(f"{config.label}: link exited 0 but {prog} is missing or empty:\n"
                        f"  {shlex.join(argv)}")
    proc = subprocess.run([str(prog)], capture_output=True, text=True)
    if proc.returncode != 0 or proc.stdout != expected:
        raise LinkError(f"{config.label}: {prog} printed the wrong output "
                        f"(exit {proc.returncode}).\nlink command:\n  {shlex.join(argv)}\n"
                        f"expected:\n{expected}got:\n{proc.stdout}{proc.stderr}")
    return prog.stat().st_size


SEQ_DISTRIBUTOR = BENCH_DIR / "seq_distributor.py"
# The links without a cache, and their own options.
NO_CACHE = {"ulto-dist-spawn": ["-Wl,--dist-spawn"],
            "ulto-dist-per-job": ["-Wl,--dist-jobs-per-process=1"],
            "ulto-dist-nocache": []}
# A --variant-bin's configuration: ulto-dist-nocache with another build.
VARIANT_PREFIX = "ulto-dist-nocache-"
SEQ_SUMMARY = re.compile(r"^seq_distributor: (\d+) jobs, wall .*$", re.M)


@dataclass
class DistConfig:
    name: str
    label: str     # what check_binary's messages call it
    linker: Path   # given to clang++ as --ld-path
    mode: str      # the -Wl,--lto= value
    output: Path   # absolute; the link writes it as bin/<name> in its tree
    cpu_rounds: List[float] = field(default_factory=list)
    wall_rounds: List[float] = field(default_factory=list)
    jobs_rounds: List[Optional[int]] = field(default_factory=list)
    cached_rounds: List[Optional[int]] = field(default_factory=list)
    executed_rounds: List[Optional[int]] = field(default_factory=list)
    parallelism: Optional[int] = None
    sizes: List[int] = field(default_factory=list)
    messages: List[str] = field(default_factory=list)  # other stderr lines, deduplicated


@dataclass
class LinkResult:
    cpu: float
    wall: float
    size: int
    jobs: Optional[int] = None      # backend jobs, from the distributor's summary line
    cached: Optional[int] = None
    executed: Optional[int] = None
    parallelism: Optional[int] = None
    summary: str = ""               # ulto dist's summary line, as printed
    other_stderr: List[str] = field(default_factory=list)


def check_dist_tools(ulto_bin: Path) -> None:
    """Every program the run needs, before anything is built."""
    needed = [ulto_bin / "ulto-clang++", ulto_bin / "ld.ulto", ulto_bin / "ulto",
              LLVM_BIN / "clang++", LLVM_BIN / "clang", LLVM_BIN / "ld.lld",
              LLVM_BIN / "llvm-ar", Path(sys.executable)]
    missing = [str(p) for p in needed if not os.access(p, os.X_OK)]
    if not SEQ_DISTRIBUTOR.is_file():
        missing.append(str(SEQ_DISTRIBUTOR))
    if missing:
        raise LinkError("missing (or not executable):\n  " + "\n  ".join(missing))


def build_first(args: argparse.Namespace, tree: Path) -> Inputs:
    """Corpus, objects and archive in `tree`, all named relative to it."""
    tree.mkdir(parents=True)
    with in_dir(tree):
        inputs = build_inputs(args, Path("corpus"), Path("obj"))
    make_bin(args, tree)
    return inputs


def make_bin(args: argparse.Namespace, tree: Path) -> None:
    """The tree's bin/, where its links write, and so where lld writes a
    distributed link's index shards and objects: a directory, or with
    --bin-dir a symbolic link to a fresh one there."""
    if not args.bin_dir:
        (tree / "bin").mkdir()
        return
    target = args.bin_dir / tree.name
    fresh_own_dir(target, "--bin-dir")
    (tree / "bin").symlink_to(target, target_is_directory=True)


def link_argv(config: DistConfig, inputs: Inputs, thinlto_jobs: Optional[int],
              cache: Optional[Path], options: Sequence[str] = ()) -> List[str]:
    """The link through clang-22's driver, inputs and output relative to the
    tree it runs in. A distributed link without a cache gets --no-dist-cache;
    `options` (e.g. -Wl,--dist-remote=...) come after the config's own."""
    extra: List[str] = []
    if config.name == "lld-dtlto-seq":
        # The interpreter as the distributor: works whatever the script's mode.
        extra = [f"-Wl,--thinlto-distributor={sys.executable}",
                 f"-Wl,--thinlto-distributor-arg={SEQ_DISTRIBUTOR}",
                 f"-Wl,--thinlto-remote-compiler={LLVM_BIN / 'clang'}"]
    elif config.name in NO_CACHE or config.name.startswith(VARIANT_PREFIX):
        extra = ["-Wl,--no-dist-cache", *NO_CACHE.get(config.name, []),
                 *own_workers(config.linker)]
        if thinlto_jobs:
            extra.append(f"-Wl,--dist-jobs={thinlto_jobs}")
    elif config.mode == "distributed":
        extra = [f"-Wl,--dist-cache-dir={cache}" if cache else "-Wl,--no-dist-cache",
                 *own_workers(config.linker)]
        if thinlto_jobs:
            extra.append(f"-Wl,--dist-jobs={thinlto_jobs}")
    elif thinlto_jobs:
        extra = [f"-Wl,--thinlto-jobs={thinlto_jobs}"]
    return [str(LLVM_BIN / "clang++"), "-fuse-ld=lld", f"--ld-path={config.linker}",
            "-O2", "-flto=thin", f"-Wl,--lto={config.mode}", *extra, *options,
            *map(str, inputs.objects), str(inputs.archive),
            "-o", str(Path("bin") / config.output.name)]


def link_once(config: DistConfig, tree: Path, inputs: Inputs, expected: str,
              thinlto_jobs: Optional[int], cache: Optional[Path] = None,
              options: Sequence[str] = ()) -> LinkResult:
    """One timed link in `tree`, its program checked, its distributor's
    summary line read."""
    argv = link_argv(config, inputs, thinlto_jobs, cache, options)
    output = tree / "bin" / config.output.name
    output.unlink(missing_ok=True)
    cpu, wall, stderr = timed_run(argv, f"link {config.name}", tree)
    checked = DistConfig(config.name, config.label, config.linker, config.mode, output)
    size = check_binary(checked, expected, argv)
    result = LinkResult(cpu, wall, size)
    if config.mode == "distributed":
        found = ULTO_SUMMARY.findall(stderr)
        if len(found) != 1:
            raise LinkError(f"link {config.name}: expected one `ulto dist:` summary line "
                            f"on stderr, found {len(found)}:\n  {shlex.join(argv)}\n{stderr}")
        jobs, cached, executed, failed, _, at_once = found[0]
        result.summary = ULTO_SUMMARY.search(stderr).group(0)
        result.jobs, result.cached, result.executed = int(jobs), int(cached), int(executed)
        result.parallelism = int(at_once)
        if int(failed):
            raise LinkError(f"link {config.name}: ulto dist reports {failed} failed jobs "
                            f"but the link succeeded:\n{stderr}")
        summary = ULTO_SUMMARY
    elif config.name == "lld-dtlto-seq":
        found = SEQ_SUMMARY.findall(stderr)
        if len(found) != 1:
            raise LinkError(f"link {config.name}: expected one `seq_distributor:` summary "
                            f"line on stderr, found {len(found)}:\n  {shlex.join(argv)}\n"
                            f"{stderr}")
        result.jobs = int(found[0])
        summary = SEQ_SUMMARY
    else:
        summary = None
    result.other_stderr = [line for line in stderr.splitlines()
                           if line.strip() and not (summary and summary.match(line))]
    return result


def record_link(config: DistConfig, result: LinkResult, r: int, rounds: int) -> None:
    config.cpu_rounds.append(result.cpu)
    config.wall_rounds.append(result.wall)
    config.sizes.append(result.size)
    config.jobs_rounds.append(result.jobs)
    config.cached_rounds.append(result.cached)
    config.executed_rounds.append(result.executed)
    if result.parallelism is not None:
        config.parallelism = result.parallelism
    for line in result.other_stderr:
        if line not in config.messages:
            config.messages.append(line)
            print(f"  [{config.name} stderr] {line}", flush=True)
    jobs = ""
    if result.jobs is not None:
        jobs = f"  jobs {result.jobs}"
        if result.executed is not None:
            jobs += f" ({result.cached} cached, {result.executed} executed)"
    print(f"  round {r + 1}/{rounds} {config.name:19}: cpu {result.cpu:7.2f} s  "
          f"wall {result.wall:7.2f} s{jobs}", flush=True)
