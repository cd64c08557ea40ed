#!/usr/bin/env python3
"""What does ulto's Full LTO pre-link cost on C++, in instructions?

Issue 40 item 2. Counts the instructions of compiles (and, for some projects,
of a whole build: every compile plus the ThinLTO link) for three compile
configurations:

  B   clang++-22             -O2 -flto=thin -funified-lto     THE REFERENCE
  C   ulto-clang++           -O2 -flto=thin -funified-lto     ulto's default:
                                                               the Full LTO pre-link
  D   ulto-clang++           C's flags -funified-lto-pipeline=thin
                                                               the ThinLTO pre-link

(C sources: clang-22 / ulto-clang, same flags.) The compilers are the frozen
ones of --ulto-bin (default /work/snap/bin), not a build directory that may be
rebuilt during a run.

Method. The TUs come from compile_commands.json files (CMake's
-DCMAKE_EXPORT_COMPILE_COMMANDS=ON, or `ninja -t compdb`). Each TU's real
command is rewritten: the compiler is swapped for the configuration's; the
output and dependency-file options (-o, -c, -MD, -MMD, -MF, -MT, -MQ) are
dropped; then the configuration's flags and `-c -o <out>/<config>/<project>/
<n>.o` are APPENDED, so the -O2 of the configuration overrides an -O3 of the
project (every project is measured at -O2). The command runs in the entry's
directory. Duplicate files (a library built static and shared) are counted
once.

Counting: `valgrind --tool=cachegrind --cache-sim=no --trace-children=yes`,
the sum of the "I refs" of every process (clang-22 and ulto-clang run cc1
in-process, so a compile is one process; the link is the driver plus
ld.lld-22). Instruction counts do not depend on the machine's load, so one
run per TU and configuration suffices, one valgrind at a time; a count is
reproducible to well under 0.1%. Valgrind runs compiles ~50x slower than
natively: choose TUs with --max (the N largest by source bytes) or --filter.

Whole build (--link for a project): all its TUs are compiled, then linked
once per configuration with the STOCK driver and linker for every
configuration, so only the bitcode differs:

  clang++-22 -O2 -flto=thin -funified-lto -fuse-ld=lld --ld-path=ld.lld-22
      -Wl,--lto=thin -Wl,--thinlto-jobs=1 -Wl,--threads=1 [-shared] OBJS -o OUT LIBS

(--thinlto-jobs=1 --threads=1: a deterministic count.) Compile and link
instructions are reported separately and summed.

Projects are given by a JSON spec (--spec), a list of objects:

  {"name": "leveldb", "compile_commands": "/path/compile_commands.json",
   "filter": "REGEX on the file path (optional)", "exclude": "REGEX (optional)",
   "max": N (optional: the N largest TUs),
   "remap": {"/old/prefix": "/new/prefix"} (optional, applied to commands and
             paths: e.g. to compile a snapshot of sources being edited),
   "flags": ["-fPIC"] (optional: appended to every compile, after the
             configuration's flags; e.g. -fPIC for a -shared whole-build link),
   "link": {"shared": true, "libs": ["-lpthread"]} (optional: whole build),
   "group": "label for the table (optional; default the name)"}

or on the command line with --project NAME=CDB (all its TUs).

Output: --out/report.json (every TU's counts, per project sums and ratios,
geomeans) and a Markdown table on stdout and in --out/report.md: per project
instructions (millions) for B, C, D and C/B, D/B; geomean of the per-project
ratios; whole-build rows (compile, link, sum). --dry-run prints the commands
without running them; --native times each TU natively once (config B) to size
a sample before a valgrind run. --resume reuses the counts of earlier runs
(--out/counts.log, one line per count) for unchanged commands whose object
still exists; --table reprints the
table of --out/report.json.
"""

import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

CONFIGS = ["B", "C", "D"]
REF = "B"
LTO = ["-O2", "-flto=thin", "-funified-lto"]
VALGRIND = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--trace-children=yes",
            "--cachegrind-out-file=/dev/null"]
IREFS = re.compile(r"I\s+refs:\s+([\d,]+)")
DROP_WITH_ARG = {"-o", "-MF", "-MT", "-MQ"}
DROP = {"-c", "-MD", "-MMD"}


def compilers(args):
    ulto = Path(args.ulto_bin)
    return {
        "B": {"c": "clang-22", "c++": "clang++-22", "flags": LTO},
        "C": {"c": str(ulto / "ulto-clang"), "c++": str(ulto / "ulto-clang++"), "flags": LTO},
        "D": {"c": str(ulto / "ulto-clang"), "c++": str(ulto / "ulto-clang++"),
              "flags": LTO + ["-funified-lto-pipeline=thin"]},
    }


def is_cxx(argv0, file):
    name = os.path.basename(argv0)
    if re.search(r"(\+\+|g\+\+|c\+\+|cxx)", name):
        return True
    return Path(file).suffix in {".cpp", ".cc", ".cxx", ".C", ".c++"}


def load_tus(project):
    """The project's TUs: [{file, directory, argv (rewritten, no compiler), cxx}]."""
    entries = json.load(open(project["compile_commands"]))
    remap = project.get("remap", {})

    def rm(s):
        for old, new in remap.items():
            s = s.replace(old, new)
        return s

    seen, tus = set(), []
    for e in entries:
        file = rm(os.path.join(e["directory"], e["file"]))
        if file in seen:
            continue
        if project.get("filter") and not re.search(project["filter"], file):
            continue
        if project.get("exclude") and re.search(project["exclude"], file):
            continue
        argv = [rm(a) for a in (e.get("arguments") or shlex.split(e["command"]))]
        out, skip = [], False
        for a in argv[1:]:
            if skip:
                skip = False
                continue
            if a in DROP_WITH_ARG:
                skip = True
                continue
            if a in DROP or any(a.startswith(p) and len(a) > len(p)
                                for p in ("-MF", "-MT", "-MQ")) or a.startswith("-o"):
                continue
            out.append(a)
        src = rm(e["file"])
        if src in out:  # the source goes last, after the appended flags' -c -o
            out.remove(src)
        seen.add(file)
        tus.append({"file": file, "source": src, "directory": rm(e["directory"]),
                    "args": out, "cxx": is_cxx(argv[0], file),
                    "extra": project.get("flags", []),
                    "bytes": os.path.getsize(file)})
    tus.sort(key=lambda t: -t["bytes"])
    if project.get("max"):
        tus = tus[:project["max"]]
    return tus


def compile_argv(tu, config, comp, obj):
    cc = comp[config]["c++" if tu["cxx"] else "c"]
    return [cc, *tu["args"], *comp[config]["flags"], *tu["extra"], "-c", "-o", str(obj),
            tu["source"]]


def link_argv(project, config, objs, out):
    link = project["link"]
    return ["clang++-22", *LTO, "-fuse-ld=lld", "--ld-path=ld.lld-22", "-Wl,--lto=thin",
            "-Wl,--thinlto-jobs=1", "-Wl,--threads=1",
            *(["-shared"] if link.get("shared") else []),
            *map(str, objs), "-o", str(out), *link.get("libs", [])]


def count(argv, cwd, log):
    start = time.monotonic()
    proc = subprocess.run(VALGRIND + argv, cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    refs = [int(m.replace(",", "")) for m in IREFS.findall(proc.stderr)]
    if proc.returncode != 0 or not refs:
        sys.exit(f"failed ({proc.returncode}): {shlex.join(argv)}\n{proc.stderr[-3000:]}")
    log.write(json.dumps({"argv": argv, "cwd": cwd, "irefs": sum(refs),
                          "processes": len(refs),
                          "seconds": round(time.monotonic() - start, 1)}) + "\n")
    log.flush()
    return sum(refs)


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__)
    ap.add_argument("--spec", help="JSON list of projects (see above)")
    ap.add_argument("--project", action="append", default=[], metavar="NAME=CDB",
                    help="a project: all TUs of a compile_commands.json")
    ap.add_argument("--only", help="regex: run only the projects whose name matches")
    ap.add_argument("--ulto-bin", default="/work/snap/bin")
    ap.add_argument("--out", default="/tmp/prelink-cost/out")
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--native", action="store_true",
                    help="time each TU natively once with B (to size a sample)")
    ap.add_argument("--resume", action="store_true",
                    help="reuse the counts of --out/counts.log (same argv)")
    ap.add_argument("--table", action="store_true",
                    help="only print the table of an existing --out/report.json "
                         "(e.g. of an interrupted run: its finished projects)")
    args = ap.parse_args()
    if args.table:
        report = json.load(open(Path(args.out) / "report.json"))
        print(table(report))
        return

    projects = json.load(open(args.spec)) if args.spec else []
    for p in args.project:
        name, cdb = p.split("=", 1)
        projects.append({"name": name, "compile_commands": cdb})
    if args.only:
        projects = [p for p in projects if re.search(args.only, p["name"])]
    comp = compilers(args)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    report_path = out / "report.json"
    old = {}  # json argv -> instructions, of every count of earlier runs
    if args.resume and (out / "counts.log").exists():
        for line in open(out / "counts.log"):
            entry = json.loads(line)
            old[json.dumps(entry["argv"])] = entry["irefs"]

    report = {"configs": {c: comp[c][("c++")] + " " + " ".join(comp[c]["flags"])
                          for c in CONFIGS},
              "valgrind": VALGRIND, "projects": []}
    log = open(out / "counts.log", "a")
    for project in projects:
        tus = load_tus(project)
        print(f"== {project['name']}: {len(tus)} TUs, "
              f"{sum(t['bytes'] for t in tus):,} source bytes", flush=True)
        prow = {"name": project["name"], "group": project.get("group", project["name"]),
                "tus": []}
        objs = {c: [] for c in CONFIGS}
        for n, tu in enumerate(tus):
            row = {"file": tu["file"], "instructions": {}, "argv": {}}
            for c in CONFIGS:
                d = out / c / project["name"]
                d.mkdir(parents=True, exist_ok=True)
                obj = d / f"{n:03d}-{Path(tu['file']).stem}.o"
                objs[c].append(obj)
                argv = compile_argv(tu, c, comp, obj)
                row["argv"][c] = argv
                if args.dry_run:
                    print(f"  (cd {tu['directory']} && {shlex.join(argv)})")
                    continue
                if args.native:
                    if c == REF:
                        s = time.monotonic()
                        subprocess.run(argv, cwd=tu["directory"], check=True)
                        print(f"  {time.monotonic() - s:6.2f} s  {tu['file']}", flush=True)
                    continue
                key = json.dumps(argv)
                row["instructions"][c] = old[key] if key in old and obj.exists() else \
                    count(argv, tu["directory"], log)
            if row["instructions"]:
                i = row["instructions"]
                print(f"  {i['B'] / 1e6:9.1f} M  C/B {i['C'] / i['B']:.4f}  "
                      f"D/B {i['D'] / i['B']:.4f}  {tu['file']}", flush=True)
            prow["tus"].append(row)
        if args.dry_run or args.native:
            if project.get("link") and args.dry_run:
                for c in CONFIGS:
                    print("  link: " + shlex.join(link_argv(project, c, objs[c],
                                                            out / c / project["name"] / "a.out")))
            continue
        prow["instructions"] = {c: sum(t["instructions"][c] for t in prow["tus"])
                                for c in CONFIGS}
        if project.get("link"):
            link = {"instructions": {}, "argv": {}}
            for c in CONFIGS:
                argv = link_argv(project, c, objs[c], out / c / project["name"] / "a.out")
                link["argv"][c] = argv
                key = json.dumps(argv)
                link["instructions"][c] = old[key] if key in old else count(argv, str(out), log)
            prow["link"] = link
            li = link["instructions"]
            print(f"  link {li['B'] / 1e6:9.1f} M  C/B {li['C'] / li['B']:.4f}  "
                  f"D/B {li['D'] / li['B']:.4f}", flush=True)
        report["projects"].append(prow)
        json.dump(report, open(report_path, "w"), indent=1)
    if args.dry_run or args.native:
        return
    md = table(report)
    (out / "report.md").write_text(md)
    print(md)


def table(report):
    def ratios(i):
        return i["C"] / i["B"], i["D"] / i["B"]

    lines = ["| project | TUs | B (M instr) | C | D | C/B | D/B |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    groups = {}
    for p in report["projects"]:
        i = p["instructions"]
        cb, db = ratios(i)
        lines.append(f"| {p['name']} | {len(p['tus'])} | {i['B'] / 1e6:,.0f} | "
                     f"{i['C'] / 1e6:,.0f} | {i['D'] / 1e6:,.0f} | {cb:.3f} | {db:.3f} |")
        groups.setdefault(p["group"], []).append((cb, db))
    allp = [ratios(p["instructions"]) for p in report["projects"]]
    lines.append(f"| **geomean, {len(allp)} projects** | | | | | "
                 f"{geomean([r[0] for r in allp]):.3f} | {geomean([r[1] for r in allp]):.3f} |")
    report["geomean"] = {"C/B": geomean([r[0] for r in allp]),
                         "D/B": geomean([r[1] for r in allp])}
    for g, rs in groups.items():
        if len(rs) > 1:
            lines.append(f"| geomean {g} ({len(rs)}) | | | | | {geomean([r[0] for r in rs]):.3f}"
                         f" | {geomean([r[1] for r in rs]):.3f} |")
    tus = [t for p in report["projects"] for t in p["tus"]]
    lines.append(f"| geomean of {len(tus)} TUs | | | | | "
                 f"{geomean([ratios(t['instructions'])[0] for t in tus]):.3f} | "
                 f"{geomean([ratios(t['instructions'])[1] for t in tus]):.3f} |")
    links = [p for p in report["projects"] if p.get("link")]
    if links:
        lines += ["", "Whole build (M instructions): compile + link (stock ld.lld-22, "
                  "--thinlto-jobs=1)", "",
                  "| project | part | B | C | D | C/B | D/B |",
                  "|---|---|---:|---:|---:|---:|---:|"]
        for p in links:
            ci, li = p["instructions"], p["link"]["instructions"]
            si = {c: ci[c] + li[c] for c in CONFIGS}
            for part, i in (("compile", ci), ("link", li), ("sum", si)):
                cb, db = ratios(i)
                lines.append(f"| {p['name']} | {part} | {i['B'] / 1e6:,.0f} | "
                             f"{i['C'] / 1e6:,.0f} | {i['D'] / 1e6:,.0f} | {cb:.3f} | {db:.3f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
