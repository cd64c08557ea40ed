"""realworld.py --sdk: the prebuilt bitcode SDK on real C++ libraries.

Each library is compiled **once** with `ulto-clang++ -O2 -flto -funified-lto
-fvisibility=hidden` into static archives (the SDK; `ulto sdk check` is run on
them). Its consumers, the project's own tests, are compiled in three kinds:

  plain  -O2
  cfi    -O2 -fsanitize=cfi -fvisibility=hidden
  wpd    -O2 -fwhole-program-vtables -fvisibility=hidden
         (linked with -Wl,--lto-whole-program-visibility, docs/SDK.md)

by ulto-clang++ (`-flto -funified-lto`) and by stock clang-22 (`-flto=thin
-funified-lto`), and every kind is linked against the one SDK in five modes:

  ulto-thin ulto-full ulto-dist   ulto-clang++ -flto=<mode> -funified-lto
                                  (ld.ulto; distributed: a fresh cache of the
                                  cell's own, --no-dist-service)
  lld-thin lld-full               clang-22 -fuse-ld=lld -Wl,--lto=<mode>

and run.

--fat compiles the SDK with -ffat-lto-objects too: each object holds the
bitcode above and a plain -O2 compile's native code. The modes above link the
bitcode (lld-thin and lld-full told so by -ffat-lto-objects on the link line),
and the plain consumers are linked in three more modes, without LTO, against
the same archives' native code:

  clang-lld   clang++-22 -O2, linked -fno-lto -fuse-ld=lld
  gcc-bfd     g++ -O2, linked by GNU ld
  mold        g++ -O2, linked -fuse-ld=mold

The reference is plain/lld-thin: a cell passes when it links and
every test that passes in the reference passes in it (a GoogleTest test that
fails runs once more alone, and passing then is listed as flaky). When a CFI
cell fails,
the failing programs are built again with diagnostics
(-fno-sanitize-trap=cfi -fsanitize-recover=cfi), once by ulto against the
SDK and once classically by clang-22 alone (library and consumer compiled
-flto -fsanitize=cfi -fvisibility=hidden, no -funified-lto, full LTO), and
the "control flow integrity check" reports of both are listed: a report of
both is the project's.

--fat-cost RUNS links nothing: it compiles each library's archives RUNS times
in three ways, interleaved (bitcode, fat, plain, bitcode, ...), each with
ninja -j1: bitcode (the SDK's flags), fat (and -ffat-lto-objects) and plain
(clang++-22 -O2 -fvisibility=hidden, no LTO), and prints each way's compile
CPU (user+sys, min and median of the runs), its archives' bytes, and fat's
ratios to bitcode and to bitcode + plain (a vendor's two libraries).
"""

import json
import os
import re
import shlex
import shutil
import signal
import statistics
import sys
import time
from pathlib import Path
from typing import Dict, List

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # bench/ultobench
from ultobench import projects  # noqa: E402  (after the sys.path setup)
from ultobench.projects import fetch, log, run_step, tally  # noqa: E402
from ultobench.toolchain import LLVM_BIN  # noqa: E402

KINDS = {
    "plain": {"compile": [], "link": []},
    "cfi": {"compile": ["-fsanitize=cfi", "-fvisibility=hidden"],
            "link": ["-fsanitize=cfi", "-fvisibility=hidden"]},
    "wpd": {"compile": ["-fwhole-program-vtables", "-fvisibility=hidden"],
            "link": ["-fwhole-program-vtables", "-Wl,--lto-whole-program-visibility"]},
}
# link mode -> the compiler of the consumers it links
MODES = {"ulto-thin": "ulto", "ulto-full": "ulto", "ulto-dist": "ulto",
         "lld-thin": "stock", "lld-full": "stock"}
# --fat: links without LTO, of the SDK's native code (plain consumers only)
NATIVE_MODES = {"clang-lld": "clang", "gcc-bfd": "gcc", "mold": "gcc"}
COMPILER = {**MODES, **NATIVE_MODES}
REFERENCE = ("plain", "lld-thin")
SDK_FLAGS = ["-O2", "-flto", "-funified-lto", "-fvisibility=hidden"]
FAT = ["-ffat-lto-objects"]
CFI_DIAG = ["-fno-sanitize-trap=cfi", "-fsanitize-recover=cfi"]

GT = "{googletest}/googletest"
GM = "{googletest}/googlemock"
LDB = "{leveldb}"
# Recipes. Paths start with {package} (the package's sources). "cflags" are
# the library's own, given to its consumers too; "deps" are other SDKs the
# consumers link (their cflags and archives come along). A consumer is one
# program: sources, archives (first to last), how its output is counted
# (gtest, catch-xml, pugixml) and where it runs ({src}: the package's tree).
SDK_RECIPES = [
    {
        "name": "googletest", "packages": ["googletest"],
        "cflags": [f"-I{GT}/include", f"-I{GT}", f"-I{GM}/include", f"-I{GM}"],
        "archives": {
            "libgtest.a": [f"{GT}/src/{f}.cc" for f in (
                "gtest", "gtest-assertion-result", "gtest-death-test", "gtest-filepath",
                "gtest-matchers", "gtest-port", "gtest-printers", "gtest-test-part",
                "gtest-typed-test")]
            + [f"{GM}/src/{f}.cc" for f in (
                "gmock", "gmock-cardinalities", "gmock-internal-utils", "gmock-matchers",
                "gmock-spec-builders")],
            "libgtest_main.a": [f"{GT}/src/gtest_main.cc"],
        },
        "ldlibs": ["-lpthread"],
        "consumers": {
            "samples": {"srcs": [f"{GT}/samples/sample{i}_unittest.cc" for i in range(1, 9)]
                        + [f"{GT}/samples/sample{i}.cc" for i in (1, 2, 4)],
                        "libs": ["libgtest_main.a", "libgtest.a"], "tests": "gtest"},
            "sample9": {"srcs": [f"{GT}/samples/sample9_unittest.cc"],
                        "libs": ["libgtest.a"], "tests": "gtest"},
            "sample10": {"srcs": [f"{GT}/samples/sample10_unittest.cc"],
                         "libs": ["libgtest.a"], "tests": "gtest"},
        },
    },
    {
        "name": "leveldb", "packages": ["leveldb"],
        "deps": ["googletest"], "dep_libs": {"googletest": ["libgtest.a"]},
        "cflags": [f"-I{LDB}", f"-I{LDB}/include", "-DLEVELDB_PLATFORM_POSIX=1",
                   "-DHAVE_FDATASYNC=1", "-DHAVE_O_CLOEXEC=1"],
        "archives": {"libleveldb.a": {"glob": [
            "db/*.cc", "table/*.cc", "util/*.cc", "helpers/memenv/*.cc"],
            "exclude": r"_test\.cc$|_bench|leveldbutil|env_windows|testutil"}},
        "ldlibs": ["-lbenchmark", "-lpthread"],  # db_test's benchmark: Debian's libbenchmark
        # each test has its own main(); the Env, Comparator, Iterator, Cache users
        "consumers": {t.split("/")[-1][:-3]: {
            "srcs": [f"{LDB}/{t}", f"{LDB}/util/testutil.cc"], "libs": ["libleveldb.a"],
            "tests": "gtest", "env": {"TEST_TMPDIR": "{cell}/tmp"},
            # not DBTest.MultiThreaded: 40 s of mostly sleeping, in each cell
            "args": ["--gtest_filter=-DBTest.MultiThreaded"] if t == "db/db_test.cc" else []}
            for t in (
                "db/db_test.cc", "db/fault_injection_test.cc", "db/corruption_test.cc",
                "table/table_test.cc", "helpers/memenv/memenv_test.cc", "util/env_test.cc",
                "util/cache_test.cc")},
    },
    {
        "name": "pugixml", "packages": ["pugixml"],
        "cflags": ["-I{pugixml}/src"],
        "archives": {"libpugixml.a": ["{pugixml}/src/pugixml.cpp"]},
        "consumers": {"pugixml-check": {
            "srcs": {"glob": ["tests/*.cpp"], "exclude": r"fuzz_"},
            "libs": ["libpugixml.a"], "tests": "pugixml", "cwd": "{pugixml}"}},
    },
    {
        # spdlog's compiled library and fmt's (Debian's spdlog +ds has no
        # bundled fmt: fmt 9.1 from fmtlib's sources, as Debian builds it);
        # its tests include Debian's catch2 (apt-get install catch2)
        "name": "spdlog", "packages": ["spdlog", "fmtlib"],
        "cflags": ["-I{spdlog}/include", "-I{fmtlib}/include", "-DSPDLOG_COMPILED_LIB",
                   "-DSPDLOG_FMT_EXTERNAL"],
        "archives": {"libspdlog.a": [f"{{spdlog}}/src/{f}.cpp" for f in (
            "spdlog", "stdout_sinks", "color_sinks", "file_sinks", "async", "cfg")]
            + ["{fmtlib}/src/format.cc", "{fmtlib}/src/os.cc"]},
        "ldlibs": ["-lpthread"],
        "consumers": {"spdlog-utests": {
            "srcs": [f"{{spdlog}}/tests/{f}.cpp" for f in (
                "test_file_helper", "test_file_logging", "test_daily_logger", "test_misc",
                "test_pattern_formatter", "test_async", "test_registry", "test_macros",
                "utils", "main", "test_mpmc_q", "test_dup_filter", "test_fmt_helper",
                "test_stdout_api", "test_backtrace", "test_create_dir", "test_cfg",
                "test_time_point", "test_stopwatch", "test_errors")],
            "libs": ["libspdlog.a"], "tests": "catch-xml", "args": ["-r", "xml"]}},
    },
]


# ---------------------------------------------------------------- building --

class Ctx:
    """What every step of one --sdk run shares."""

    def __init__(self, work: Path, cache: Path, jobs: int, keep: bool, fat: bool = False):
        self.work, self.cache, self.jobs, self.keep, self.fat = work, cache, jobs, keep, fat
        self.sdk_flags = SDK_FLAGS + (FAT if fat else [])
        self.dirs: Dict[str, str] = {}    # package -> its sources' copy
        self.sdks: Dict[str, Dict] = {}   # library -> build_sdk()'s result
        self.first = ""                   # the package of relative globs
        self.env = dict(os.environ)
        for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "CFLAGS", "CXXFLAGS", "LDFLAGS"):
            self.env.pop(k, None)

    def sources(self, package: str) -> str:
        """The package's sources, copied once per run into <work>/src."""
        if package not in self.dirs:
            src = fetch(package, self.cache)
            dest = self.work / "src" / package
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(src, dest, symlinks=True)
            self.dirs[package] = str(dest)
        return self.dirs[package]

    def fmt(self, s: str, **more) -> str:
        return s.format(**self.dirs, **more)


def expand(ctx: Ctx, spec) -> List[str]:
    """A list of sources, or {"glob": [...], "exclude": regex}."""
    if isinstance(spec, list):
        return [ctx.fmt(s) for s in spec]
    out: List[str] = []
    for g in spec["glob"]:
        g = ctx.fmt(g)
        if not g.startswith("/"):  # relative to the recipe's first package
            g = f"{ctx.dirs[ctx.first]}/{g}"
        out += sorted(str(p) for p in Path("/").glob(g.lstrip("/")))
    return [s for s in out if not re.search(spec.get("exclude", "^$"), s)]


def compile_objs(ctx: Ctx, srcs: List[str], cmd: List[str], objdir: Path,
                 logf) -> (Dict, List[str]):
    """Compiles srcs (cmd + -c src -o obj) with ninja -j<jobs>: one timed step."""
    objdir.mkdir(parents=True, exist_ok=True)
    top = str(ctx.work / "src")
    objs, lines = [], ["rule cc\n  command = $cmd\n  description = $out\n"]
    for s in srcs:
        obj = str(objdir / (os.path.relpath(s, top).replace("/", "__") + ".o"))
        objs.append(obj)
        lines.append(f"build {obj}: cc {s}\n  cmd = {shlex.join(cmd + ['-c', s, '-o', obj])}\n")
    (objdir / "build.ninja").write_text("\n".join(lines))
    step = run_step(["ninja", "-j", str(ctx.jobs), "-f", str(objdir / "build.ninja")],
                       objdir, ctx.env, logf, 7200)
    return step, objs


def build_archives(ctx: Ctx, rec: Dict, cmd: List[str], outdir: Path, logf) -> Dict:
    """Every archive of the recipe, its sources compiled by cmd."""
    ctx.first = rec["packages"][0]
    res: Dict = {"archives": {}, "ok": True, "cpu": 0.0, "wall": 0.0, "compile_cpu": 0.0}
    for name, spec in rec["archives"].items():
        srcs = expand(ctx, spec)
        step, objs = compile_objs(ctx, srcs, cmd, outdir / (name + ".obj"), logf)
        lib = outdir / name
        if lib.exists():
            lib.unlink()
        ar = run_step([str(projects.ULTO_BIN / "llvm-ar"), "rcs", str(lib)] + objs, outdir,
                         ctx.env, logf, 600)
        for s in (step, ar):
            res["cpu"] = round(res["cpu"] + s["cpu"], 2)
            res["wall"] = round(res["wall"] + s["wall"], 2)
        res["compile_cpu"] = round(res["compile_cpu"] + step["cpu"], 2)
        res["ok"] &= step["rc"] == 0 and ar["rc"] == 0
        res["archives"][name] = {"path": str(lib), "members": len(objs)}
    return res


def build_sdk(ctx: Ctx, rec: Dict, byname: Dict[str, Dict]) -> Dict:
    """The SDK, compiled once per run (with the SDKs it depends on)."""
    if rec["name"] in ctx.sdks:
        return ctx.sdks[rec["name"]]
    for d in rec.get("deps", []):
        build_sdk(ctx, byname[d], byname)
    for p in rec["packages"]:
        ctx.sources(p)
    outdir = ctx.work / rec["name"] / "sdk"
    if outdir.exists():
        shutil.rmtree(outdir)
    outdir.mkdir(parents=True)
    cmd = ([str(projects.ULTO_BIN / "ulto-clang++")] + ctx.sdk_flags
           + [ctx.fmt(f) for f in rec["cflags"]])
    log(f"{rec['name']}: SDK: {shlex.join(cmd[:len(ctx.sdk_flags) + 1])} ...")
    with open(outdir / "sdk.log", "w") as logf:
        res = build_archives(ctx, rec, cmd, outdir, logf)
        res["compile"] = shlex.join(cmd)
        start = logf.tell()
        libs = [a["path"] for a in res["archives"].values()]
        chk = run_step([str(projects.ULTO_BIN / "ulto"), "sdk", "check"] + libs, outdir,
                          ctx.env, logf, 600)
    res["sdk_check"] = {"rc": chk["rc"], "output": Path(logf.name).read_bytes()[start:]
                        .decode(errors="replace").strip().splitlines()[1:-1]}
    res["log"] = str(outdir / "sdk.log")
    ctx.sdks[rec["name"]] = res
    log(f"{rec['name']}: SDK {'ok' if res['ok'] else 'FAILED'}, {res['cpu']}s CPU; "
           f"sdk check: {'universal' if chk['rc'] == 0 else 'NOT universal'}")
    return res


def consumer_flags(ctx: Ctx, rec: Dict, byname: Dict[str, Dict]) -> (List[str], List[str]):
    """The consumers' -I/-D flags and link libraries, the deps' included."""
    cflags = [ctx.fmt(f) for f in rec["cflags"]]
    ldlibs = list(rec.get("ldlibs", []))
    for d in rec.get("deps", []):
        dc, dl = consumer_flags(ctx, byname[d], byname)
        cflags += dc
        ldlibs += [x for x in dl if x not in ldlibs]
    return cflags, ldlibs


def archives_of(ctx: Ctx, rec: Dict, byname: Dict[str, Dict], con: Dict,
                where: Dict[str, Dict]) -> List[str]:
    """A consumer's archives, its own first then the deps' (their libs listed in
    the recipe's "dep_libs"); where: library -> archive name -> path."""
    libs = [where[rec["name"]][a] for a in con["libs"]]
    for d in rec.get("deps", []):
        libs += [where[d][a] for a in rec["dep_libs"][d]]
    return libs


def compile_cmd(compiler: str, kind: str, cflags: List[str], extra: List[str] = ()) -> List[str]:
    head = {"ulto": [str(projects.ULTO_BIN / "ulto-clang++"), "-O2", "-flto", "-funified-lto"],
            "stock": [str(LLVM_BIN / "clang++"), "-O2", "-flto=thin", "-funified-lto"],
            "clang": [str(LLVM_BIN / "clang++"), "-O2"],  # NATIVE_MODES'
            "gcc": ["g++", "-O2"]}[compiler]
    return head + KINDS[kind]["compile"] + list(extra) + cflags


def link_cmd(mode: str, kind: str, dist_cache: Path, extra: List[str] = (),
             fat: bool = False) -> List[str]:
    """The link command of one mode, to be followed by its inputs and -o (fat:
    stock lld links the fat SDK's bitcode)."""
    k = KINDS[kind]["link"] + list(extra)
    if mode.startswith("ulto-"):
        m = {"ulto-thin": "thin", "ulto-full": "full", "ulto-dist": "distributed"}[mode]
        cmd = [str(projects.ULTO_BIN / "ulto-clang++"), "-O2", f"-flto={m}", "-funified-lto"] + k
        if m == "distributed":
            cmd += [f"-Wl,--dist-cache-dir={dist_cache}", "-Wl,--no-dist-service"]
        return cmd
    if mode in NATIVE_MODES:
        return {"clang-lld": [str(LLVM_BIN / "clang++"), "-O2", "-fno-lto", "-fuse-ld=lld"],
                "gcc-bfd": ["g++", "-O2", "-fuse-ld=bfd"],
                "mold": ["g++", "-O2", "-fuse-ld=mold"]}[mode] + k
    return [str(LLVM_BIN / "clang++"), "-O2", "-flto=thin", "-funified-lto",
            "-fuse-ld=lld", f"-Wl,--lto={mode[4:]}"] + (FAT if fat else []) + k


# ------------------------------------------------------------------ tests --

GTEST_OK = re.compile(r"^\[       OK \] (\S+) \(\d+ ms\)", re.M)
GTEST_FAILED = re.compile(r"^\[  FAILED  \] ([^\s,]+)(?:, where .*)? \(\d+ ms\)", re.M)
CATCH_CASE = re.compile(r'<TestCase name="([^"]*)"|<OverallResult success="(true|false)"')
PUGI_FAILED = re.compile(r"^Test (.+?) failed", re.M)
PUGI_SUMMARY = re.compile(r"^(?:Success: (\d+) tests passed|FAILURE: (\d+) out of (\d+) "
                          r"tests failed)", re.M)


def parse_tests(kind: str, text: str) -> (List[str], List[str]):
    """(passed, failed) test names of one program's output."""
    if kind == "gtest":
        return GTEST_OK.findall(text), GTEST_FAILED.findall(text)
    if kind == "catch-xml":
        passed, failed, name = [], [], None
        for m in CATCH_CASE.finditer(text):
            if m.group(1) is not None:
                name = m.group(1)
            elif name is not None:
                (passed if m.group(2) == "true" else failed).append(name)
                name = None
        return passed, failed
    if kind == "pugixml":  # names only the failures: the passes are counted
        failed = PUGI_FAILED.findall(text)
        m = PUGI_SUMMARY.search(text)
        total = int(m.group(1) or m.group(3)) if m else len(failed)
        return [f"#{i + 1}" for i in range(total - len(failed))], failed
    raise ValueError(kind)


def run_program(ctx: Ctx, name: str, con: Dict, exe: Path, cell: Path, logf,
                env_extra: Dict[str, str] = None) -> Dict:
    """Runs one consumer; its tests, each named <program>:<test>."""
    cwd = Path(ctx.fmt(con.get("cwd", str(cell)), cell=cell))
    env = dict(ctx.env, **{k: ctx.fmt(v, cell=cell) for k, v in con.get("env", {}).items()},
               **(env_extra or {}))
    for v in con.get("env", {}).values():
        Path(ctx.fmt(v, cell=cell)).mkdir(parents=True, exist_ok=True)
    logf.flush()
    start = logf.tell()
    step = run_step([str(exe)] + con.get("args", []), cwd, env, logf, con.get("timeout", 900))
    text = Path(logf.name).read_bytes()[start:].decode(errors="replace")
    passed, failed = parse_tests(con["tests"], text)
    flaky: List[str] = []
    if con["tests"] == "gtest" and failed and len(failed) <= 5:
        # GoogleTest's failing tests once more, on their own: those that pass
        # then are listed as flaky (leveldb's timing tests)
        only = ["--gtest_filter=" + ":".join(failed)]
        again = run_step([str(exe)] + con.get("args", []) + only, cwd, env, logf,
                            con.get("timeout", 900))
        text2 = Path(logf.name).read_bytes()[start:].decode(errors="replace")[len(text):]
        flaky = [t for t in GTEST_OK.findall(text2) if t in failed]
        failed = [t for t in failed if t not in flaky]
        passed += flaky
        step["rc"] = again["rc"] if step["rc"] == 1 and not again["timed_out"] else step["rc"]
    passed, failed = [f"{name}:{t}" for t in passed], [f"{name}:{t}" for t in failed]
    rc = step["rc"]
    if rc < 0 or step["timed_out"] or (rc and not failed) or not (passed or failed):
        why = ("timed out" if step["timed_out"] else
               f"killed by {signal.Signals(-rc).name}" if rc < 0 else f"exit {rc}")
        failed.append(f"{name}: {why}")
    return {"step": step, "passed": passed, "failed": failed,
            "flaky": [f"{name}:{t}" for t in flaky],
            "cfi_reports": cfi_reports(text), "tail": text.splitlines()[-12:]}


CFI_REPORT = re.compile(r"^(\S+: runtime error: control flow integrity check .*)$", re.M)


def cfi_reports(text: str) -> List[str]:
    """UBSan's CFI reports, addresses left out, each once."""
    out: List[str] = []
    for m in CFI_REPORT.finditer(text):
        r = re.sub(r"\s*\(vtable address 0x[0-9a-f]+\)", "", m.group(1))
        r = re.sub(r"0x[0-9a-f]+", "0x…", r)
        if r not in out:
            out.append(r)
    return out


# ------------------------------------------------------------------ cells --

def run_cell(ctx: Ctx, rec: Dict, byname: Dict[str, Dict], kind: str, mode: str,
             objs: Dict[str, List[str]], ldlibs: List[str]) -> Dict:
    """Links every consumer of one kind in one mode, and runs them."""
    cell = ctx.work / rec["name"] / f"{kind}-{mode}"
    if cell.exists():
        shutil.rmtree(cell)
    cell.mkdir(parents=True)
    where = {n: {a: v["path"] for a, v in s["archives"].items()} for n, s in ctx.sdks.items()}
    res: Dict = {"kind": kind, "mode": mode, "log": str(cell / "cell.log"), "links": {},
                 "runs": {}, "link_cpu": 0.0, "link_wall": 0.0, "passed": [], "failed": []}
    dist_cache = cell / "dist-cache"
    with open(cell / "cell.log", "w") as logf:
        for name, con in rec["consumers"].items():
            exe = cell / name
            cmd = (link_cmd(mode, kind, dist_cache, fat=ctx.fat) + objs[name]
                   + archives_of(ctx, rec, byname, con, where) + ldlibs + ["-o", str(exe)])
            step = run_step(cmd, cell, ctx.env, logf, 3600)
            res["links"][name] = step
            res["link_cpu"] = round(res["link_cpu"] + step["cpu"], 2)
            res["link_wall"] = round(res["link_wall"] + step["wall"], 2)
        res["link_ok"] = all(s["rc"] == 0 for s in res["links"].values())
        for name, con in rec["consumers"].items():
            if res["links"][name]["rc"] == 0:
                r = run_program(ctx, name, con, cell / name, cell, logf)
                res["runs"][name] = r
                for k in ("passed", "failed", "flaky"):
                    res[k] = res.get(k, []) + r[k]
    shutil.rmtree(dist_cache, ignore_errors=True)
    if not ctx.keep:
        for name in rec["consumers"]:
            (cell / name).unlink(missing_ok=True)
    return res


def judge(cells: Dict[str, Dict]) -> None:
    """A cell passes when it links and every test the reference passes passes
    in it (the reference: when it links and its tests ran)."""
    ref = cells.get("/".join(REFERENCE))
    need = set(ref["passed"]) if ref and ref.get("link_ok") else None
    for key, c in cells.items():
        if not c.get("link_ok"):
            c["pass"], c["why"] = False, "link failed: " + ",".join(
                n for n, s in c["links"].items() if s["rc"])
        elif key == "/".join(REFERENCE) or need is None:
            c["pass"] = bool(c["passed"]) and (need is not None or not c["failed"])
            c["why"] = "" if c["pass"] else "; ".join(c["failed"][:6])
        else:
            missing = sorted(need - set(c["passed"]))
            c["pass"] = not missing
            c["why"] = ("failing that pass in the reference: " + ", ".join(missing[:6])
                        + (f" (+{len(missing) - 6})" if len(missing) > 6 else "")
                        + (f"; {'; '.join(x for x in c['failed'] if ': ' in x)}"
                           if any(': ' in x for x in c["failed"]) else "")) if missing else ""


def compile_consumers(ctx: Ctx, rec: Dict, cmd: List[str], objdir: Path, logf,
                      names: List[str] = None) -> (Dict, Dict):
    """The consumers' objects (all, or names), compiled by cmd: (step totals,
    name -> objects)."""
    ctx.first = rec["packages"][0]
    total = {"rc": 0, "cpu": 0.0, "wall": 0.0}
    objs: Dict[str, List[str]] = {}
    for name, con in rec["consumers"].items():
        if names is not None and name not in names:
            continue
        step, objs[name] = compile_objs(ctx, expand(ctx, con["srcs"]), cmd, objdir / name, logf)
        total["rc"] = total["rc"] or step["rc"]
        for k in ("cpu", "wall"):
            total[k] = round(total[k] + step[k], 2)
    return total, objs


def run_library(ctx: Ctx, rec: Dict, byname: Dict[str, Dict], kinds: List[str],
                modes: List[str]) -> Dict:
    lib: Dict = {"sdk": build_sdk(ctx, rec, byname), "compiles": {}, "cells": {}}
    if not all(ctx.sdks[d]["ok"] for d in [rec["name"]] + rec.get("deps", [])):
        lib["error"] = "the SDK did not build"
        return lib
    cflags, ldlibs = consumer_flags(ctx, rec, byname)
    ldir = ctx.work / rec["name"]
    for kind in kinds:
        objs = {}
        kmodes = [m for m in modes if kind == "plain" or m not in NATIVE_MODES]
        for compiler in dict.fromkeys(COMPILER[m] for m in kmodes):
            with open(ldir / f"compile-{compiler}-{kind}.log", "w") as logf:
                cmd = compile_cmd(compiler, kind, cflags)
                step, objs[compiler] = compile_consumers(
                    ctx, rec, cmd, ldir / f"obj-{compiler}-{kind}", logf)
            lib["compiles"][f"{compiler}/{kind}"] = dict(step, command=shlex.join(cmd))
            log(f"{rec['name']} {kind}: consumers compiled by {compiler}: "
                   f"{'ok' if step['rc'] == 0 else 'FAILED'}, {step['cpu']}s CPU")
        for mode in kmodes:
            compiler = COMPILER[mode]
            if lib["compiles"][f"{compiler}/{kind}"]["rc"]:
                lib["cells"][f"{kind}/{mode}"] = {"kind": kind, "mode": mode, "link_ok": False,
                                                  "links": {"<compile>": {"rc": 1}},
                                                  "passed": [], "failed": [], "link_cpu": 0}
                continue
            c = run_cell(ctx, rec, byname, kind, mode, objs[compiler], ldlibs)
            lib["cells"][f"{kind}/{mode}"] = c
            log(f"{rec['name']} {kind} {mode}: link {'ok' if c['link_ok'] else 'FAILED'} "
                   f"{c['link_cpu']}s CPU, tests {len(c['passed'])}/"
                   f"{len(c['passed']) + len(c['failed'])}")
    judge(lib["cells"])
    ref_failed = set(lib["cells"].get("/".join(REFERENCE), {}).get("failed", []))
    failing = sorted({n for k, c in lib["cells"].items()
                      if k.startswith("cfi/") and c.get("link_ok") and not c["pass"]
                      for n, r in c["runs"].items() if set(r["failed"]) - ref_failed})
    if failing:
        lib["cfi_diagnosis"] = diagnose_cfi(ctx, rec, byname, failing, cflags, ldlibs)
    return lib


def diagnose_cfi(ctx: Ctx, rec: Dict, byname: Dict[str, Dict], names: List[str],
                 cflags: List[str], ldlibs: List[str]) -> Dict:
    """The CFI reports of the failing programs: ulto's consumer (CFI with
    diagnostics) against the SDK, linked full; and classic clang-22, library
    and consumer compiled -flto -fsanitize=cfi -fvisibility=hidden, full LTO."""
    ddir = ctx.work / rec["name"] / "cfi-diag"
    if ddir.exists():
        shutil.rmtree(ddir)
    ddir.mkdir(parents=True)
    log(f"{rec['name']}: CFI diagnosis of {', '.join(names)}")
    classic = [str(LLVM_BIN / "clang++"), "-O2", "-flto", "-fsanitize=cfi",
               "-fvisibility=hidden"] + CFI_DIAG
    out: Dict = {"classic_compile": shlex.join(classic), "programs": {}}
    with open(ddir / "diag.log", "w") as logf:
        where = {"ulto": {n: {a: v["path"] for a, v in s["archives"].items()}
                          for n, s in ctx.sdks.items()}, "classic": {}}
        for r in [byname[d] for d in rec.get("deps", [])] + [rec]:
            a = build_archives(ctx, r, classic + [ctx.fmt(f) for f in r["cflags"]],
                               ddir / "classic" / r["name"], logf)
            where["classic"][r["name"]] = {n: v["path"] for n, v in a["archives"].items()}
        objs = {"ulto": compile_consumers(ctx, rec, compile_cmd("ulto", "cfi", cflags, CFI_DIAG),
                                          ddir / "obj-ulto", logf, names)[1],
                "classic": compile_consumers(ctx, rec, classic + cflags, ddir / "obj-classic",
                                             logf, names)[1]}
        links = {"ulto": link_cmd("ulto-full", "cfi", ddir, CFI_DIAG),
                 "classic": [str(LLVM_BIN / "clang++"), "-O2", "-flto", "-fuse-ld=lld",
                             "-fsanitize=cfi", "-fvisibility=hidden"] + CFI_DIAG}
        for name in names:
            con, prog = rec["consumers"][name], {}
            for variant in ("ulto", "classic"):
                exe = ddir / f"{name}-{variant}"
                step = run_step(links[variant] + objs[variant][name]
                                   + archives_of(ctx, rec, byname, con, where[variant])
                                   + ldlibs + ["-o", str(exe)], ddir, ctx.env, logf, 3600)
                prog[variant] = (run_program(ctx, name, con, exe, ddir, logf)["cfi_reports"]
                                 if step["rc"] == 0 else ["<link failed>"])
            prog["both"] = [x for x in prog["ulto"] if x in prog["classic"]]
            prog["ulto_only"] = [x for x in prog["ulto"] if x not in prog["classic"]]
            out["programs"][name] = prog
    out["log"] = str(ddir / "diag.log")
    return out


# ------------------------------------------------------------------ report --

def cell_text(c: Dict) -> str:
    if c is None:
        return "-"
    if not c.get("link_ok"):
        return "LINK FAIL"
    s = f"{len(c['passed'])}/{len(c['passed']) + len(c['failed'])} {c['link_cpu']:.1f}s"
    s += f" {len(c['flaky'])}~" if c.get("flaky") else ""
    return s + ("" if c.get("pass") else " FAIL")


def print_table(report: Dict, modes: List[str]) -> None:
    w = 20
    print(f"{'library':<12}{'kind':<7}" + "".join(f"{m:<{w}}" for m in modes))
    npass = nfail = 0
    for name, lib in report["libraries"].items():
        if lib.get("error"):
            print(f"{name:<12}{'':<7}{lib['error']}")
            nfail += 1
            continue
        for kind in KINDS:
            cells = [lib["cells"].get(f"{kind}/{m}") for m in modes]
            if not any(cells):
                continue
            print(f"{name:<12}{kind:<7}" + "".join(f"{cell_text(c):<{w}}" for c in cells))
            passed, failed = tally(cells)
            npass, nfail = npass + passed, nfail + failed
    print("cell: tests passed/total, link CPU s (every consumer of the cell), N~: N tests "
          "failed and passed when run again alone (flaky); reference (FAIL when a test "
          "it passes fails): plain lld-thin")
    print(f"{npass} passed, {nfail} failed")
    report["summary"] = {"passed": npass, "failed": nfail}
    for name, lib in report["libraries"].items():
        for key, c in lib.get("cells", {}).items():
            if not c.get("pass"):
                print(f"  {name} {key}: {c.get('why', '')}")
            if c.get("flaky"):
                print(f"  {name} {key}: flaky (failed, then passed alone): "
                      + ", ".join(c["flaky"]))
        for prog, d in lib.get("cfi_diagnosis", {}).get("programs", {}).items():
            print(f"  {name} {prog}: CFI reports, ulto (CFI diagnostics, full) "
                  f"{len(d['ulto'])}, classic clang-22 {len(d['classic'])}, both "
                  f"{len(d['both'])}, ulto only {len(d['ulto_only'])}")
            for r in d["ulto"]:
                print(f"    {'both' if r in d['both'] else 'ULTO ONLY'}: {r}")


def add_args(ap) -> None:
    """realworld.py's options of --sdk."""
    ap.add_argument("--sdk", action="store_true",
                    help="the SDK scenario (sdk.py): each library compiled once into a "
                    "bitcode archive, its tests linked against it, plain/CFI/WPD x "
                    "ulto thin/full/distributed and lld thin/full; --projects names "
                    "sdk.py's libraries; --out default <work>/sdk-report.json")
    ap.add_argument("--sdk-kinds", default=",".join(KINDS), help="--sdk: consumer kinds")
    ap.add_argument("--sdk-modes", default=None,
                    help="--sdk: link modes (default all: " + ",".join(MODES)
                    + "; with --fat " + ",".join(NATIVE_MODES) + " too)")
    ap.add_argument("--fat", action="store_true",
                    help="--sdk: the SDK compiled -ffat-lto-objects, linked by lld-22 "
                    "with -ffat-lto-objects, and without LTO (plain consumers): "
                    + ",".join(NATIVE_MODES))
    ap.add_argument("--fat-cost", type=int, default=0, metavar="RUNS",
                    help="--sdk: instead of the consumers, compile the libraries RUNS "
                    "times bitcode, fat and plain -O2 (interleaved, ninja -j1): CPU "
                    "and archive bytes; --out default <work>/sdk-cost.json")


def main(args) -> int:
    """realworld.py --sdk (its options: --projects, --jobs, --cache, --work,
    --out, --keep, --sdk-kinds, --sdk-modes, --fat, --fat-cost)."""
    byname = {r["name"]: r for r in SDK_RECIPES}
    names = list(byname) if args.projects == "all" else args.projects.split(",")
    for n in names:
        if n not in byname:
            raise SystemExit(f"unknown SDK library {n} (known: {', '.join(byname)})")
    if args.fat_cost:
        return main_cost(args, [byname[n] for n in names])
    known = list(MODES) + (list(NATIVE_MODES) if args.fat else [])
    kinds = [k for k in KINDS if k in args.sdk_kinds.split(",")]
    modes = [m for m in known if args.sdk_modes is None or m in args.sdk_modes.split(",")]
    work = args.work
    ctx = Ctx(work, args.cache, args.jobs, args.keep, args.fat)
    out = args.out or work / "sdk-report.json"
    report = {"date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
              "jobs": args.jobs, "ulto_bin": str(projects.ULTO_BIN), "sdk_flags": ctx.sdk_flags,
              "kinds": KINDS, "modes": modes, "reference": "/".join(REFERENCE),
              "libraries": {}}
    for n in names:
        report["libraries"][n] = run_library(ctx, byname[n], byname, kinds, modes)
        report["sdks"] = ctx.sdks
        out.write_text(json.dumps(report, indent=1))
    print_table(report, modes)
    out.write_text(json.dumps(report, indent=1))
    log(f"report: {out}")
    return 0


# -------------------------------------------------------------------- cost --

def cost_builds() -> Dict[str, List[str]]:
    """--fat-cost's three ways to compile a library."""
    ulto = [str(projects.ULTO_BIN / "ulto-clang++")]
    return {"bitcode": ulto + SDK_FLAGS, "fat": ulto + SDK_FLAGS + FAT,
            "plain": [str(LLVM_BIN / "clang++"), "-O2", "-fvisibility=hidden"]}


def measure_cost(ctx: Ctx, recs: List[Dict], runs: int) -> Dict:
    """Each library's archives compiled runs times by each of cost_builds(),
    interleaved (run 1: every library bitcode, fat, plain; run 2: ...):
    library -> build -> {"cpu": compile CPU s of each run, "bytes": the
    archives' bytes of each run}."""
    out: Dict = {r["name"]: {b: {"cpu": [], "bytes": []} for b in cost_builds()} for r in recs}
    for i in range(runs):
        for rec in recs:
            for p in rec["packages"]:
                ctx.sources(p)
            for build, head in cost_builds().items():
                d = ctx.work / rec["name"] / "cost" / build
                shutil.rmtree(d, ignore_errors=True)
                d.mkdir(parents=True)
                with open(d.parent / f"{build}-{i + 1}.log", "w") as logf:
                    res = build_archives(ctx, rec, head + [ctx.fmt(f) for f in rec["cflags"]],
                                         d, logf)
                if not res["ok"]:
                    raise SystemExit(f"{rec['name']}: {build} failed: {logf.name}")
                r = out[rec["name"]][build]
                r["cpu"].append(res["compile_cpu"])
                r["bytes"].append(sum(Path(a["path"]).stat().st_size
                                      for a in res["archives"].values()))
                log(f"{rec['name']} {build} run {i + 1}: {res['compile_cpu']}s CPU, "
                       f"{r['bytes'][-1]} bytes")
    return out


def print_cost(cost: Dict) -> None:
    """Per library and in total (each run's sum): CPU min and median, bytes,
    and fat's ratios to bitcode and to bitcode + plain."""
    runs = len(next(iter(cost.values()))["fat"]["cpu"])
    total = {b: {k: [sum(lib[b][k][i] for lib in cost.values()) for i in range(runs)]
                 for k in ("cpu", "bytes")} for b in cost_builds()}
    print(f"{'library':<12}{'build':<16}{'CPU s min':>10}{'median':>10}{'bytes':>12}")
    for name, lib in list(cost.items()) + [("total", total)]:
        v = {b: [min(r["cpu"]), statistics.median(r["cpu"]), statistics.median(r["bytes"])]
             for b, r in lib.items()}
        v["fat/bitcode"] = [f / c for f, c in zip(v["fat"], v["bitcode"])]
        v["fat/(bc+plain)"] = [f / (c + p) for f, c, p in zip(v["fat"], v["bitcode"], v["plain"])]
        for i, (b, (lo, med, size)) in enumerate(v.items()):
            varies = " (bytes vary)" if b in lib and len(set(lib[b]["bytes"])) > 1 else ""
            print(f"{name if i == 0 else '':<12}{b:<16}{lo:>10.2f}{med:>10.2f}"
                  + (f"{size:>12.0f}" if b in lib else f"{size:>12.2f}") + varies)
    print(f"{runs} runs, interleaved; CPU: user+sys of the compiles (ninja -j1), llvm-ar "
          "not counted; bytes: the library's archives; ratios of min, of median, of bytes")


def main_cost(args, recs: List[Dict]) -> int:
    ctx = Ctx(args.work, args.cache, 1, args.keep)
    out = args.out or args.work / "sdk-cost.json"
    cost = measure_cost(ctx, recs, args.fat_cost)
    print_cost(cost)
    out.write_text(json.dumps({
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "ulto_bin": str(projects.ULTO_BIN), "libraries": cost,
        "builds": {b: shlex.join(c) for b, c in cost_builds().items()}}, indent=1))
    log(f"report: {out}")
    return 0
