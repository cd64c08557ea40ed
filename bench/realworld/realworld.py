#!/usr/bin/env python3
"""Real projects, their own build systems, their own tests: ulto against stock clang-22.

Fetches open-source projects from Debian's source packages (bookworm;
`apt-get source --download-only`, `dpkg-source -x`; a deb-src entry is added
in /etc/apt/sources.list.d/ulto-realworld-src.sources when apt knows none),
keeps them in --cache, and builds each project (recipes.py) with its own
build system (make, autotools, CMake with Ninja or Unix Makefiles, Meson with
ninja) in five configurations, then runs the project's own test suite:

  B  stock clang-22 -O2 -flto=thin -funified-lto, linked by ld.lld-22
     (-fuse-ld=lld): the baseline
  T  ulto, linked thin         } CMake: the toolchain file (ULTO_LTO_MODE);
  F  ulto, linked full         } make/autotools: CC, CXX, AR, RANLIB, NM,
  D  ulto, linked distributed  } CFLAGS, CXXFLAGS, LDFLAGS; Meson: CC_LD=ulto,
                                 b_lto (T, F) or -flto=distributed in the
                                 arguments (D); all as docs/BuildSystems.md says
  S  stock clang-22, flags as B, stock ld.lld-22 linking distributed with
     ulto's distributor (-Wl,--thinlto-distributor=<bin>/ulto
     -Wl,--thinlto-distributor-arg=dist, docs/Distributed.md "Stock lld")

Every configuration builds at -O2 (CMake: CMAKE_BUILD_TYPE=None, -O2 in the
flags; Meson: optimization=2, debug=false). Distributed links (D, S) get a
cache of their own, emptied before the cell (cold: every backend job runs),
and no worker service (--no-dist-service), so that their CPU is the build
command's: each step is run as a child and timed with os.wait4 (user+sys of
the step and every process it waited for). CPU is reported per step:
configure, build (compiles and links together: not split), tests.

Each cell is built in the same directory (<work>/<project>/tree, a fresh copy
of the sources), so that paths compiled into the binaries are the same in
every configuration. After the tests, every ELF executable and shared
library under the tree (ET_EXEC/ET_DYN, not symlinks, not CMake's or
configure's probes) is hashed; T's and D's are compared byte for byte.

A cell passes when it builds and every test that passes in B passes in it
(for B: when it builds and its tests run; without a B result every test must
pass). Prints one table (project x config) and `N passed, N failed`; writes
the whole record as JSON (--out).

--sdk runs the SDK scenario instead (sdk.py): C++ libraries compiled once
into bitcode archives, their tests linked against them as plain, CFI and WPD
consumers, thin, full and distributed by ulto, thin and full by ld.lld-22.
"""

import argparse
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]  # recipes.py and sdk.py; bench/ultobench
from recipes import RECIPES  # noqa: E402  (after the sys.path setup)
import sdk  # noqa: E402
from ultobench import projects  # noqa: E402
from ultobench.projects import fetch, log, on_term, run_step, set_prefix, tally  # noqa: E402
from ultobench.toolchain import LLVM_BIN  # noqa: E402


def snapshot(prefix: Path, dest: Path) -> Path:
    """A copy of ulto's installed files (bin, lib/ulto, share/ulto): the build
    tree is rebuilt by others at any time, and T and D must use the same tools."""
    if dest.exists():
        shutil.rmtree(dest)
    for sub in ("bin", "lib/ulto", "share/ulto"):
        shutil.copytree(prefix / sub, dest / sub, symlinks=True)
    return dest


CONFIGS = ["B", "T", "F", "D", "S"]
MODES = {"T": "thin", "F": "full", "D": "distributed"}


# ----------------------------------------------------------- toolchains --

class Toolchain:
    """What one configuration gives a build system."""

    def __init__(self, cfg: str, dist_cache: Path, link_flags: List[str] = ()):
        self.cfg = cfg
        self.link_flags = list(link_flags)  # the recipe's, for every link
        self.stock = cfg in ("B", "S")
        self.mode = MODES.get(cfg, "thin")
        if self.stock:
            self.cc, self.cxx = str(LLVM_BIN / "clang"), str(LLVM_BIN / "clang++")
            tools = LLVM_BIN
        else:
            self.cc = str(projects.ULTO_BIN / "ulto-clang")
            self.cxx = str(projects.ULTO_BIN / "ulto-clang++")
            tools = projects.ULTO_BIN
        self.ar, self.ranlib, self.nm = (str(tools / t) for t in ("llvm-ar", "llvm-ranlib", "llvm-nm"))
        lto = f"-flto={self.mode} -funified-lto"
        self.cflags = f"-O2 {lto}"
        self.dist_ulto: List[str] = []   # ld.ulto's --dist-* options (D)
        self.extra_link: List[str] = []  # -Wl, options of every link (S)
        if cfg == "D":
            self.dist_ulto = [f"--dist-cache-dir={dist_cache}", "--no-dist-service"]
        if cfg == "S":
            self.extra_link = [
                "-Wl,--lto=thin",
                f"-Wl,--thinlto-distributor={projects.ULTO_BIN / 'ulto'}",
                "-Wl,--thinlto-distributor-arg=dist",
                f"-Wl,--thinlto-distributor-arg=--cache-dir={dist_cache}",
                "-Wl,--thinlto-distributor-arg=--no-service",
                f"-Wl,--thinlto-remote-compiler={LLVM_BIN / 'clang'}",
            ]
        fuse = "-fuse-ld=lld" if self.stock else "-fuse-ld=ulto"
        self.ldflags = " ".join([lto, fuse] + self.extra_link + self.link_flags
                                + [f"-Wl,{o}" for o in self.dist_ulto])

    def vars(self, jobs: int) -> Dict[str, str]:
        return {"cc": self.cc, "cxx": self.cxx, "ar": self.ar, "ranlib": self.ranlib,
                "nm": self.nm, "cflags": self.cflags, "cxxflags": self.cflags,
                "ldflags": self.ldflags, "jobs": str(jobs)}

    def env(self) -> Dict[str, str]:
        return {"CC": self.cc, "CXX": self.cxx, "AR": self.ar, "RANLIB": self.ranlib,
                "NM": self.nm, "CFLAGS": self.cflags, "CXXFLAGS": self.cflags,
                "LDFLAGS": self.ldflags}

    def cmake_args(self) -> List[str]:
        if self.stock:
            link = " ".join(["-flto=thin -funified-lto -fuse-ld=lld"] + self.extra_link
                            + self.link_flags)
            args = [f"-DCMAKE_C_COMPILER={self.cc}", f"-DCMAKE_CXX_COMPILER={self.cxx}",
                    f"-DCMAKE_AR={self.ar}", f"-DCMAKE_RANLIB={self.ranlib}",
                    f"-DCMAKE_NM={self.nm}",
                    f"-DCMAKE_C_FLAGS={self.cflags}", f"-DCMAKE_CXX_FLAGS={self.cflags}"]
            args += [f"-DCMAKE_{k}_LINKER_FLAGS={link}" for k in ("EXE", "SHARED", "MODULE")]
        else:
            args = [f"-DCMAKE_TOOLCHAIN_FILE={projects.TOOLCHAIN_FILE}",
                    f"-DULTO_LTO_MODE={self.mode}",
                    "-DCMAKE_C_FLAGS=-O2", "-DCMAKE_CXX_FLAGS=-O2"]
            if self.dist_ulto:
                args.append("-DULTO_DIST_OPTIONS=" + ";".join(self.dist_ulto))
        return args + ["-DCMAKE_BUILD_TYPE=None"]

    def meson(self) -> (Dict[str, str], List[str]):
        def arr(items: List[str]) -> str:
            return "[" + ",".join(f"'{i}'" for i in items) + "]"
        env = {"CC": self.cc, "CXX": self.cxx, "AR": self.ar}
        args = ["-Ddebug=false", "-Doptimization=2"]
        if self.stock:
            env.update(CC_LD="lld", CXX_LD="lld")
        else:
            # Meson (1.0.1) takes CC_LD=ulto only when shutil.which("ulto")
            # finds it; otherwise "Unsupported linker, only bfd, gold, and lld
            # are supported, not ulto"
            env.update(CC_LD="ulto", CXX_LD="ulto",
                       PATH=f"{projects.ULTO_BIN}:{os.environ.get('PATH', '')}")
        if self.cfg == "D":
            comp = ["-funified-lto", "-flto=distributed"]
            link = comp + self.link_flags + [f"-Wl,{o}" for o in self.dist_ulto]
        else:
            # b_lto as docs/BuildSystems.md says, and -flto=<mode> in the
            # arguments too: Meson's checks (cc.has_argument() and the like)
            # compile with c_args but without b_lto's -flto, and clang warns
            # that -funified-lto without -flto is unused, which Meson's
            # -Werror=unused-command-line-argument makes every check fail
            # (fribidi then goes without -fvisibility=hidden)
            args += ["-Db_lto=true",
                     "-Db_lto_mode=" + ("default" if self.cfg == "F" else "thin")]
            comp = ["-funified-lto", f"-flto={self.mode}"]
            link = comp + self.extra_link + self.link_flags
        for lang in ("c", "cpp"):
            args += [f"-D{lang}_args={arr(comp)}", f"-D{lang}_link_args={arr(link)}"]
        return env, args


# -------------------------------------------------------------- running --


def fmt_args(items: List[str], v: Dict[str, str]) -> List[str]:
    return [i.format(**v) for i in items]


def is_elf_output(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            head = f.read(18)
    except OSError:
        return False
    return len(head) == 18 and head[:4] == b"\x7fELF" and head[16] in (2, 3)


SKIP_DIRS = {"CMakeFiles", "meson-private", ".git", "CMakeTmp", "conftest.dir"}


def elf_outputs(tree: Path) -> Dict[str, str]:
    out = {}
    for root, dirs, files in os.walk(tree):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        for f in files:
            p = Path(root) / f
            if p.is_symlink() or not p.is_file() or not is_elf_output(p):
                continue
            out[str(p.relative_to(tree))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


# --------------------------------------------------------------- tests --

CTEST_LINE = re.compile(r"Test\s+#\d+:\s+(\S+)\s+\.*\s*(\*{3})?\s*(Passed|Failed|Not Run|Timeout|"
                        r"Exception|Skipped|SEGFAULT|Subprocess aborted|Child aborted|"
                        r"Subprocess killed|\S+)")
AM_LINE = re.compile(r"^(PASS|FAIL|XFAIL|XPASS|SKIP|ERROR): (\S+)", re.M)


def run_tests(rec: Dict, tc: Toolchain, tree: Path, bdir: Path, env: Dict[str, str],
              logf, jobs: int) -> Dict:
    t = rec["tests"]
    timeout = t.get("timeout", 900)
    env = dict(env, **t.get("env", {}))
    res: Dict = {"passed": [], "failed": []}
    kind = t["kind"]
    start = logf.tell()
    if kind == "ctest":
        cmd = ["ctest", "-j", str(jobs), "--timeout", str(min(timeout, 600)), "--output-on-failure"]
        if t.get("exclude"):
            cmd += ["-E", t["exclude"]]
        step = run_step(cmd, bdir, env, logf, timeout)
        logf.flush()
        text = Path(logf.name).read_bytes()[start:].decode(errors="replace")
        for m in CTEST_LINE.finditer(text):
            (res["passed"] if m.group(3) == "Passed" else res["failed"]).append(m.group(1))
    elif kind == "meson":
        step = run_step(["meson", "test", "-C", str(bdir), "--num-processes", str(jobs),
                         "--print-errorlogs"] + t.get("names", []), bdir, env, logf, timeout)
        tl = bdir / "meson-logs" / "testlog.json"
        if tl.exists():
            for line in tl.read_text().splitlines():
                r = json.loads(line)
                if r.get("result") == "SKIP":
                    continue
                (res["passed"] if r.get("result") in ("OK", "EXPECTEDFAIL") else
                 res["failed"]).append(r["name"])
    elif kind == "automake":
        cmd = t.get("cmd", ["make", f"-j{jobs}", "check"])
        step = run_step(cmd, bdir, env, logf, timeout)
        text = Path(logf.name).read_bytes()[start:].decode(errors="replace")
        for m in AM_LINE.finditer(text):
            if m.group(1) == "SKIP":
                continue
            (res["passed"] if m.group(1) in ("PASS", "XFAIL") else res["failed"]).append(m.group(2))
    elif kind == "commands":
        step = {"rc": 0, "timed_out": False, "wall": 0.0, "cpu": 0.0}
        v = tc.vars(jobs)
        v["make_args"] = " ".join(shlex.quote(a) for a in fmt_args(rec.get("make_args", []), v))
        t_end = time.monotonic() + timeout
        for name, cmd in t["cmds"].items():
            left = t_end - time.monotonic()
            if left <= 0:
                res["failed"].append(name)
                continue
            s = run_step(cmd.format(**v), bdir, env, logf, left, shell=True)
            for k in ("wall", "cpu"):
                step[k] = round(step[k] + s[k], 2)
            step["timed_out"] |= s["timed_out"]
            (res["passed"] if s["rc"] == 0 else res["failed"]).append(name)
        step["rc"] = 0 if not res["failed"] else 1
    else:
        raise ValueError(kind)
    if step["timed_out"] and not res["failed"]:
        res["failed"].append("<timeout>")
    if not res["passed"] and not res["failed"]:
        res["failed"].append("<no tests found>")
    res.update(step=step)
    return res


# ---------------------------------------------------------------- cells --

def build_cell(rec: Dict, cfg: str, src: Path, work: Path, jobs: int, keep: bool) -> Dict:
    pdir = work / rec["name"]
    tree = pdir / "tree"
    dist_cache = pdir / "dist-cache"
    for d in (tree, dist_cache):
        if d.exists():
            shutil.rmtree(d)
    pdir.mkdir(parents=True, exist_ok=True)
    shutil.copytree(src, tree, symlinks=True)
    logpath = pdir / f"{cfg}.log"
    cell: Dict = {"config": cfg, "log": str(logpath), "steps": {}}
    tc = Toolchain(cfg, dist_cache, rec.get("link_flags", []))
    base_env = dict(os.environ)
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "CFLAGS", "CXXFLAGS", "LDFLAGS", "CPPFLAGS"):
        base_env.pop(k, None)
    sdir = tree / rec.get("subdir", ".")
    system = rec["system"]
    v = tc.vars(jobs)
    t0 = time.monotonic()
    with open(logpath, "w") as logf:
        logf.write(f"# {rec['name']} config {cfg}\n")

        def step(name, cmd, cwd, env, timeout=3600, shell=False):
            s = run_step(cmd, cwd, env, logf, timeout, shell)
            prev = cell["steps"].get(name)
            if prev:  # several commands of one step: add them up
                for k in ("wall", "cpu"):
                    s[k] = round(s[k] + prev[k], 2)
                s["timed_out"] |= prev["timed_out"]
            cell["steps"][name] = s
            return s["rc"] == 0

        ok = True
        for c in rec.get("prepare", []):
            ok = ok and step("prepare", c, sdir, base_env, 900, shell=True)
        env = dict(base_env)
        bdir = sdir
        if system == "cmake":
            bdir = sdir / "_build"
            if not tc.stock and tc.link_flags:  # CMake adds LDFLAGS to its _INIT flags
                env["LDFLAGS"] = " ".join(tc.link_flags)
            cmd = ["cmake", "-S", str(sdir), "-B", str(bdir),
                   "-G", rec.get("generator", "Ninja")] + tc.cmake_args() + rec.get("cmake_args", [])
            ok = ok and step("configure", cmd, sdir, env)
            bcmd = (["ninja", "-j", str(jobs)] if rec.get("generator", "Ninja") == "Ninja"
                    else ["make", f"-j{jobs}"])
            ok = ok and step("build", bcmd, bdir, env)
        elif system == "meson":
            bdir = sdir / "_build"
            menv, margs = tc.meson()
            env.update(menv)
            cmd = ["meson", "setup", str(bdir)] + margs + rec.get("meson_args", [])
            ok = ok and step("configure", cmd, sdir, env)
            ok = ok and step("build", ["ninja", "-j", str(jobs)], bdir, env)
        elif system == "autotools":
            env.update(tc.env())
            cmd = ["./configure"] + [f"{k}={val}" for k, val in tc.env().items()] \
                + rec.get("configure_args", [])
            ok = ok and step("configure", cmd, sdir, env)
            ok = ok and step("build", ["make", f"-j{jobs}"], sdir, env)
        elif system == "make":
            env.update(tc.env())
            margs = fmt_args(rec.get("make_args", []), v)
            for b in rec.get("build", [["-j{jobs}"]]):
                argv = []
                for a in b:
                    argv += margs if a == "{make_args}" else [a.format(**v)]
                ok = ok and step("build", ["make"] + argv, sdir, env)
        else:
            raise ValueError(system)
        cell["build_ok"] = ok
        if ok:
            env.update(tc.env()) if system in ("make", "autotools") else None
            cell["tests"] = run_tests(rec, tc, tree, bdir, env, logf, jobs)
        cell["elf"] = elf_outputs(tree)
    cell["wall"] = round(time.monotonic() - t0, 1)
    if keep:
        dest = pdir / cfg
        if dest.exists():
            shutil.rmtree(dest)
        tree.rename(dest)
    else:
        shutil.rmtree(tree, ignore_errors=True)
    shutil.rmtree(dist_cache, ignore_errors=True)
    return cell


def judge(cells: Dict[str, Dict]) -> None:
    """Sets each cell's 'pass' and 'why'; T and D's ELF comparison."""
    base = cells.get("B")
    base_pass = set(base["tests"]["passed"]) if base and base.get("tests") else None
    for cfg, c in cells.items():
        if not c.get("build_ok"):
            c["pass"], c["why"] = False, "build failed: " + ",".join(
                k for k, s in c["steps"].items() if s["rc"] != 0)
            continue
        t = c["tests"]
        if cfg == "B":
            c["pass"], c["why"] = True, ""
            continue
        need = base_pass if base_pass is not None else set(t["passed"]) | set(t["failed"])
        missing = sorted(need - set(t["passed"]))
        c["pass"] = not missing
        c["why"] = ("tests failing that pass in B: " + ",".join(missing[:8])) if missing else ""
    for ref, dist in (("T", "D"), ("B", "S")):  # distributed against in-process
        if ref in cells and dist in cells and cells[ref].get("build_ok") \
                and cells[dist].get("build_ok"):
            te, de = cells[ref]["elf"], cells[dist]["elf"]
            diff = sorted(k for k in set(te) | set(de) if te.get(k) != de.get(k))
            cells[dist][f"identical_to_{ref}"] = {"files": len(te), "differ": diff}


def cell_text(c: Optional[Dict]) -> str:
    if c is None:
        return "-"
    if not c.get("build_ok"):
        return "BUILD FAIL"
    t = c["tests"]
    n = len(t["passed"]) + len(t["failed"])
    s = f"{len(t['passed'])}/{n}"
    s += f" {c['steps'].get('build', {}).get('cpu', 0):.0f}s"
    for ref in ("T", "B"):
        if f"identical_to_{ref}" in c:
            n = len(c[f"identical_to_{ref}"]["differ"])
            s += f" ={ref}" if not n else f" !={ref}:{n}"
    return s + ("" if c.get("pass") else " FAIL")


def print_table(report: Dict, configs: List[str]) -> None:
    w = 20
    print(f"{'project':<18}" + "".join(f"{c:<{w}}" for c in configs))
    npass = nfail = 0
    for name, p in report["projects"].items():
        cells = [p["cells"].get(cfg) for cfg in configs]
        row = f"{name:<18}" + "".join(f"{cell_text(c):<{w}}" for c in cells)
        passed, failed = tally(cells)
        npass, nfail = npass + passed, nfail + failed
        if p.get("error"):
            row += "  " + p["error"].splitlines()[0][:60]
        print(row)
    print("cell: tests passed/total, build CPU s (compile+link, not split); "
          "D: =T every ELF file byte-identical to T's, !=T:N N files differ; S: =B, !=B:N "
          "the same against B")
    print(f"{npass} passed, {nfail} failed")
    report["summary"] = {"passed": npass, "failed": nfail}


def use_prefix(args) -> Path:
    """The ulto tools of this run: --ulto-prefix, or a copy of it (snapshot())."""
    prefix = args.ulto_prefix.resolve()
    if not args.no_snapshot:
        prefix = snapshot(prefix, args.work / "ulto-snapshot")
    return prefix


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--projects", default="all",
                    help="comma-separated names from recipes.py (default all: "
                    + ",".join(r["name"] for r in RECIPES) + ")")
    ap.add_argument("--configs", default=",".join(CONFIGS), help="default B,T,F,D,S")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--cache", type=Path, default=Path("/work/realworld-src"),
                    help="downloaded and extracted source packages")
    ap.add_argument("--work", type=Path, default=Path("/work/realworld-build"),
                    help="build trees and logs")
    ap.add_argument("--out", type=Path, default=None,
                    help="JSON report (default <work>/report.json)")
    ap.add_argument("--keep", action="store_true",
                    help="keep every cell's tree as <work>/<project>/<config>")
    ap.add_argument("--ulto-prefix", type=Path, default=projects.ULTO_PREFIX,
                    help="ulto's install prefix or build tree (default %(default)s)")
    ap.add_argument("--no-snapshot", action="store_true",
                    help="use --ulto-prefix in place, not a copy in <work>/ulto-snapshot")
    ap.add_argument("--list", action="store_true", help="list the projects and exit")
    sdk.add_args(ap)
    ap.add_argument("--merge", type=Path, nargs="+", metavar="REPORT",
                    help="build nothing: merge these JSON reports (later ones win per "
                    "project) into --out, if given, and print the table")
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)

    if args.list:
        for r in RECIPES:
            print(f"{r['name']:<18}{r['system']:<10}{r['package']}")
        return 0
    if args.sdk:
        args.work.mkdir(parents=True, exist_ok=True)
        set_prefix(use_prefix(args))
        return sdk.main(args)
    byname = {r["name"]: r for r in RECIPES}
    if args.merge:
        report = {"merged": [str(m) for m in args.merge], "projects": {}}
        for m in args.merge:
            r = json.loads(m.read_text())
            for p in r["projects"].values():
                judge(p["cells"])
            for k in ("date", "jobs", "ulto_ld_sha256"):
                report.setdefault(k + "s", []).append(r.get(k))
            report["projects"].update({k: v for k, v in r["projects"].items() if k in byname})
        all_cfgs = [c for c in CONFIGS
                    if any(c in p["cells"] for p in report["projects"].values())]
        print_table(report, all_cfgs)
        if args.out:
            args.out.write_text(json.dumps(report, indent=1))
        return 0
    names = list(byname) if args.projects == "all" else args.projects.split(",")
    for n in names:
        if n not in byname:
            ap.error(f"unknown project {n}")
    configs = [c for c in CONFIGS if c in args.configs.split(",")]
    out = args.out or args.work / "report.json"
    args.work.mkdir(parents=True, exist_ok=True)
    prefix = use_prefix(args)
    set_prefix(prefix)
    report = {"date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
              "jobs": args.jobs, "configs": configs, "ulto_prefix": str(args.ulto_prefix),
              "ulto_ld_sha256": hashlib.sha256((prefix / "bin" / "ld.ulto").read_bytes()).hexdigest(),
              "projects": {}}
    if out.exists():  # keep the cells of earlier runs of other projects/configs
        try:
            old = json.loads(out.read_text())
            report["projects"] = {k: v for k, v in old.get("projects", {}).items()
                                  if k in byname}
        except ValueError:
            pass
    for n in names:
        rec = byname[n]
        proj = report["projects"].setdefault(n, {"cells": {}})
        proj.update(system=rec["system"], package=rec["package"], error=None)
        try:
            src = fetch(rec["package"], args.cache)
        except RuntimeError as e:
            proj["error"] = str(e)
            log(f"{n}: {e}")
            continue
        proj["source"] = (src / ".extracted").read_text().strip()
        for cfg in configs:
            log(f"{n} {cfg}: building")
            c = build_cell(rec, cfg, src, args.work, args.jobs, args.keep)
            proj["cells"][cfg] = c
            t = c.get("tests")
            log(f"{n} {cfg}: build {'ok' if c['build_ok'] else 'FAILED'}"
                + (f", tests {len(t['passed'])}/{len(t['passed']) + len(t['failed'])}" if t else "")
                + f", {c['wall']}s")
            judge(proj["cells"])
            out.write_text(json.dumps(report, indent=1))
    all_cfgs = [c for c in CONFIGS if any(c in p["cells"] for p in report["projects"].values())]
    print_table(report, all_cfgs)
    out.write_text(json.dumps(report, indent=1))
    log(f"report: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
