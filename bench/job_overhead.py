#!/usr/bin/env python3
"""What a distributed backend job costs around its backend work.

Generates N one-function C modules (a chain of calls, one main), compiles
them with ulto-clang -flto=thin -funified-lto, and links them, interleaved
round after round, with ld.lld-22 --lto=thin (in-process) and with each
given ld.ulto --lto=distributed --no-dist-cache. A module's backend work is
well under a millisecond, so the links' difference is the jobs' overhead.
Reports wall and CPU (minimum, median) and, from one --dist-time-trace per
ld.ulto, the median job in ulto dist: `backend` (all of it), `execute` (the
worker), and the difference (ulto dist around the worker).

  bench/job_overhead.py --ld-ulto /work/main/build/bin/ld.ulto \\
      --ld-ulto /tmp/old/bin/ld.ulto --rounds 9
"""

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Dict, List

from ultobench.measure import timed_run
from ultobench.toolchain import LLVM_BIN, own_workers


def write_modules(work: Path, units: int) -> List[str]:
    sources = []
    for i in range(units):
        nxt = (i + 1) % units
        tail = f"f{nxt}(x * 3 + 1)" if i % 7 else f"x + local{i}[3]"
        (work / f"t{i}.c").write_text(
            f"int f{nxt}(int);\nstatic int local{i}[16];\nint g{i};\n"
            f"int f{i}(int x) {{ local{i}[x & 15] += x; g{i} += x; "
            f"return x > 1000 ? x : {tail}; }}\n")
        sources.append(f"t{i}.c")
    (work / "main.c").write_text(
        "#include <stdio.h>\nint f0(int);\n"
        "int main(int c, char **v) { printf(\"%d\\n\", f0(c)); return 0; }\n")
    return sources + ["main.c"]


def median_job(trace: Path) -> Dict[str, float]:
    events = [e for e in json.loads(trace.read_text())["traceEvents"]
              if e.get("ph") == "X"]
    per = {name: statistics.median(e["dur"] for e in events if e["name"] == name)
           for name in ("backend", "execute")}
    return {"backend_ms": per["backend"] / 1000, "execute_ms": per["execute"] / 1000,
            "around_ms": (per["backend"] - per["execute"]) / 1000}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--units", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--ld-ulto", action="append", required=True,
                    help="an ld.ulto to measure (repeatable; ulto next to it)")
    ap.add_argument("--ulto-clang", default="/work/main/build/bin/ulto-clang")
    ap.add_argument("--build", default=str(Path(__file__).parent / "out-jobs"))
    args = ap.parse_args()

    work = Path(args.build).resolve()
    work.mkdir(parents=True, exist_ok=True)
    sources = write_modules(work, args.units)
    timed_run([args.ulto_clang, "-O2", "-flto=thin", "-funified-lto",
                          "-c", *sources], "compile", cwd=work)
    objects = [s[:-2] + ".o" for s in sources]
    configs = {"lld-inproc": [str(LLVM_BIN / "clang"), "-fuse-ld=lld",
                              f"--ld-path={LLVM_BIN / 'ld.lld'}", "-Wl,--lto=thin"]}
    for i, ld in enumerate(args.ld_ulto):
        configs[f"ulto-{i}"] = [str(LLVM_BIN / "clang"), "-fuse-ld=lld", f"--ld-path={ld}",
                                "-Wl,--lto=distributed", "-Wl,--no-dist-cache",
                                *own_workers(Path(ld))]
    runs: Dict[str, List[tuple]] = {name: [] for name in configs}
    for _ in range(args.rounds):
        for name, argv in configs.items():
            cpu, wall, _ = timed_run(
                argv + ["-O2", "-flto=thin", *objects, "-o", name], name, cwd=work)
            runs[name].append((wall, cpu))
    print(f"{args.units + 1} modules, {args.rounds} rounds; ulto-N: {args.ld_ulto}")
    print("| config | wall min / median s | CPU min / median s | job backend / execute / around (median ms) |")
    print("|---|---:|---:|---:|")
    for name, argv in configs.items():
        walls = sorted(r[0] for r in runs[name])
        cpus = sorted(r[1] for r in runs[name])
        job = ""
        if name != "lld-inproc":
            trace = work / f"{name}.trace.json"
            timed_run(argv + ["-O2", "-flto=thin", *objects, "-o", name,
                                         f"-Wl,--dist-time-trace={trace}"], name, cwd=work)
            m = median_job(trace)
            job = f"{m['backend_ms']:.2f} / {m['execute_ms']:.2f} / {m['around_ms']:.2f}"
        print(f"| {name} | {walls[0]:.3f} / {statistics.median(walls):.3f} | "
              f"{cpus[0]:.3f} / {statistics.median(cpus):.3f} | {job} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
