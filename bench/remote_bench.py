#!/usr/bin/env python3
"""Remote execution benchmark: distributed ThinLTO backends run over REAPI.

Compiles a generated corpus (gen_corpus.py) once, as dist_bench.py does
(unified bitcode from ulto-clang++, about half the units in an archive), and
links the same inputs, through clang-22's driver, as

  lld-inproc        ld.lld-22 --lto=thin, in-process ThinLTO backends (the
                    reference)
  ulto-local        ld.ulto --lto=distributed --no-dist-cache, local executor
                    (children of the clang-22 fork server)
  ulto-remote-cold  ld.ulto --lto=distributed --no-dist-cache
                    --dist-remote=grpc://127.0.0.1:8980, against a server
                    started for this round with an empty CAS and action cache
  ulto-remote-warm  the same link again against the same server: every job
                    should be a remote cache hit and send nothing

The server is Bazel's RemoteWorker (REAPI v2) on this machine, run by
test/tools/ulto-dist/Inputs/with-remote-worker.sh in a loopback-only network
namespace; the remote links must run inside that namespace, so for them this
script runs itself again (--phase=remote) under with-remote-worker.sh, and
reads what that phase measured from a JSON file. Every link's output is run
and compared with the corpus's expected_output.txt; the remote links' programs
must be byte-identical to ulto-local's of the same round.

Reported per configuration: link wall and CPU time (os.wait4 on the driver:
the linker, ulto dist and, for local links, every backend; for remote links
the server's CPU is read separately from /proc), ratios to lld-inproc and to
ulto-local, ulto dist's summary figures (jobs run remotely, remote cache hits,
jobs run locally, bytes sent against bytes of job inputs, most jobs in
flight, its own wall time), the serial part of a distributed link (link wall
minus ulto dist's wall: lld's thin link and final link), and per-job phase
durations from --dist-time-trace. From these, a model predicts the link on a
farm of 16 two-core workers (see farm_model).
"""

import argparse
import dataclasses
import filecmp
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ultobench.corpuslink import (
    build_first, check_dist_tools, DistConfig, Inputs, link_argv, link_once, LinkResult,
    record_link)
from ultobench.errors import LinkError
from ultobench.measure import machine_cpu, server_cpu
from ultobench.rounds import ratio, rotated
from ultobench.tables import fmt, report_main
from ultobench.toolchain import BENCH_DIR, LLVM_BIN, sha256, WITH_REMOTE_WORKER

REMOTE_URL = "grpc://127.0.0.1:8980"  # where with-remote-worker.sh's server listens

# Rotation slots; the two remote links share a server and run as one slot.
SLOTS = ["lld-inproc", "ulto-local", "ulto-remote"]
REMOTE_CHAIN = ["ulto-remote-cold", "ulto-remote-warm"]
CONFIGS = [("lld-inproc", "ld.lld-22 --lto=thin (in-process)", "lld", "thin"),
           ("ulto-local", "ld.ulto --lto=distributed, local executor, no cache",
            "ulto", "distributed"),
           ("ulto-remote-cold", "ld.ulto --lto=distributed, remote, empty server",
            "ulto", "distributed"),
           ("ulto-remote-warm", "ld.ulto --lto=distributed, remote, same server again",
            "ulto", "distributed")]

MIB = 1024 * 1024
UNITS = {"B": 1, "KiB": 1024, "MiB": MIB, "GiB": 1024 * MIB}
SIZE = r"[\d.]+ (?:B|KiB|MiB|GiB)"
# ulto dist's summary line, local or remote (RemoteExecutor::report in the
# parentheses after "at once; ").
SUMMARY = re.compile(
    r"^ulto dist: (?P<jobs>\d+) jobs?: (?P<cached>\d+) cached, (?P<executed>\d+) executed, "
    r"(?P<failed>\d+) failed \((?P<executor>local|remote [^,]+), (?P<at_once>\d+) at once"
    r"(?:; (?P<remote>\d+) run remotely, (?P<hits>\d+) remote cache hits?, "
    rf"(?P<local>\d+) run locally; sent (?P<sent>{SIZE}) for (?P<inputs>{SIZE}) of inputs; "
    r"(?P<in_flight>\d+) in flight at most)?\)"
    r"(?:, \d+ damaged cache entr(?:y|ies) dropped)?; wall (?P<wall>[\d.]+)s", re.M)

# Time-trace events of one job, all inside its "backend" event (Distributor.cpp,
# RemoteExecutor.cpp).
PHASES = ["backend", "cache lookup", "execute", "check", "remote cache lookup", "upload",
          "remote execution", "download", "local fallback"]
RPC_PHASES = ["remote cache lookup", "upload", "download"]  # the model's per-job RPC overhead
SONY_ANCHOR = 3.5  # DTLTO on 16 PCs against in-process ThinLTO on one (Sony)


# --- Parsing what ulto dist reports -----------------------------------------------------

def parse_size(text: str) -> int:
    """Bytes of a size as ulto prints it, e.g. 90.8 KiB (one decimal, so
    within 0.05 of the unit)."""
    number, unit = text.split()
    return round(float(number) * UNITS[unit])


def parse_summary(line: str, what: str) -> dict:
    """The figures of ulto dist's summary line; the remote ones are None for a
    local link."""
    m = SUMMARY.match(line)
    if not m:
        raise LinkError(f"{what}: cannot read ulto dist's summary line:\n  {line}")
    g = m.groupdict()
    out = {k: int(g[k]) for k in ("jobs", "cached", "executed", "failed", "at_once")}
    out["executor"] = g["executor"]
    out["ulto_wall_s"] = float(g["wall"])
    for k in ("remote", "hits", "local", "in_flight"):
        out[k] = None if g[k] is None else int(g[k])
    for k in ("sent", "inputs"):
        out[f"{k}_bytes"] = None if g[k] is None else parse_size(g[k])
    return out


def job_phases(trace: Path) -> Dict[str, List[float]]:
    """Per phase name, one duration in seconds per job that had the phase
    (a phase that occurs twice in a job, e.g. an upload retried, is summed):
    every event is given to the "backend" event that encloses it on the same
    thread."""
    events = [e for e in json.loads(trace.read_text())["traceEvents"]
              if e.get("ph") == "X" and e.get("name") in PHASES]
    jobs: Dict[object, List[Tuple[int, int, Dict[str, float]]]] = {}
    for e in events:
        if e["name"] == "backend":
            jobs.setdefault(e["tid"], []).append((e["ts"], e["ts"] + e["dur"], {}))
    for e in events:
        enclosing = [j for j in jobs.get(e["tid"], []) if j[0] <= e["ts"] <= j[1]]
        if len(enclosing) != 1:
            raise LinkError(f"{trace}: a {e['name']!r} event at {e['ts']} us is not inside "
                            f"exactly one backend event on its thread")
        phases = enclosing[0][2]
        phases[e["name"]] = phases.get(e["name"], 0.0) + e["dur"] / 1e6
    result: Dict[str, List[float]] = {}
    for per_thread in jobs.values():
        for _, _, phases in per_thread:
            for name, seconds in phases.items():
                result.setdefault(name, []).append(seconds)
            if "execute" in phases:
                rpc = [phases[p] for p in RPC_PHASES if p in phases]
                if rpc:
                    result.setdefault("rpc overhead", []).append(sum(rpc))
    return result


def phase_stats(durations: List[float]) -> dict:
    return {"jobs": len(durations), "sum_s": sum(durations),
            "median_s": statistics.median(durations),
            "p90_s": (statistics.quantiles(durations, n=10)[-1] if len(durations) > 1
                      else durations[0]),
            "max_s": max(durations)}


def median_stats(rounds: List[dict]) -> dict:
    """Each figure's median over the rounds' stats of one phase."""
    return {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}


# --- The server -------------------------------------------------------------------------


def server_env(args: argparse.Namespace) -> Dict[str, str]:
    env = dict(os.environ)
    env.update({"ULTO_REMOTE_WORKER_TIMEOUT": str(args.server_timeout),
                "ULTO_REMOTE_WORKER_JOBS": str(args.worker_jobs),
                "ULTO_REMOTE_WORKER_DEBUG": "0",
                "ULTO_REMOTE_WORKER_CLASSES": str(args.build / "server-classes")})
    return env


# --- Linking ------------------------------------------------------------------------------

def make_configs(ulto_bin: Path, tree: Path) -> Dict[str, DistConfig]:
    linkers = {"lld": LLVM_BIN / "ld.lld", "ulto": ulto_bin / "ld.ulto"}
    return {name: DistConfig(name, label, linkers[linker], mode, tree / "bin" / name)
            for name, label, linker, mode in CONFIGS}


def trace_path(args: argparse.Namespace, name: str, r: int) -> Path:
    return args.build / "traces" / f"{name}-r{r + 1}.json"


def link_options(config: DistConfig, args: argparse.Namespace, trace: Path) -> List[str]:
    """What the configs add to link_argv's link (no cache given,
    so ulto links get --no-dist-cache): a time trace, and the server."""
    options: List[str] = []
    if config.mode == "distributed":
        options.append(f"-Wl,--dist-time-trace={trace}")
    if config.name in REMOTE_CHAIN:
        options += [f"-Wl,--dist-remote={REMOTE_URL}",
                    f"-Wl,--dist-remote-jobs={args.remote_jobs}"]
    return options


def link(config: DistConfig, tree: Path, inputs: Inputs, expected: str,
         args: argparse.Namespace, r: int) -> dict:
    """One timed, checked link (link_once). Returns the
    LinkResult's fields plus the summary line's figures."""
    options = link_options(config, args, trace_path(args, config.name, r))
    before = machine_cpu()
    result = link_once(config, tree, inputs, expected, args.thinlto_jobs,
                                  None, options)
    out = {"result": dataclasses.asdict(result), "machine_cpu_s": machine_cpu() - before}
    if config.mode == "distributed":
        out["summary"] = parse_summary(result.summary, f"link {config.name}")
    return out


def remote_phase(args: argparse.Namespace) -> int:
    """Inside with-remote-worker.sh's namespace: the cold link, then the warm
    one, each with the server's CPU over it; written to --result."""
    tree = args.build / "tree"
    saved = json.loads((tree / "inputs.json").read_text())
    inputs = Inputs([Path(p) for p in saved["objects"]], Path(saved["archive"]),
                               saved["members"])
    expected = (tree / "corpus" / "expected_output.txt").read_text()
    configs = make_configs(args.ulto_bin, tree)
    out = {}
    try:
        for name in REMOTE_CHAIN:
            jvm, actions = server_cpu(args.server_dir)
            out[name] = link(configs[name], tree, inputs, expected, args, args.round)
            jvm_after, actions_after = server_cpu(args.server_dir)
            out[name]["server_jvm_cpu_s"] = jvm_after - jvm
            out[name]["server_cpu_s"] = jvm_after + actions_after - jvm - actions
    except LinkError as e:
        print(f"ERROR: {e}", file=sys.stderr)
        return 1
    args.result.write_text(json.dumps(out, indent=2) + "\n")
    return 0


def run_remote(args: argparse.Namespace, r: int) -> dict:
    """The remote slot of round r: a fresh server directory, this script's
    remote phase under with-remote-worker.sh."""
    server_dir = args.build / "server" / f"round-{r + 1}"
    shutil.rmtree(server_dir, ignore_errors=True)
    result = args.build / f"remote-r{r + 1}.json"
    result.unlink(missing_ok=True)
    argv = [str(WITH_REMOTE_WORKER), str(server_dir), sys.executable,
            str(Path(__file__).resolve()),
            "--phase=remote", f"--round={r}", f"--server-dir={server_dir}",
            f"--result={result}", f"--build={args.build}", f"--ulto-bin={args.ulto_bin}",
            f"--remote-jobs={args.remote_jobs}"]
    if args.thinlto_jobs:
        argv.append(f"--thinlto-jobs={args.thinlto_jobs}")
    proc = subprocess.run(argv, env=server_env(args))
    if proc.returncode != 0 or not result.is_file():
        log = server_dir / "server.log"
        tail = ("\n".join(log.read_text(errors="replace").splitlines()[-30:])
                if log.is_file() else "")
        raise LinkError(f"the remote phase of round {r + 1} failed (exit status "
                        f"{proc.returncode}; its error is above); server.log ends:\n{tail}")
    return json.loads(result.read_text())


def record(config: DistConfig, out: dict, extras: Dict[str, List[dict]], r: int,
           rounds: int) -> None:
    """dist_bench's per-round bookkeeping and line, plus this script's figures."""
    record_link(config, LinkResult(**out["result"]), r, rounds)
    extra = dict(out.get("summary") or {})
    extra["wall_s"] = out["result"]["wall"]
    for key in ("server_cpu_s", "server_jvm_cpu_s"):
        if key in out:
            extra[key] = out[key]
    # Whatever else ran meanwhile: other tenants (and the program check).
    extra["others_cpu_s"] = (out["machine_cpu_s"] - out["result"]["cpu"]
                             - out.get("server_cpu_s", 0.0))
    extras[config.name].append(extra)
    line = f"others' CPU meanwhile {extra['others_cpu_s']:.2f} s"
    if extra.get("remote") is not None:
        line = (f"{extra['remote']} run remotely, {extra['hits']} remote cache hits, "
                f"{extra['local']} run locally; sent {extra['sent_bytes']:,} B for "
                f"{extra['inputs_bytes']:,} B of inputs; {extra['in_flight']} in flight at "
                f"most; ulto dist wall {extra['ulto_wall_s']:.2f} s; server CPU "
                f"{extra['server_cpu_s']:.2f} s (JVM {extra['server_jvm_cpu_s']:.2f} s); "
                + line)
    print(f"      {line}", flush=True)


def check_identical(tree: Path, r: int) -> None:
    """The remote links' programs must be ulto-local's, byte for byte."""
    local = tree / "bin" / "ulto-local"
    for name in REMOTE_CHAIN:
        if not filecmp.cmp(local, tree / "bin" / name, shallow=False):
            raise LinkError(f"round {r + 1}: {tree / 'bin' / name} differs from {local} "
                            f"(cmp {local} {tree / 'bin' / name})")
    print(f"  round {r + 1}: remote programs byte-identical to ulto-local's", flush=True)


def run_rounds(configs: Dict[str, DistConfig], tree: Path, inputs: Inputs,
               expected: str, args: argparse.Namespace) -> Tuple[Dict[str, List[dict]],
                                                                 Dict[str, List[dict]]]:
    """Every round links each slot once, in rotating order. Returns the
    per-round figures of each config and the per-round phase stats of each
    ulto config's trace."""
    extras: Dict[str, List[dict]] = {name: [] for name in configs}
    phases: Dict[str, List[dict]] = {name: [] for name in configs if name != "lld-inproc"}
    for r in range(args.rounds):
        for slot in rotated(SLOTS, r):
            if slot == "ulto-remote":
                previous = args.build / "server" / f"round-{r}"
                shutil.rmtree(previous, ignore_errors=True)  # only the last round's is kept
                outs = run_remote(args, r)
                for name in REMOTE_CHAIN:
                    record(configs[name], outs[name], extras, r, args.rounds)
            else:
                record(configs[slot], link(configs[slot], tree, inputs, expected, args, r),
                       extras, r, args.rounds)
        check_identical(tree, r)
        for name in phases:
            per_phase = job_phases(trace_path(args, name, r))
            phases[name].append({p: phase_stats(d) for p, d in per_phase.items()})
    return extras, phases


# --- Report -------------------------------------------------------------------------------

def median_of(rounds: List[dict], key: str) -> Optional[float]:
    values = [x[key] for x in rounds if x.get(key) is not None]
    return statistics.median(values) if values else None


def summarise(config: DistConfig, configs: Dict[str, DistConfig],
              extras: List[dict]) -> dict:
    row = {"config": config.name, "label": config.label, "linker": str(config.linker),
           "samples": len(config.wall_rounds),
           "wall_s_rounds": config.wall_rounds, "cpu_s_rounds": config.cpu_rounds,
           "wall_s": statistics.median(config.wall_rounds),
           "cpu_s": statistics.median(config.cpu_rounds),
           "binary_bytes": config.sizes[-1],
           "binary_bytes_stable": len(set(config.sizes)) == 1,
           "stderr_other": config.messages, "rounds": extras}
    for base in ("lld-inproc", "ulto-local"):
        for what in ("wall", "cpu"):
            row[f"{what}_vs_{base}"] = ratio(config, configs[base],
                                                        f"{what}_rounds")
    for key in ("jobs", "remote", "hits", "local", "sent_bytes", "inputs_bytes",
                "in_flight", "ulto_wall_s", "server_cpu_s", "server_jvm_cpu_s",
                "others_cpu_s"):
        row[key] = median_of(extras, key)
    serial = [x["wall_s"] - x["ulto_wall_s"] for x in extras if "ulto_wall_s" in x]
    row["serial_s"] = statistics.median(serial) if serial else None
    dedup = [x["sent_bytes"] / x["inputs_bytes"] for x in extras
             if x.get("inputs_bytes")]
    row["sent_over_inputs"] = statistics.median(dedup) if dedup else None
    hits = [x["hits"] / x["jobs"] for x in extras if x.get("hits") is not None]
    row["hit_ratio"] = statistics.median(hits) if hits else None
    return row


def farm_model(rows: Dict[str, dict], phases: Dict[str, dict], args: argparse.Namespace,
               workers: int, basis: str = "local") -> dict:
    """T(w) = T_serial + max(longest job, compute / (w x cores)) + T_transfer + T_rpc

    T_serial    ulto-local's link wall minus ulto dist's own wall (lld's thin link
                and final link, the clang driver), median over rounds;
    compute     the sum of ulto-local's per-job "execute" durations: measured with
                2 jobs at once on 2 cores, so about one core each, and taken as
                what a job costs on a worker core (basis "local"); or, basis
                "server", the CPU the server spent on the cold link (its JVM
                plus a new clang-22 process per action), i.e. what a job cost
                on this REAPI worker;
    longest     ulto-local's longest "execute" (no farm is faster than that);
    T_transfer  the bytes the cold remote link sent (its CAS uploads, which are
                unique blobs) over a --network-mib-s farm network (default
                117 MiB/s, 1 Gbit/s less framing); downloads are not counted;
    T_rpc       jobs x the median per-job RPC overhead of the cold link (remote
                cache lookup + upload + download, from its trace) / the jobs in
                flight (--dist-remote-jobs).
    Figures are medians over rounds."""
    local, cold = rows["ulto-local"], rows["ulto-remote-cold"]
    execute, rpc = phases["ulto-local"]["execute"], phases["ulto-remote-cold"]["rpc overhead"]
    cores = workers * args.farm_cores
    t_serial = local["serial_s"]
    longest = execute["max_s"]
    compute = execute["sum_s"] if basis == "local" else cold["server_cpu_s"]
    t_backends = max(longest, compute / cores)
    t_transfer = cold["sent_bytes"] / (args.network_mib_s * MIB)
    t_rpc = cold["jobs"] * rpc["median_s"] / args.remote_jobs
    total = t_serial + t_backends + t_transfer + t_rpc
    return {"basis": basis, "workers": workers, "cores": cores, "t_serial_s": t_serial,
            "longest_job_s": longest, "compute_s": compute,
            "compute_over_cores_s": compute / cores, "t_backends_s": t_backends,
            "sent_bytes": cold["sent_bytes"], "network_mib_s": args.network_mib_s,
            "t_transfer_s": t_transfer, "jobs": cold["jobs"],
            "rpc_per_job_median_s": rpc["median_s"], "in_flight": args.remote_jobs,
            "t_rpc_s": t_rpc, "t_total_s": total,
            "speedup_vs_lld_inproc": rows["lld-inproc"]["wall_s"] / total}


def mib(value: Optional[float]) -> str:
    return "–" if value is None else f"{value / MIB:.2f}"


def markdown_tables(rows: List[dict], phases: Dict[str, dict]) -> str:
    lines = ["| config | wall s | CPU s | server CPU s | wall ÷ lld-inproc "
             "| wall ÷ ulto-local | CPU ÷ lld-inproc | CPU ÷ ulto-local "
             "| ulto dist wall s | serial s | others' CPU s | binary bytes |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['config']} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} "
                     f"| {fmt(r['server_cpu_s'], '.2f')} "
                     f"| {fmt(r['wall_vs_lld-inproc'], '.3f')} "
                     f"| {fmt(r['wall_vs_ulto-local'], '.3f')} "
                     f"| {fmt(r['cpu_vs_lld-inproc'], '.3f')} "
                     f"| {fmt(r['cpu_vs_ulto-local'], '.3f')} "
                     f"| {fmt(r['ulto_wall_s'], '.2f')} | {fmt(r['serial_s'], '.2f')} "
                     f"| {fmt(r['others_cpu_s'], '.2f')} | {r['binary_bytes']:,} |")
    lines += ["", "| config | jobs | run remotely | remote cache hits | run locally "
              "| sent MiB | job inputs MiB | sent ÷ inputs | most in flight | hits ÷ jobs "
              "| server JVM CPU s |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r["remote"] is None:
            continue
        lines.append(f"| {r['config']} | {r['jobs']:g} | {r['remote']:g} | {r['hits']:g} "
                     f"| {r['local']:g} | {mib(r['sent_bytes'])} | {mib(r['inputs_bytes'])} "
                     f"| {fmt(r['sent_over_inputs'], '.3f')} | {r['in_flight']:g} "
                     f"| {fmt(r['hit_ratio'], '.1%')} | {fmt(r['server_jvm_cpu_s'], '.2f')} |")
    lines += ["", "| trace | phase | jobs | sum s | median ms | p90 ms | max ms |",
              "|---|---|---:|---:|---:|---:|---:|"]
    for name, per_phase in phases.items():
        for phase in [*PHASES, "rpc overhead"]:
            if phase in per_phase:
                s = per_phase[phase]
                lines.append(f"| {name} | {phase} | {s['jobs']:g} | {s['sum_s']:.2f} "
                             f"| {s['median_s'] * 1e3:.1f} | {s['p90_s'] * 1e3:.1f} "
                             f"| {s['max_s'] * 1e3:.1f} |")
    return "\n".join(lines)


def model_text(models: List[dict], rows: Dict[str, dict]) -> str:
    basis = {"local": "compute = ulto-local's execute durations",
             "server": "compute = the server's CPU for the cold link's actions"}
    lines = ["Model: T(w) = T_serial + max(longest job, compute / (w × cores)) "
             "+ T_transfer + T_rpc"]
    for m in models:
        lines.append(
            f"- {m['workers']} worker(s) × {m['cores'] // m['workers']} cores, "
            f"{basis[m['basis']]}: "
            f"T_serial {m['t_serial_s']:.2f} s + max({m['longest_job_s']:.2f} s, "
            f"{m['compute_s']:.1f} s / {m['cores']} = {m['compute_over_cores_s']:.2f} s) "
            f"+ T_transfer {m['sent_bytes'] / MIB:.1f} MiB / {m['network_mib_s']:g} MiB/s "
            f"= {m['t_transfer_s']:.2f} s + T_rpc {m['jobs']:g} × "
            f"{m['rpc_per_job_median_s'] * 1e3:.1f} ms / {m['in_flight']} "
            f"= {m['t_rpc_s']:.2f} s → **{m['t_total_s']:.2f} s**, "
            f"{m['speedup_vs_lld_inproc']:.2f}× lld-inproc's "
            f"{rows['lld-inproc']['wall_s']:.2f} s")
    local, cold = rows["ulto-local"], rows["ulto-remote-cold"]
    one = {m["basis"]: m for m in models if m["workers"] == 1}
    lines.append(f"- sanity check, 1 worker: predicted {one['local']['t_total_s']:.2f} s "
                 f"(server basis {one['server']['t_total_s']:.2f} s); measured "
                 f"ulto-remote-cold {cold['wall_s']:.2f} s, ulto-local "
                 f"{local['wall_s']:.2f} s on this machine")
    lines.append(f"- compute check: the execute durations (wall, 2 at once) sum to "
                 f"{one['local']['compute_s']:.1f} s; ulto-local's whole link used "
                 f"{local['cpu_s']:.1f} s of CPU; the server spent "
                 f"{fmt(cold['server_cpu_s'], '.1f')} s of CPU on the cold link's actions "
                 f"(JVM {fmt(cold['server_jvm_cpu_s'], '.1f')} s of it)")
    farm = [m for m in models if m["workers"] == max(x["workers"] for x in models)]
    lines.append(f"- predicted speed-up on {farm[0]['workers']} workers against in-process "
                 f"ThinLTO on one machine: "
                 + ", ".join(f"{m['speedup_vs_lld_inproc']:.2f}× ({m['basis']} basis)"
                             for m in farm)
                 + f"; anchor: Sony's DTLTO on 16 PCs, {SONY_ANCHOR}×")
    return "\n".join(lines)


def notes(rows: Dict[str, dict]) -> List[str]:
    out = []
    warm = rows["ulto-remote-warm"]
    for x in warm["rounds"]:
        if x["hits"] != x["jobs"] or x["sent_bytes"]:
            out.append(f"- NOTE: a warm link had {x['hits']}/{x['jobs']} remote cache hits "
                       f"and sent {x['sent_bytes']} B (expected all hits, 0 B)")
    for name in REMOTE_CHAIN:
        for x in rows[name]["rounds"]:
            if x["local"]:
                out.append(f"- NOTE: {name} ran {x['local']} jobs locally (fallback)")
    return out


# --- Driver -------------------------------------------------------------------------------

def parse_args(argv: Optional[List[str]]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--units", type=int, default=300, help="generated units (default 300)")
    ap.add_argument("--seed", type=int, default=1, help="corpus seed (default 1)")
    ap.add_argument("--rounds", type=int, default=2, help="timed rounds (default 2)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel compiles (default 2)")
    ap.add_argument("--thinlto-jobs", type=int, default=None,
                    help="backends at once: --thinlto-jobs= for lld-inproc and "
                         "--dist-jobs= for ld.ulto (default: each tool's own, one per "
                         "hardware thread)")
    ap.add_argument("--remote-jobs", type=int, default=32,
                    help="--dist-remote-jobs= for the remote links (default 32, "
                         "ulto dist's own)")
    ap.add_argument("--worker-jobs", type=int, default=2,
                    help="actions the server runs at once, ULTO_REMOTE_WORKER_JOBS "
                         "(default 2)")
    ap.add_argument("--server-timeout", type=int, default=1800,
                    help="seconds one server (one round's remote links) may run "
                         "(default 1800)")
    ap.add_argument("--farm-workers", type=int, default=16,
                    help="workers of the modelled farm (default 16)")
    ap.add_argument("--farm-cores", type=int, default=2,
                    help="cores per modelled worker (default 2)")
    ap.add_argument("--network-mib-s", type=float, default=117.0,
                    help="modelled farm network in MiB/s (default 117: 1 Gbit/s)")
    ap.add_argument("--build", type=Path, default=BENCH_DIR / "out-remote",
                    help="work directory: tree, server directories, traces, "
                         "remote.json (default bench/out-remote)")
    ap.add_argument("--ulto-bin", type=Path, default=Path("/work/main/build/bin"),
                    help="directory holding ulto-clang++, ld.ulto and ulto "
                         "(default /work/main/build/bin)")
    ap.add_argument("--phase", choices=["all", "remote"], default="all",
                    help="all (default); remote is the part run under "
                         "with-remote-worker.sh")
    ap.add_argument("--round", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--server-dir", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if min(args.units, args.rounds, args.jobs, args.remote_jobs, args.worker_jobs,
           args.farm_workers, args.farm_cores) < 1:
        ap.error("--units, --rounds, --jobs, --remote-jobs, --worker-jobs, "
                 "--farm-workers and --farm-cores must be positive")
    if args.thinlto_jobs is not None and args.thinlto_jobs < 1:
        ap.error("--thinlto-jobs must be positive")
    if args.phase == "remote" and not (args.server_dir and args.result):
        ap.error("--phase=remote is run by the script itself")
    args.ulto_bin = args.ulto_bin.resolve()
    args.build = args.build.resolve()
    return args


def check_tools(args: argparse.Namespace) -> None:
    check_dist_tools(args.ulto_bin)
    missing = [tool for tool in ("java", "javac", "unshare", "timeout")
               if not shutil.which(tool)]
    if not os.access(WITH_REMOTE_WORKER, os.X_OK):
        missing.append(str(WITH_REMOTE_WORKER))
    if missing:
        raise LinkError("missing (or not executable):\n  " + "\n  ".join(missing))


def benchmark(args: argparse.Namespace) -> Tuple[dict, str]:
    check_tools(args)
    # Which build was measured, read before anything runs (it is rebuilt often).
    sha = {p.name: sha256(p)
           for p in (args.ulto_bin / "ld.ulto", args.ulto_bin / "ulto",
                     args.ulto_bin / "ulto-clang++")}
    build, tree = args.build, args.build / "tree"
    for d in (tree, build / "server", build / "traces"):
        shutil.rmtree(d, ignore_errors=True)
    build.mkdir(parents=True, exist_ok=True)
    if build == (BENCH_DIR / "out-remote").resolve():
        (build / ".gitignore").write_text("*\n")  # the default work dir ignores itself
    (build / "traces").mkdir()

    inputs = build_first(args, tree)
    (tree / "inputs.json").write_text(json.dumps(
        {"objects": [str(p) for p in inputs.objects], "archive": str(inputs.archive),
         "members": inputs.members}, indent=2) + "\n")
    expected = (tree / "corpus" / "expected_output.txt").read_text()
    configs = make_configs(args.ulto_bin, tree)

    extras, phase_rounds = run_rounds(configs, tree, inputs, expected, args)

    rows = [summarise(c, configs, extras[c.name]) for c in configs.values()]
    by_name = {r["config"]: r for r in rows}
    phases = {name: {p: median_stats([r[p] for r in rounds if p in r])
                     for p in rounds[0]} for name, rounds in phase_rounds.items()}
    models = [farm_model(by_name, phases, args, w, basis)
              for basis in ("local", "server") for w in sorted({1, args.farm_workers})]
    report = {"units": args.units, "seed": args.seed, "rounds": args.rounds,
              "jobs": args.jobs, "thinlto_jobs": args.thinlto_jobs,
              "remote_jobs": args.remote_jobs, "worker_jobs": args.worker_jobs,
              "objects": len(inputs.objects), "archive_members": len(inputs.members),
              "sha256": sha,
              "link_argv": {c.name: link_argv(
                  c, inputs, args.thinlto_jobs, None,
                  link_options(c, args, build / "traces" / f"{c.name}-rN.json"))
                  for c in configs.values()},
              "tree": str(tree), "configs": rows, "phases": phases,
              "phases_rounds": phase_rounds, "model": models,
              "model_doc": farm_model.__doc__, "sony_anchor": SONY_ANCHOR}
    text = "\n\n".join([markdown_tables(rows, phases), model_text(models, by_name),
                        *(["\n".join(notes(by_name))] if notes(by_name) else [])])
    return report, text


def main(argv: Optional[List[str]] = None) -> int:
    args = parse_args(argv)
    if args.phase == "remote":
        return remote_phase(args)
    return report_main(args, benchmark, "remote.json")


if __name__ == "__main__":
    sys.exit(main())
