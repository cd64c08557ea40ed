#!/usr/bin/env python3
"""Is the native code of a fat object as good as a plain clang-22 -O2 compile's?

ulto-clang -O2 -flto -funified-lto -ffat-lto-objects writes objects that hold
native code and, in their .llvm.lto section, the unified bitcode. The native
code is meant to be exactly what `clang-22 -O2` would produce: ulto copies the
frontend's module before the LTO pre-link pipeline and compiles the copy as
clang does without LTO (type tests dropped). A consumer that links without
LTO gets that code. This script measures the claim on real programs, the LLVM
test-suite subset in ../shared/testsuite (see /work/shared/REALCODE.md).

Two builds, out of tree with CMake + Ninja (--out/build-plain and
--out/build-fat__: names of the same length, see Build.dir_name), Release type
with CMAKE_{C,CXX}_FLAGS_RELEASE=-DNDEBUG so that only these flags optimise:

  plain  CC=clang-22 CXX=clang++-22, -O2, linked with -fuse-ld=lld
  fat    CC=ulto-clang CXX=ulto-clang++ (--ulto-bin), -O2 -flto -funified-lto
         -ffat-lto-objects, linked with -fno-lto -fuse-ld=lld: no LTO, lld
         takes the objects' native code

Programs named by --small (default PAQ8p and SciMark2-C: minutes under
valgrind at the default size) are built in two more directories,
build-plain-small and build-fat__-small, configured with SMALL_PROBLEM_SIZE=ON:
the suite's own reduced inputs (PAQ8p: -1 small.in against
paq8p.reference_output.small; SciMark2-C: 2^7 instead of 2^12 cycles, a
-DSMALL_PROBLEM_SIZE compile). Programs named by --build-only are built and
checked (link, objects, identity, size) but never run.

Checks, before anything is measured (a failure is a PROBLEM: the script goes
on without that executable and exits 1):
  link     the build's link command (ninja's): the fat one ends its LTO flags
           with -fno-lto, both use -fuse-ld=lld; the driver's -### shows the
           ld.lld command without LTO options (-plugin-opt, --lto*,
           --fat-lto-objects); the link, run again with -Wl,-Map=, writes the
           same binary byte for byte and its map names no LTO object (lld
           calls those <output>.lto.*.o or lto.tmp) and every object of the
           link line as an input
  objects  every object of a fat link line has a .llvm.lto section holding
           bitcode; no plain object has one
Then, per executable, with the arguments, stdin and working directory of
its generated .test file's RUN line:
  wall     an untimed warm-up run per binary, then --rounds rounds, each
           running every executable once per build, plain and fat
           interleaved (the first of the pair alternating from round to
           round), one run at a time; min and median over rounds
  instructions  one run per binary under valgrind --tool=cachegrind
           --cache-sim=no ("I refs"; independent of machine load), --jobs at
           a time
  verify   every run's output, the warm-up's and valgrind's included (stdout
           and stderr, then `exit <status>`, as lit's timeit module writes
           it), checked with the .test file's VERIFY lines
           (tools/fpcmp-target with the suite's tolerances,
           HashProgramOutput.sh): a run that does not verify is a PROBLEM
  size     the .text section (llvm-size -A) of each binary; whether the two
           binaries are byte-identical, or failing that their .text sections
A fat/plain instruction ratio off 1 by more than --explain-threshold
(default 1%) is looked into: the functions whose instruction counts differ
most and the hottest one (cachegrind's per-function counts), and whether
their disassembly differs (llvm-objdump, saved under --out/explain/).
Smaller differences are listed. Known: DOE-ProxyApps-C's RSBench and
SimpleMOC seed rand() with time(NULL), so their counts vary from run to run
of one binary (RSBench's by about 1% between extremes), byte-identical
binaries or not.

Prints a markdown table per executable (instructions plain, fat, ratio; wall
min and median ratios; .text bytes and ratio; identity), geometric means of
the ratios (wall: executables whose plain median is at least --min-wall-s),
and writes every figure to --out/fat_native.json.
"""

import argparse
import hashlib
import os
import re
import shlex
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ultobench.errors import BenchError
from ultobench.rounds import geomean
from ultobench.tables import fmt, report_main, table
from ultobench.testsuite import (
    add_testsuite_option, BENCHMARKS, EXE_TARGET, link_step, ninja_out, parse_test, PROGRAMS,
    read_cache, TestSpec)
from ultobench.toolchain import BENCH_DIR, LLVM_BIN, REPO

SMALL = ["PAQ8p", "SciMark2-C"]
# 36 loop-kernel executables of 1.5-5 s each, about 15x that under valgrind:
# half an hour of valgrind per build for one family of programs.
BUILD_ONLY = ["TSVC"]
REPORT = "fat_native.json"
FAT_FLAGS = "-O2 -flto -funified-lto -ffat-lto-objects"
PLAIN_FLAGS = "-O2"
BUILDS = ["plain", "fat"]
BITCODE_MAGIC = b"BC\xc0\xde"
# Linker options that would mean an LTO link (clang passes -plugin-opt=... to
# ld.lld for -flto; --lto-*, --thinlto-*, --fat-lto-objects are lld's own).
LTO_LINKER_OPTION = re.compile(r"^(-plugin-opt|--plugin-opt|--lto|-lto|--thinlto|"
                               r"--fat-lto-objects)")
# An input of lld's map file that LTO produced.
LTO_MAP_INPUT = re.compile(r"(\.lto\.[^ :]*\.o|\.lto\.o|lto\.tmp)(:|\()")
I_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


@dataclass(frozen=True)
class Build:
    """One build directory: a compiler configuration at one problem size."""
    kind: str      # plain or fat
    small: bool

    @property
    def name(self) -> str:
        return self.kind + ("-small" if self.small else "")

    @property
    def dir_name(self) -> str:
        """build-plain, build-fat__ (-small): names of the same length, so
        that both builds' binaries and working directories have paths of the
        same length. Under valgrind, the length of the working directory's
        path alone changes a run's instruction count by tens, and that of
        argv[0] does too."""
        width = max(len(k) for k in BUILDS)
        return f"build-{self.kind:_<{width}}" + ("-small" if self.small else "")


@dataclass
class Binary:
    """One executable as one build made it."""
    path: Path
    link_argv: List[str]
    link_cwd: Path
    objects: List[Path]
    test: TestSpec
    text: int = 0
    sha256: str = ""
    text_sha256: str = ""
    instructions: Optional[int] = None
    cg_out: Optional[Path] = None
    wall: List[float] = field(default_factory=list)   # per round
    cpu: List[float] = field(default_factory=list)    # user+sys, per round


@dataclass
class Exe:
    """One executable of the suite, as both builds made it."""
    name: str          # relative to a build directory
    program: str
    small: bool
    run: bool          # False: --build-only
    bins: Dict[str, Binary] = field(default_factory=dict)   # plain/fat ->
    problems: List[str] = field(default_factory=list)
    explain: List[str] = field(default_factory=list)

    @property
    def short(self) -> str:
        name = self.name[len(BENCHMARKS) + 1:]
        return name + (" (small)" if self.small else "")

    @property
    def ok(self) -> bool:
        return not self.problems and set(self.bins) == set(BUILDS)


# --- Building --------------------------------------------------------------------------------

def cmake_settings(build: Build, args: argparse.Namespace) -> Dict[str, str]:
    if build.kind == "plain":
        cc, cxx, flags, link = args.clang, args.clangxx, PLAIN_FLAGS, "-fuse-ld=lld"
    else:
        cc, cxx = args.ulto_bin / "ulto-clang", args.ulto_bin / "ulto-clang++"
        flags, link = FAT_FLAGS, "-fno-lto -fuse-ld=lld"
    settings = {
        "CMAKE_C_COMPILER": str(cc), "CMAKE_CXX_COMPILER": str(cxx),
        "CMAKE_BUILD_TYPE": "Release",
        "CMAKE_C_FLAGS": flags, "CMAKE_CXX_FLAGS": flags,
        "CMAKE_C_FLAGS_RELEASE": "-DNDEBUG", "CMAKE_CXX_FLAGS_RELEASE": "-DNDEBUG",
        "CMAKE_EXE_LINKER_FLAGS": link,
        "TEST_SUITE_COLLECT_COMPILE_TIME": "OFF", "TEST_SUITE_COLLECT_CODE_SIZE": "OFF",
    }
    if build.small:
        settings["SMALL_PROBLEM_SIZE"] = "ON"
    return settings


def run_logged(argv: List[str], what: str, log: Path) -> float:
    """Runs argv with its output in log; wall seconds. Raises with the log's tail."""
    start = time.perf_counter()
    with open(log, "w") as out:
        code = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT).returncode
    if code != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-30:])
        raise BenchError(f"{what} failed (exit status {code}):\n  {shlex.join(argv)}\n"
                         f"{tail}\n(whole output in {log})")
    return time.perf_counter() - start


def configure_and_build(build: Build, programs: List[str], args: argparse.Namespace) -> dict:
    """Configures the build directory (again if its compilers differ: CMake
    cannot change them in place), then builds the programs and the suite's
    tools with ninja -k 0. A program that fails to build shows up later as a
    missing executable."""
    bdir = args.out / build.dir_name
    settings = cmake_settings(build, args)
    cache = read_cache(bdir)
    if cache and any(cache.get(k) != settings[k]
                     for k in ("CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER")):
        print(f"[{build.name}] other compilers in {bdir}: configuring afresh", flush=True)
        shutil.rmtree(bdir)
    bdir.mkdir(parents=True, exist_ok=True)
    subdirs = [f"{BENCHMARKS}/{p}" for p in programs]
    configure = ["cmake", "-G", "Ninja", "-S", str(args.testsuite), "-B", str(bdir),
                 *(f"-D{k}={v}" for k, v in settings.items()),
                 f"-DTEST_SUITE_SUBDIRS={';'.join(subdirs)}"]
    if not build.small:
        # A directory configured with it keeps it in its cache.
        configure.append("-USMALL_PROBLEM_SIZE")
    print(f"[{build.name}] configure and build {len(programs)} programs in {bdir}", flush=True)
    run_logged(configure, f"cmake [{build.name}]", bdir / "fat-native-configure.log")
    ninja = ["ninja", "-C", str(bdir), f"-j{args.jobs}", "-k", "0", "tools/all",
             *(f"{s}/all" for s in subdirs)]
    error = None
    try:
        wall = run_logged(ninja, f"the build [{build.name}]", bdir / "fat-native-build.log")
    except BenchError as e:
        wall, error = None, str(e)
        print(f"  PROBLEM {e}", flush=True)
    steps = sum(1 for line in (bdir / "fat-native-build.log").read_text(errors="replace")
                .splitlines() if line.startswith("["))
    return {"dir": str(bdir), "configure": configure, "build": ninja, "ninja_steps": steps,
            "wall_s": wall, "error": error}


# --- The executables ---------------------------------------------------------------------------


def collect(build: Build, programs: List[str], args: argparse.Namespace,
            exes: Dict[Tuple[str, bool], Exe]) -> None:
    """Adds the build's executables of these programs to exes."""
    bdir = args.out / build.dir_name
    for line in ninja_out(bdir, "targets", "all").splitlines():
        m = EXE_TARGET.match(line)
        if not m:
            continue
        name = m.group(1)
        program = next((p for p in programs if name.startswith(f"{BENCHMARKS}/{p}/")), None)
        if program is None:
            continue  # the suite's tools
        exe = exes.setdefault((name, build.small), Exe(name, program, build.small,
                                                       program not in args.build_only))
        path = bdir / name
        if not path.is_file():
            exe.problems.append(f"[{build.name}] not built (see {bdir}/fat-native-build.log)")
            continue
        try:
            command = ninja_out(bdir, "commands", "-s", name).strip().splitlines()[-1]
            argv, cwd = link_step(command, name, bdir)
            out_at = argv.index("-o") + 1
            objects = [cwd / a for i, a in enumerate(argv[1:], 1)
                       if i != out_at and not a.startswith("-") and a.endswith(".o")]
            test = parse_test(bdir / (name + ".test"), name)
            if not test.verify:
                raise BenchError(f"{bdir / (name + '.test')}: no VERIFY line")
        except (BenchError, OSError) as e:
            exe.problems.append(f"[{build.name}] {e}")
            continue
        exe.bins[build.kind] = Binary(path, argv, cwd, objects, test)


# --- Checks ------------------------------------------------------------------------------------

def elf_sections(path: Path) -> Dict[str, Tuple[int, int]]:
    """Section name -> (file offset, size) of a little-endian ELF64 file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise BenchError(f"{path}: not a little-endian ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = headers[shstrndx][4]
    sections = {}
    for name_off, _type, _flags, _addr, offset, size in headers:
        end = data.index(b"\0", strtab + name_off)
        sections[data[strtab + name_off:end].decode()] = (offset, size)
    return sections


def section_bytes(path: Path, name: str) -> bytes:
    offset, size = elf_sections(path)[name]
    with open(path, "rb") as f:
        f.seek(offset)
        return f.read(size)


def last_lto_flag(argv: List[str]) -> Optional[str]:
    flags = [a for a in argv if a == "-fno-lto" or a == "-flto" or a.startswith("-flto=")]
    return flags[-1] if flags else None


def check_link(exe: Exe, kind: str, args: argparse.Namespace) -> None:
    """The link is not an LTO link: flags, the linker command the driver
    runs, and lld's map of a relink that must give the same binary."""
    b = exe.bins[kind]
    argv = b.link_argv
    what = f"[{kind}] {exe.short}"
    if "-fuse-ld=lld" not in argv:
        raise BenchError(f"{what}: link command without -fuse-ld=lld:\n  {shlex.join(argv)}")
    lto = last_lto_flag(argv)
    if kind == "fat" and lto != "-fno-lto":
        raise BenchError(f"{what}: link command's last LTO flag is {lto}, not -fno-lto:\n"
                         f"  {shlex.join(argv)}")
    if kind == "plain" and lto is not None:
        raise BenchError(f"{what}: plain link command with {lto}:\n  {shlex.join(argv)}")
    proc = subprocess.run(argv + ["-###"], cwd=b.link_cwd, capture_output=True, text=True)
    linker = [shlex.split(line) for line in proc.stderr.splitlines()
              if line.startswith(' "') and "ld.lld" in shlex.split(line)[0]]
    if proc.returncode != 0 or len(linker) != 1:
        raise BenchError(f"{what}: the driver's -### shows no ld.lld command:\n"
                         f"  {shlex.join(argv + ['-###'])}\n{proc.stderr[-2000:]}")
    # Both builds link with the same lld, stock LLVM 22's.
    if Path(linker[0][0]).resolve() != (LLVM_BIN / "ld.lld").resolve():
        raise BenchError(f"{what}: the driver runs {linker[0][0]}, not {LLVM_BIN / 'ld.lld'}")
    options = [a for a in linker[0] if LTO_LINKER_OPTION.match(a)]
    if options:
        raise BenchError(f"{what}: the linker command has LTO options {options}:\n"
                         f"  {shlex.join(linker[0])}")
    with tempfile.TemporaryDirectory(dir=args.out) as tmp:
        out, map_file = Path(tmp) / "a.out", Path(tmp) / "a.map"
        relink = list(argv)
        relink[relink.index("-o") + 1] = str(out)
        relink.append(f"-Wl,-Map={map_file}")
        proc = subprocess.run(relink, cwd=b.link_cwd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise BenchError(f"{what}: relink with a map failed:\n  {shlex.join(relink)}\n"
                             f"{proc.stderr[-2000:]}")
        if sha256(out) != sha256(b.path):
            raise BenchError(f"{what}: the relink with a map wrote another binary than the "
                             f"build's:\n  {shlex.join(relink)}")
        text = map_file.read_text(errors="replace")
    found = LTO_MAP_INPUT.search(text)
    if found:
        raise BenchError(f"{what}: lld's map has an LTO input ({found.group(0)}): an LTO link")
    missing = [str(o) for o in b.objects if f"{os.path.relpath(o, b.link_cwd)}:(" not in text
               and f"{o}:(" not in text]
    if missing:
        raise BenchError(f"{what}: lld's map does not name these objects as inputs: "
                         + ", ".join(missing))


def check_objects(exe: Exe, kind: str) -> None:
    """Fat objects carry bitcode in .llvm.lto; plain ones do not."""
    b = exe.bins[kind]
    if not b.objects:
        raise BenchError(f"[{kind}] {exe.short}: no object file on the link line")
    for obj in b.objects:
        sections = elf_sections(obj)
        if kind == "plain" and ".llvm.lto" in sections:
            raise BenchError(f"[plain] {obj}: has a .llvm.lto section")
        if kind == "fat":
            if ".llvm.lto" not in sections:
                raise BenchError(f"[fat] {obj}: no .llvm.lto section")
            if not section_bytes(obj, ".llvm.lto").startswith(BITCODE_MAGIC):
                raise BenchError(f"[fat] {obj}: .llvm.lto does not hold bitcode")


def text_size(path: Path) -> int:
    """The .text section's size, as llvm-size -A reports it."""
    proc = subprocess.run([str(LLVM_BIN / "llvm-size"), "-A", str(path)], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise BenchError(f"llvm-size -A {path} failed:\n{proc.stderr}")
    for line in proc.stdout.splitlines():
        parts = line.split()
        if parts[:1] == [".text"]:
            return int(parts[1])
    raise BenchError(f"llvm-size -A {path}: no .text section")


def check_all(exes: List[Exe], args: argparse.Namespace) -> None:
    def one(exe: Exe) -> None:
        for kind in BUILDS:
            if kind not in exe.bins:
                continue
            try:
                check_link(exe, kind, args)
                check_objects(exe, kind)
                b = exe.bins[kind]
                b.text, b.sha256 = text_size(b.path), sha256(b.path)
                b.text_sha256 = hashlib.sha256(section_bytes(b.path, ".text")).hexdigest()
            except (BenchError, OSError) as e:
                exe.problems.append(str(e))
    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(one, exes))
    for exe in exes:
        for p in exe.problems:
            print(f"  PROBLEM {exe.short}: {p}", flush=True)


# --- Running -----------------------------------------------------------------------------------

def run_program(b: Binary, prefix: List[str], output: Path,
                timeout: int) -> Tuple[int, float, float]:
    """Runs the binary as its RUN line does, stdout and stderr into output
    followed by `exit <status>` (lit's traditional output); (exit status,
    wall s, user+sys s of the process). A run past timeout is killed."""
    test = b.test
    # lit creates %S/Output before a test runs; some programs write there.
    (test.testdir / "Output").mkdir(exist_ok=True)
    with open(test.stdin or os.devnull, "rb") as stdin, open(output, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(prefix + [str(b.path), *test.args], cwd=test.workdir,
                                stdin=stdin, stdout=out, stderr=subprocess.STDOUT)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        timer.cancel()
    proc.returncode = code = os.waitstatus_to_exitcode(status)
    with open(output, "a") as out:
        out.write(f"exit {code}\n")
    return code, wall, usage.ru_utime + usage.ru_stime


def verify(b: Binary, output: Path, args: argparse.Namespace) -> Optional[str]:
    """None if the output passes the .test file's VERIFY lines, else why not."""
    saved = output.with_name(output.name + ".raw")
    shutil.copyfile(output, saved)  # HashProgramOutput.sh rewrites it
    for line in b.test.verify:
        cmd = line.replace("%o", shlex.quote(str(output))).replace("%b", str(args.tools))
        check = subprocess.run(["/bin/sh", "-c", cmd], cwd=b.test.workdir,
                               capture_output=True, text=True)
        if check.returncode != 0:
            return (f"output does not verify (its output is in {saved}):\n  {cmd}\n"
                    f"{(check.stdout + check.stderr)[-1500:]}")
    return None


def output_path(exe: Exe, kind: str, args: argparse.Namespace, what: str) -> Path:
    path = args.out / "runs" / f"{kind}{'-small' if exe.small else ''}" / f"{exe.name}.{what}"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def count_instructions(exes: List[Exe], args: argparse.Namespace) -> None:
    """One cachegrind run per binary, --jobs at a time; its output verified too."""
    def one(item: Tuple[Exe, str]) -> None:
        exe, kind = item
        b = exe.bins[kind]
        output = output_path(exe, kind, args, "valgrind.out")
        log = output.with_name(output.name.replace(".out", ".log"))
        b.cg_out = output.with_name(output.name.replace(".out", ".cg"))
        # Mangled names in the per-function counts: llvm-objdump takes them.
        prefix = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--demangle=no",
                  f"--cachegrind-out-file={b.cg_out}", f"--log-file={log}"]
        code, wall, _ = run_program(b, prefix, output, args.valgrind_timeout)
        m = I_REFS.search(log.read_text(errors="replace")) if log.is_file() else None
        if code != 0 or not m:
            exe.problems.append(f"[{kind}] valgrind run failed (exit {code}; see {log})")
            return
        b.instructions = int(m.group(1).replace(",", ""))
        why = verify(b, output, args)
        if why:
            exe.problems.append(f"[{kind}] valgrind run: {why}")
        print(f"  {exe.short:44} {kind:5} {b.instructions:>16,} instructions "
              f"({wall:.0f} s)", flush=True)

    # Longest first (by the plain build's median wall time, the wall rounds
    # ran before), so that the pool does not end on one long run.
    items = [(e, k) for e in sorted(exes, key=lambda e: -statistics.median(
        e.bins["plain"].wall or [0.0])) for k in BUILDS]
    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(one, items))


def time_rounds(exes: List[Exe], args: argparse.Namespace) -> dict:
    """An untimed warm-up run of every binary (verified like the others),
    then --rounds rounds; each runs every executable once per build, one at
    a time, the pair's order alternating between rounds."""
    load = {"before": os.getloadavg()}
    for r in range(-1, args.rounds):
        start = time.perf_counter()
        for exe in exes:
            for kind in (BUILDS if r % 2 == 0 else BUILDS[::-1]):
                if exe.problems:
                    break
                b = exe.bins[kind]
                output = output_path(exe, kind, args, "out")
                code, wall, cpu = run_program(b, [], output, args.run_timeout)
                why = verify(b, output, args) if code == 0 else f"exit status {code}"
                if why:
                    what = "warm-up" if r < 0 else f"round {r + 1}"
                    exe.problems.append(f"[{kind}] {what}: {why}")
                    break
                if r >= 0:
                    b.wall.append(wall)
                    b.cpu.append(cpu)
        print(f"{'warm-up' if r < 0 else f'round {r + 1}/{args.rounds}'}: "
              f"{time.perf_counter() - start:.0f} s, load {os.getloadavg()[0]:.2f}", flush=True)
    load["after"] = os.getloadavg()
    return load


# --- Explaining an instruction difference ------------------------------------------------------

def function_counts(cg_out: Path) -> Dict[str, int]:
    """Instructions per function from a cachegrind output file (Ir only)."""
    counts: Dict[str, int] = {}
    fn = None
    for line in cg_out.read_text(errors="replace").splitlines():
        if line.startswith("fn="):
            fn = line[3:]
        elif fn and line[:1].isdigit():
            parts = line.split()
            if len(parts) >= 2:
                counts[fn] = counts.get(fn, 0) + int(parts[1])
    return counts


def disassembly(path: Path, symbol: str) -> List[str]:
    proc = subprocess.run([str(LLVM_BIN / "llvm-objdump"), "-d", "--no-show-raw-insn",
                           "--no-leading-addr", f"--disassemble-symbols={symbol}", str(path)],
                          capture_output=True, text=True)
    lines = proc.stdout.splitlines()
    # Drop the file header; keep the instructions (addresses of branch targets
    # stay, so a moved function differs, which is what we want to see).
    return [line for line in lines if line.strip() and not line.startswith(str(path))]


def explain(exe: Exe, args: argparse.Namespace) -> None:
    """Why fat and plain differ in instructions: the hottest function and
    those whose counts differ most, and whether their code does."""
    plain, fat = exe.bins["plain"], exe.bins["fat"]
    if plain.sha256 == fat.sha256:
        exe.explain.append("the binaries are byte-identical: the difference is the "
                           "runs', not the code's")
    pc, fc = function_counts(plain.cg_out), function_counts(fat.cg_out)
    # The hottest function of the program's own code (not libc's, ld.so's).
    by_count = sorted(pc, key=lambda f: -pc[f])
    hottest = next((f for f in by_count[:20] if disassembly(plain.path, f)), by_count[0])
    diffs = sorted(set(pc) | set(fc), key=lambda f: -abs(fc.get(f, 0) - pc.get(f, 0)))
    where = args.out / "explain" / exe.name
    where.mkdir(parents=True, exist_ok=True)
    for fn in [hottest] + [f for f in diffs if f != hottest][:args.explain_functions]:
        a, b = pc.get(fn, 0), fc.get(fn, 0)
        da, db = disassembly(plain.path, fn), disassembly(fat.path, fn)
        if da or db:
            (where / f"{fn[:80]}.plain.s").write_text("\n".join(da) + "\n")
            (where / f"{fn[:80]}.fat.s").write_text("\n".join(db) + "\n")
        if not da and not db:
            same = "not in the binaries (a shared library's)"
        elif da == db:
            same = "same code"
        else:
            same = (f"code differs ({len(da)} vs {len(db)} lines, "
                    f"{where}/{fn[:80]}.{{plain,fat}}.s)")
        exe.explain.append(f"{'hottest ' if fn == hottest else ''}{fn}: plain {a:,}, fat "
                           f"{b:,} instructions ({'+' if b >= a else ''}{b - a:,}); {same}")


# --- Report --------------------------------------------------------------------------------------


def identity(exe: Exe) -> str:
    plain, fat = exe.bins.get("plain"), exe.bins.get("fat")
    if not plain or not fat or not plain.sha256 or not fat.sha256:
        return "–"
    if plain.sha256 == fat.sha256:
        return "binary"
    return ".text" if plain.text_sha256 == fat.text_sha256 else "differs"


def exe_row(exe: Exe) -> dict:
    plain, fat = exe.bins.get("plain"), exe.bins.get("fat")
    row: dict = {"identical": identity(exe)}
    if plain and fat and plain.text and fat.text:
        row.update(text_plain=plain.text, text_fat=fat.text, text_ratio=fat.text / plain.text)
    if plain and fat and plain.instructions and fat.instructions:
        row.update(instr_plain=plain.instructions, instr_fat=fat.instructions,
                   instr_ratio=fat.instructions / plain.instructions)
    if plain and fat and plain.wall and len(plain.wall) == len(fat.wall):
        row.update(wall_plain_min=min(plain.wall), wall_fat_min=min(fat.wall),
                   wall_plain_median=statistics.median(plain.wall),
                   wall_fat_median=statistics.median(fat.wall))
        row.update(wall_min_ratio=row["wall_fat_min"] / row["wall_plain_min"],
                   wall_median_ratio=row["wall_fat_median"] / row["wall_plain_median"])
    return row


def report(exes: List[Exe], rows: Dict[str, dict], args: argparse.Namespace) -> Tuple[str, dict]:
    head = ["executable", "instr plain", "instr fat", "fat/plain", "wall plain min / med s",
            "wall fat/plain min", "wall fat/plain med", ".text plain", ".text fat/plain",
            "identical"]
    body = []
    for exe in exes:
        r = rows[exe.short]
        body.append([
            exe.short + ("" if exe.ok else " **PROBLEM**"),
            fmt(r.get("instr_plain"), ","), fmt(r.get("instr_fat"), ","),
            fmt(r.get("instr_ratio"), ".5f"),
            "–" if "wall_plain_min" not in r else
            f"{r['wall_plain_min']:.3f} / {r['wall_plain_median']:.3f}",
            fmt(r.get("wall_min_ratio"), ".3f"), fmt(r.get("wall_median_ratio"), ".3f"),
            fmt(r.get("text_plain"), ","), fmt(r.get("text_ratio"), ".4f"), r["identical"]])
    ran = [e for e in exes if e.run]
    instr = [rows[e.short]["instr_ratio"] for e in ran if e.ok and "instr_ratio" in rows[e.short]]
    timed = [e for e in ran if e.ok and "wall_min_ratio" in rows[e.short]]
    long_enough = [e for e in timed if rows[e.short]["wall_plain_median"] >= args.min_wall_s]
    texts = [rows[e.short]["text_ratio"] for e in exes if "text_ratio" in rows[e.short]]
    total = {
        "instr_geomean": geomean(instr), "instr_executables": len(instr),
        "wall_min_geomean": geomean([rows[e.short]["wall_min_ratio"] for e in long_enough]),
        "wall_median_geomean": geomean([rows[e.short]["wall_median_ratio"]
                                        for e in long_enough]),
        "wall_executables": len(long_enough),
        "wall_left_out": [e.short for e in timed if e not in long_enough],
        "text_geomean": geomean(texts), "text_executables": len(texts),
        "text_total_plain": sum(rows[e.short].get("text_plain", 0) for e in exes),
        "text_total_fat": sum(rows[e.short].get("text_fat", 0) for e in exes),
        "identical": {k: sum(1 for e in exes if rows[e.short]["identical"] == k)
                      for k in ("binary", ".text", "differs", "–")},
    }
    body.append([f"**geomean** ({len(instr)} / {len(long_enough)} / {len(texts)})", "", "",
                 fmt(total["instr_geomean"], ".5f"), "",
                 fmt(total["wall_min_geomean"], ".3f"), fmt(total["wall_median_geomean"], ".3f"),
                 f"{total['text_total_plain']:,} (sum)", fmt(total["text_geomean"], ".4f"),
                 f"{total['identical']['binary']}/{len(exes)} binary"])
    out = [table(head, body), ""]
    notes = [
        f"- geomean over ({len(instr)} executables with instruction counts / {len(long_enough)} "
        f"whose plain median wall time is at least {args.min_wall_s} s / {len(texts)} with "
        f"sizes); .text sum: plain {total['text_total_plain']:,}, fat "
        f"{total['text_total_fat']:,} bytes",
        f"- identical: `binary` = the two executables are byte-identical, `.text` = only their "
        f".text sections are; {total['identical']['binary']} binary, "
        f"{total['identical']['.text']} .text only, {total['identical']['differs']} differ",
    ]
    if total["wall_left_out"]:
        notes.append(f"- left out of the wall geomeans (plain median under {args.min_wall_s} s): "
                     + ", ".join(total["wall_left_out"]))
    only_built = [e.short for e in exes if not e.run]
    if only_built:
        notes.append(f"- built and checked, not run (--build-only): " + ", ".join(only_built))
    verified = [e for e in ran if e.ok]
    notes.append(f"- outputs verified (VERIFY lines, every valgrind and wall run, both builds): "
                 f"{len(verified)}/{len(ran)} executables")
    small_diffs = [f"{e.short} ({rows[e.short]['instr_ratio']:.5f}, binaries "
                   f"{'byte-identical' if rows[e.short]['identical'] == 'binary' else 'differ'})"
                   for e in exes if rows[e.short].get("instr_ratio", 1) != 1 and
                   abs(rows[e.short]["instr_ratio"] - 1) <= args.explain_threshold]
    if small_diffs:
        notes.append(f"- instruction counts differ, by at most {args.explain_threshold:.0%}, "
                     f"for: " + ", ".join(small_diffs))
    for exe in exes:
        r = rows[exe.short]
        if "instr_ratio" in r and abs(r["instr_ratio"] - 1) > args.explain_threshold:
            notes.append(f"- {exe.short}: instructions fat/plain {r['instr_ratio']:.4f}:")
            notes += [f"  - {line}" for line in exe.explain]
    for exe in exes:
        notes += [f"- PROBLEM {exe.short}: {p}" for p in exe.problems]
    return "\n".join(out + notes), total


# --- Driver --------------------------------------------------------------------------------------

def parse_programs(text: str) -> List[str]:
    names = [p.strip().removeprefix(BENCHMARKS + "/") for p in text.split(";") if p.strip()]
    unknown = [p for p in names if p not in PROGRAMS]
    if unknown:
        raise ValueError(f"unknown programs {unknown}; choose from {';'.join(PROGRAMS)}")
    return names


def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", default=";".join(PROGRAMS),
                    help="';'-separated MultiSource/Benchmarks subdirectories (default: all 15)")
    ap.add_argument("--small", default=";".join(SMALL),
                    help="programs built and run with the suite's SMALL_PROBLEM_SIZE "
                         f"(default {';'.join(SMALL)}; '' for none)")
    ap.add_argument("--build-only", default=";".join(BUILD_ONLY),
                    help=f"programs built and checked but not run (default "
                         f"{';'.join(BUILD_ONLY)}; '' for none)")
    ap.add_argument("--rounds", type=int, default=5,
                    help="wall-time rounds (default 5)")
    ap.add_argument("--jobs", type=int, default=2,
                    help="parallel build jobs, checks and valgrind runs (default 2)")
    ap.add_argument("--min-wall-s", type=float, default=0.05,
                    help="leave executables whose plain median wall time is below this out "
                         "of the wall geomeans (default 0.05)")
    ap.add_argument("--explain-threshold", type=float, default=0.01,
                    help="look into instruction ratios off 1 by more than this (default 0.01)")
    ap.add_argument("--explain-functions", type=int, default=3,
                    help="how many of the functions whose counts differ most to look "
                         "at per such executable, besides the hottest (default 3)")
    ap.add_argument("--run-timeout", type=int, default=600,
                    help="timeout of a plain run in s (default 600)")
    ap.add_argument("--valgrind-timeout", type=int, default=3600,
                    help="timeout of a run under valgrind in s (default 3600)")
    ap.add_argument("--out", type=Path, default=BENCH_DIR / "out-fat-native",
                    help="build directories, outputs and the JSON report "
                         "(default bench/out-fat-native)")
    add_testsuite_option(ap)
    ap.add_argument("--ulto-bin", type=Path, default=REPO / "ulto-bin",
                    help="directory holding ulto-clang and ulto-clang++ (default "
                         "<repo>/ulto-bin)")
    args = ap.parse_args(argv)
    if min(args.rounds, args.jobs) < 1:
        ap.error("--rounds and --jobs must be positive")
    try:
        args.programs = parse_programs(args.programs)
        args.small = [p for p in parse_programs(args.small) if p in args.programs]
        args.build_only = [p for p in parse_programs(args.build_only) if p in args.programs]
    except ValueError as e:
        ap.error(str(e))
    args.out = args.out.resolve()
    args.testsuite = args.testsuite.resolve()
    args.ulto_bin = args.ulto_bin.absolute()  # keep the names (ulto-clang++ is a link)
    args.clang = Path(shutil.which("clang-22") or "/usr/bin/clang-22")
    args.clangxx = Path(shutil.which("clang++-22") or "/usr/bin/clang++-22")
    return args


def check_tools(args: argparse.Namespace) -> None:
    needed = [args.clang, args.clangxx, LLVM_BIN / "ld.lld", LLVM_BIN / "llvm-size",
              LLVM_BIN / "llvm-objdump", args.ulto_bin / "ulto-clang",
              args.ulto_bin / "ulto-clang++"]
    missing = [str(p) for p in needed if not os.access(p, os.X_OK)]
    missing += [t for t in ("cmake", "ninja", "valgrind") if shutil.which(t) is None]
    if not (args.testsuite / "CMakeLists.txt").is_file():
        missing.append(str(args.testsuite / "CMakeLists.txt"))
    if missing:
        raise BenchError("missing (or not executable):\n  " + "\n  ".join(missing))


def tool_hashes(args: argparse.Namespace) -> Dict[str, str]:
    paths = [args.clang.resolve(), LLVM_BIN / "ld.lld", args.ulto_bin / "ulto-clang"]
    return {str(p): sha256(p) for p in paths}


def benchmark(args: argparse.Namespace) -> Tuple[dict, str]:
    check_tools(args)
    hashes = tool_hashes(args)
    args.out.mkdir(parents=True, exist_ok=True)
    for name in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        os.environ.pop(name, None)
    started = time.perf_counter()

    # Build: plain and fat, at the default problem size and, for --small, the small one.
    normal = [p for p in args.programs if p not in args.small]
    groups = [(False, normal), (True, args.small)]
    builds = {}
    for small, programs in groups:
        for kind in BUILDS:
            if programs:
                build = Build(kind, small)
                builds[build.name] = configure_and_build(build, programs, args)
    args.tools = args.out / Build("plain", not normal).dir_name / "tools"
    for tool in ("fpcmp-target", "HashProgramOutput.sh"):
        if not os.access(args.tools / tool, os.X_OK):
            raise BenchError(f"{args.tools / tool} was not built")

    # Collect the executables and their .test files; check the links and objects.
    found: Dict[Tuple[str, bool], Exe] = {}
    for small, programs in groups:
        for kind in BUILDS:
            if programs:
                collect(Build(kind, small), programs, args, found)
    exes = sorted(found.values(), key=lambda e: (e.name, e.small))
    if not exes:
        raise BenchError("no executable among the requested programs")
    print(f"{len(exes)} executables ({sum(1 for e in exes if e.run)} to run); checking links "
          f"and objects", flush=True)
    check_all(exes, args)

    # Measure: interleaved wall-time rounds, then instruction counts under valgrind.
    shutil.rmtree(args.out / "runs", ignore_errors=True)
    shutil.rmtree(args.out / "explain", ignore_errors=True)
    runnable = [e for e in exes if e.run and e.ok]
    print(f"wall time: a warm-up and {args.rounds} rounds of {len(runnable)} executables "
          f"x 2 builds", flush=True)
    load = time_rounds(runnable, args)
    runnable = [e for e in runnable if e.ok]
    print(f"instructions: {len(runnable)} executables x 2 builds under cachegrind, "
          f"{args.jobs} at a time", flush=True)
    count_instructions(runnable, args)
    if tool_hashes(args) != hashes:
        raise BenchError("a compiler or linker changed during the run: run again")

    # Explain instruction differences over the threshold, then report.
    rows = {e.short: exe_row(e) for e in exes}
    for exe in exes:
        r = rows[exe.short]
        if "instr_ratio" in r and abs(r["instr_ratio"] - 1) > args.explain_threshold:
            explain(exe, args)
    text, total = report(exes, rows, args)
    elapsed = time.perf_counter() - started
    text += (f"\n- whole run {elapsed:.0f} s; load average before the wall rounds "
             f"{load['before'][0]:.2f}, after {load['after'][0]:.2f}")
    args.failed = any(e.problems for e in exes)
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "argv": sys.argv,
        "programs": args.programs, "small": args.small, "build_only": args.build_only,
        "flags": {"plain": PLAIN_FLAGS, "fat": FAT_FLAGS}, "rounds": args.rounds,
        "sha256": hashes, "builds": builds, "load": load, "elapsed_s": elapsed,
        "executables": [{
            "name": e.name, "program": e.program, "small": e.small, "run": e.run,
            "problems": e.problems, "explain": e.explain, "summary": rows[e.short],
            "builds": {k: {"path": str(b.path), "link_argv": b.link_argv,
                           "objects": [str(o) for o in b.objects], "text": b.text,
                           "sha256": b.sha256, "text_sha256": b.text_sha256,
                           "instructions": b.instructions, "wall_s": b.wall, "cpu_s": b.cpu,
                           "run": {"workdir": str(b.test.workdir), "args": b.test.args,
                                   "stdin": str(b.test.stdin) if b.test.stdin else None,
                                   "verify": b.test.verify}}
                       for k, b in e.bins.items()},
        } for e in exes],
        "total": total,
    }
    return result, text


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    args.failed = False
    args.build = args.out  # where report_main writes the report
    status = report_main(args, benchmark, REPORT, BenchError)
    if status == 0 and args.failed:
        print("ERROR: some executables failed a check, to build or to verify (see PROBLEM "
              "above)", file=sys.stderr)
        return 1
    return status


if __name__ == "__main__":
    sys.exit(main())
