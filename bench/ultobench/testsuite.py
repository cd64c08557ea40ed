"""The LLVM test-suite subset in ../shared/testsuite (see ../shared/REALCODE.md):
its programs, a CMake/Ninja build of them with ulto-clang, its executables'
link commands, and how the suite runs and checks a program (.test files)."""

import argparse
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ultobench.errors import LinkError
from ultobench.jobs import Job
from ultobench.measure import run_logged
from ultobench.toolchain import BENCH_DIR, LLVM_BIN, REPO

BENCHMARKS = "MultiSource/Benchmarks"
PROGRAMS = ["ASC_Sequoia", "DOE-ProxyApps-C", "DOE-ProxyApps-C++", "Fhourstones-3.1",
            "McCat", "Olden", "PAQ8p", "Prolangs-C++", "Ptrdist", "Rodinia", "SciMark2-C",
            "TSVC", "mediabench", "nbench", "sim"]
FLAGS = "-O2 -flto=thin -funified-lto"
# `ninja -t targets all` lines of the executables CMake links: "<output>: <rule>".
EXE_TARGET = re.compile(r"^(\S+): (C|CXX)_EXECUTABLE_LINKER__\S+$")
BITCODE_MAGIC = (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")  # raw bitcode, wrapper header


@dataclass
class Target:
    """One executable of the build: its link command and where it runs."""
    name: str          # the output, relative to the build directory
    program: str       # its MultiSource/Benchmarks subdirectory
    argv: List[str]    # the build's link command
    cwd: Path
    modules: int       # bitcode files on the link line
    failed: Optional[str] = None                       # why it left the run
    cpu: Dict[str, List[float]] = field(default_factory=dict)   # config -> per round
    wall: Dict[str, List[float]] = field(default_factory=dict)
    jobs: Dict[str, List[Optional[int]]] = field(default_factory=dict)
    same_as_lld: List[bool] = field(default_factory=list)       # ulto-dist vs lld-thin
    sizes: Dict[str, int] = field(default_factory=dict)

    @property
    def short(self) -> str:
        return self.name[len(BENCHMARKS) + 1:] if self.name.startswith(BENCHMARKS) else self.name


def build_settings(args: argparse.Namespace) -> Dict[str, str]:
    """The CMake cache entries of the build. CMake's Release type (the suite's
    default) would append -O3 to the flags; only -DNDEBUG is kept from it, so
    -O2 is what compiles and links."""
    return {
        "CMAKE_C_COMPILER": str(args.ulto_bin / "ulto-clang"),
        "CMAKE_CXX_COMPILER": str(args.ulto_bin / "ulto-clang++"),
        "CMAKE_BUILD_TYPE": "Release",
        "CMAKE_C_FLAGS": FLAGS, "CMAKE_CXX_FLAGS": FLAGS,
        "CMAKE_C_FLAGS_RELEASE": "-DNDEBUG", "CMAKE_CXX_FLAGS_RELEASE": "-DNDEBUG",
        "CMAKE_EXE_LINKER_FLAGS": "-fuse-ld=lld",
        "TEST_SUITE_COLLECT_COMPILE_TIME": "OFF",
        "TEST_SUITE_COLLECT_CODE_SIZE": "OFF",
    }


def read_cache(build: Path) -> Dict[str, str]:
    cache = build / "CMakeCache.txt"
    entries = {}
    if cache.is_file():
        for line in cache.read_text().splitlines():
            m = re.match(r"^([A-Za-z_0-9]+):[A-Z]+=(.*)$", line)
            if m:
                entries[m.group(1)] = m.group(2)
    return entries


def configure_and_build(args: argparse.Namespace, settings: Optional[Dict[str, str]] = None,
                        keep_going: bool = False) -> dict:
    """Configures the build unless it already is (same compilers, flags and
    options, and every requested program among its subdirectories), then
    builds the requested programs' directories; ninja does nothing if they
    are up to date. A build configured for more programs is reused as is.

    settings: the CMake cache entries (default build_settings(args)).
    keep_going: ninja -k 0, and a failed build is returned (`build_error`,
    the log's tail) instead of raised, so that the caller can tell which
    targets were built."""
    build, wanted = args.build, settings or build_settings(args)
    cache = read_cache(build)
    programs = [f"{BENCHMARKS}/{p}" for p in args.programs]
    reason = None
    if not cache:
        reason = "not configured yet"
        subdirs = programs
    else:
        home = cache.get("CMAKE_HOME_DIRECTORY", "")
        if Path(home).resolve() != args.testsuite or cache.get("CMAKE_GENERATOR") != "Ninja":
            raise LinkError(f"{build} is a build of {home} with {cache.get('CMAKE_GENERATOR')}, "
                            f"not of {args.testsuite} with Ninja: give another --build or "
                            f"remove it")
        for key in ("CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER"):
            if cache.get(key) != wanted[key]:
                raise LinkError(f"{build} is configured with {key}={cache.get(key)}, not "
                                f"{wanted[key]} (CMake cannot change compilers in place): "
                                f"give another --build or remove it")
        differing = [k for k, v in wanted.items() if cache.get(k) != v]
        configured = [s for s in cache.get("TEST_SUITE_SUBDIRS", "").split(";") if s]
        subdirs = configured + [p for p in programs if p not in configured]
        if differing:
            reason = "other settings: " + ", ".join(
                f"{k}={cache.get(k)!r} (wanted {wanted[k]!r})" for k in differing)
        elif len(subdirs) != len(configured):
            reason = "adding " + ", ".join(subdirs[len(configured):])
    configure = ["cmake", "-G", "Ninja", "-S", str(args.testsuite), "-B", str(build),
                 *(f"-D{k}={v}" for k, v in wanted.items()),
                 f"-DTEST_SUITE_SUBDIRS={';'.join(subdirs)}"]
    build.mkdir(parents=True, exist_ok=True)
    if build == (BENCH_DIR / "out-realcode").resolve():
        (build / ".gitignore").write_text("*\n")  # the default work dir ignores itself
    result = {"configure": configure, "configured_now": reason is not None,
              "configure_reason": reason, "subdirs": subdirs}
    if reason:
        print(f"configuring {build} ({reason})", flush=True)
        run_logged(configure, "cmake", build / "realcode-configure.log")
    else:
        print(f"reusing the configured build in {build}", flush=True)
    ninja = ["ninja", "-C", str(build), f"-j{args.build_jobs}",
             *(["-k", "0"] if keep_going else []), *(f"{p}/all" for p in programs)]
    error = None
    try:
        cpu, wall = run_logged(ninja, "the build", build / "realcode-build.log")
    except LinkError as e:
        if not keep_going:
            raise
        cpu = wall = None
        error = str(e)
    steps = sum(1 for line in (build / "realcode-build.log").read_text().splitlines()
                if line.startswith("["))
    if error:
        print(f"built with errors: {steps} ninja steps (see {build / 'realcode-build.log'})",
              flush=True)
    else:
        print(f"built: {steps} ninja steps, cpu {cpu:.1f} s, wall {wall:.1f} s", flush=True)
    result.update(build_argv=ninja, build_steps=steps, build_cpu_s=cpu, build_wall_s=wall,
                  build_error=error)
    return result


def ninja_out(build: Path, *tool: str) -> str:
    proc = subprocess.run(["ninja", "-C", str(build), "-t", *tool],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise LinkError(f"ninja -t {' '.join(tool)} in {build} failed:\n{proc.stderr}")
    return proc.stdout


def link_step(command: str, output: str, build: Path) -> Tuple[List[str], Path]:
    """The link among a CMake command's `&&`-joined steps (`: && <link> && cd
    <dir> && cmake -E create_symlink ...`): the step with `-o <output>`, and
    the directory it runs in (the build's, unless an earlier step cd'd)."""
    cwd = build
    step: List[str] = []
    for token in shlex.split(command) + ["&&"]:
        if token != "&&":
            step.append(token)
            continue
        if step[:1] == ["cd"] and len(step) == 2:
            cwd = (cwd / step[1]).resolve()
        elif "-o" in step and step.index("-o") + 1 < len(step) and \
                step[step.index("-o") + 1] == output:
            return step, cwd
        step = []
    raise LinkError(f"no link step writing {output} in:\n  {command}")


def is_bitcode(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(4) in BITCODE_MAGIC
    except OSError:
        return False


def find_targets(args: argparse.Namespace) -> List[Target]:
    """Every executable of the requested programs whose link line has bitcode,
    in ninja's order."""
    targets = []
    for line in ninja_out(args.build, "targets", "all").splitlines():
        m = EXE_TARGET.match(line)
        if not m:
            continue
        name = m.group(1)
        program = next((p for p in args.programs
                        if name.startswith(f"{BENCHMARKS}/{p}/")), None)
        if program is None:
            continue  # another program, or the suite's tools (timeit, fpcmp)
        command = ninja_out(args.build, "commands", "-s", name).strip().splitlines()[-1]
        argv, cwd = link_step(command, name, args.build)
        out_at = argv.index("-o") + 1
        modules = sum(1 for i, a in enumerate(argv[1:], 1)
                      if i != out_at and not a.startswith("-") and is_bitcode(cwd / a))
        if modules:
            targets.append(Target(name, program, argv, cwd, modules))
        else:
            print(f"  skipped {name}: no bitcode on its link line", flush=True)
    return targets


def parse_programs(text: str) -> List[str]:
    """--programs: `;`-separated MultiSource/Benchmarks subdirectories, the
    prefix optional. ValueError names the unknown ones."""
    programs = [p.strip().strip("/") for p in text.split(";") if p.strip()]
    programs = [p[len(BENCHMARKS) + 1:] if p.startswith(BENCHMARKS + "/") else p
                for p in programs]
    unknown = [p for p in programs if p not in PROGRAMS]
    if unknown or not programs:
        raise ValueError(f"unknown programs {unknown}; choose from {', '.join(PROGRAMS)}")
    return programs


def set_link_environment(args: argparse.Namespace) -> Optional[Path]:
    """No make jobserver from outside (ulto dist would obey it, not --dist-jobs)
    and, unless --shared-slots, a private slot pool: other people's ulto
    links on the machine must not hold this run's links back."""
    for name in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        os.environ.pop(name, None)
    if args.shared_slots:
        return None
    runtime = args.build / "runtime"
    shutil.rmtree(runtime, ignore_errors=True)
    runtime.mkdir(parents=True, mode=0o700)
    os.environ["XDG_RUNTIME_DIR"] = str(runtime)
    return runtime


def check_build_tools(args: argparse.Namespace) -> None:
    needed = [args.ulto_bin / n for n in ("ulto-clang", "ulto-clang++", "ld.ulto", "ulto")]
    needed += [LLVM_BIN / n for n in ("clang", "clang++", "ld.lld")]
    missing = [str(p) for p in needed if not os.access(p, os.X_OK)]
    missing += [t for t in ("cmake", "ninja") if shutil.which(t) is None]
    if not (args.testsuite / "CMakeLists.txt").is_file():
        missing.append(str(args.testsuite / "CMakeLists.txt"))
    if missing:
        raise LinkError("missing (or not executable):\n  " + "\n  ".join(missing))


# lit's timeit module (litsupport/modules/timeit.py) runs every benchmark with these.
TIMEIT_LIMITS = ["--limit-core", "0", "--limit-file-size", "209715200",
                 "--limit-rss-size", "838860800"]


@dataclass
class TestSpec:
    """How the suite runs and checks a program (its generated .test file)."""
    testdir: Path           # %S
    workdir: Path
    args: List[str]
    stdin: Optional[Path]
    verify: List[str]       # shell commands, %S substituted; %o and %b left


@dataclass
class Exe:
    """One executable, as built by every configuration."""
    name: str                                   # relative to a build directory
    program: str
    link: Dict[str, Target] = field(default_factory=dict)   # config ->
    jobs: Dict[str, List[Job]] = field(default_factory=dict)  # config ->
    sources: List[Tuple[str, int]] = field(default_factory=list)  # (source, bytes)
    test: Dict[str, TestSpec] = field(default_factory=dict)       # config ->
    failed: Dict[str, str] = field(default_factory=dict)  # config or binary -> why
    compile_cpu: Dict[str, List[Optional[float]]] = field(default_factory=dict)
    compile_wall: Dict[str, List[Optional[float]]] = field(default_factory=dict)
    link_cpu: Dict[str, List[Optional[float]]] = field(default_factory=dict)
    link_wall: Dict[str, List[Optional[float]]] = field(default_factory=dict)
    size: Dict[str, List[dict]] = field(default_factory=dict)    # binary -> per link
    runs: Dict[str, List[List[dict]]] = field(default_factory=dict)  # binary -> round -> runs

    @property
    def short(self) -> str:
        prefix = BENCHMARKS + "/"
        return self.name[len(prefix):] if self.name.startswith(prefix) else self.name


def parse_test(path: Path, target: str) -> TestSpec:
    """The RUN and VERIFY lines of a generated .test file. Every program of
    the subset has one `cd %S ; %S/<exe> <args> [< input]` RUN line."""
    testdir = path.parent
    run, verify = [], []
    for line in path.read_text().splitlines():
        key, _, rest = line.partition(":")
        rest = rest.strip().replace("%S", str(testdir))
        if key == "RUN":
            run.append(rest)
        elif key == "VERIFY":
            verify.append(rest)
        elif key == "PREPARE":
            raise LinkError(f"{path}: PREPARE lines are not supported: {line}")
    if len(run) != 1:
        raise LinkError(f"{path}: expected one RUN line, found {len(run)}")
    workdir, command = testdir, None
    for part in run[0].split(";"):
        tokens = shlex.split(part)
        if tokens[:1] == ["cd"] and len(tokens) == 2:
            workdir = Path(tokens[1])
        elif tokens and command is None:
            command = tokens
        elif tokens:
            raise LinkError(f"{path}: unsupported RUN line: {run[0]}")
    exe = str(testdir / Path(target).name)
    if not command or command[0] != exe:
        raise LinkError(f"{path}: RUN line does not run {exe}: {run[0]}")
    args, stdin, i = [], None, 1
    while i < len(command):
        tok = command[i]
        if tok == "<" and i + 1 < len(command):
            stdin = workdir / command[i + 1]
            i += 2
            continue
        if any(c in tok for c in "<>|&"):
            raise LinkError(f"{path}: unsupported RUN line: {run[0]}")
        args.append(tok)
        i += 1
    return TestSpec(testdir, workdir, args, stdin, verify)


def relink_path(args: argparse.Namespace, binary: str, exe: Exe) -> Path:
    return args.out / "relink" / binary / exe.name


def llvm_size(path: Path) -> dict:
    proc = subprocess.run([str(LLVM_BIN / "llvm-size"), "--format=berkeley", str(path)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise LinkError(f"llvm-size {path} failed:\n{proc.stderr}")
    text, data, bss = (int(x) for x in proc.stdout.splitlines()[1].split()[:3])
    return {"text": text, "data": data, "bss": bss, "text_data": text + data,
            "file": path.stat().st_size}


def read_summary(path: Path) -> Dict[str, float]:
    values = {}
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) == 2:
            values[parts[0]] = float(parts[1])
    return values


def run_exe(exe: Exe, binary: str, args: argparse.Namespace, r: int, k: int) -> None:
    """Runs the binary as lit's timeit module does (traditional output), then
    the .test file's VERIFY lines on its output."""
    config = binary.split("-")[0]
    test = exe.test[config]
    out_dir = args.out / "runs" / binary / Path(exe.name).parent
    out_dir.mkdir(parents=True, exist_ok=True)
    base = out_dir / Path(exe.name).name
    output, summary = base.with_name(base.name + ".out"), base.with_name(base.name + ".time")
    output.unlink(missing_ok=True)
    summary.unlink(missing_ok=True)
    # lit creates its temporary directory, %S/Output, before it runs a test;
    # some programs write there (sim: Output/sim.res).
    (test.testdir / "Output").mkdir(exist_ok=True)
    timeout = str(args.run_timeout)
    argv = [str(args.tools / "timeit-target"), "--timeout", timeout, "--limit-cpu", timeout,
            *TIMEIT_LIMITS, "--append-exitstatus", "--redirect-output", str(output),
            "--redirect-input", str(test.stdin or "/dev/null"), "--chdir", str(test.workdir),
            "--summary", str(summary), str(relink_path(args, binary, exe)), *test.args]
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    what = f"round {r + 1} run {k + 1}: {exe.short} [{binary}]"
    if proc.returncode != 0 or not summary.is_file():
        fail(exe, binary, f"{what}: timeit-target failed (exit {proc.returncode}):\n  "
             f"{shlex.join(argv)}\n{proc.stderr[-2000:]}")
        return
    times = read_summary(summary)
    record = {"user": times["user"], "sys": times["sys"], "real": times["real"],
              "cpu": times["user"] + times["sys"], "exit": int(times["exit"])}
    saved = output.with_name(output.name + ".raw")
    shutil.copyfile(output, saved)  # VERIFY may rewrite it (HashProgramOutput.sh)
    for line in test.verify:
        cmd = line.replace("%o", shlex.quote(str(output))).replace("%b", str(args.tools))
        check = subprocess.run(["/bin/sh", "-c", cmd], cwd=test.workdir,
                               capture_output=True, text=True)
        if check.returncode != 0:
            record["verified"] = False
            exe.runs[binary][r].append(record)
            fail(exe, binary, f"{what}: output does not verify (program exit status "
                 f"{record['exit']}; its output is in {saved}):\n  {cmd}\n"
                 f"{(check.stdout + check.stderr)[-2000:]}")
            return
    record["verified"] = True
    exe.runs[binary][r].append(record)


def fail(exe: Exe, key: str, why: str) -> None:
    """key (a configuration or a binary) leaves the run for this executable."""
    if key not in exe.failed:
        exe.failed[key] = why
        print(f"  PROBLEM {why}", flush=True)


def add_programs_option(ap: argparse.ArgumentParser) -> None:
    """--programs, all 15 by default; programs_of() reads it."""
    ap.add_argument("--programs", default=";".join(f"{BENCHMARKS}/{p}" for p in PROGRAMS),
                    help="';'-separated MultiSource/Benchmarks subdirectories "
                         "(default: all 15; the MultiSource/Benchmarks/ prefix is optional)")


def programs_of(ap: argparse.ArgumentParser, text: str) -> List[str]:
    """parse_programs(text); unknown programs are argparse's error."""
    try:
        return parse_programs(text)
    except ValueError as e:
        ap.error(str(e))


def add_testsuite_option(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--testsuite", type=Path, default=REPO.parent / "shared" / "testsuite",
                    help="the test-suite subset (default <repo>/../shared/testsuite)")
