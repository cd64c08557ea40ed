"""Real projects (bench/realworld): Debian source packages fetched once, their
build and test steps run as process groups (timed, stopped with us), and the
ulto installation prefix their builds use (set_prefix; read ULTO_BIN and
TOOLCHAIN_FILE through this module, they change)."""

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ultobench.toolchain import REPO

ULTO_PREFIX = REPO / "build"
# set by set_prefix(): the ulto tools the cells use
ULTO_BIN = ULTO_PREFIX / "bin"
TOOLCHAIN_FILE = ULTO_PREFIX / "share" / "ulto" / "ulto.cmake"


def set_prefix(prefix: Path) -> None:
    global ULTO_BIN, TOOLCHAIN_FILE
    ULTO_BIN = prefix / "bin"
    TOOLCHAIN_FILE = prefix / "share" / "ulto" / "ulto.cmake"


SRC_LIST = Path("/etc/apt/sources.list.d/ulto-realworld-src.sources")
DEB_SRC = """Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def apt_retry(cmd: List[str], cwd: Optional[Path] = None) -> subprocess.CompletedProcess:
    """apt may be busy with another user's run: retry on its lock."""
    for attempt in range(30):
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        if p.returncode == 0 or "lock" not in p.stdout.lower():
            return p
        time.sleep(10)
    return p


def have_deb_src() -> bool:
    d = Path("/etc/apt")
    files = [d / "sources.list"] + sorted((d / "sources.list.d").glob("*"))
    for f in files:
        try:
            text = f.read_text()
        except OSError:
            continue
        if f.suffix == ".sources" and re.search(r"^Types:.*deb-src", text, re.M):
            return True
        if f.suffix == ".list" and re.search(r"^\s*deb-src\s", text, re.M):
            return True
    return False


def fetch(package: str, cache: Path) -> Path:
    """The extracted sources of a Debian source package, fetched once."""
    cache.mkdir(parents=True, exist_ok=True)
    tree = cache / "src" / package
    if (tree / ".extracted").exists():
        return tree
    dscs = sorted(cache.glob(f"{package}_*.dsc"))
    if not dscs:
        if not have_deb_src():
            log(f"adding {SRC_LIST}")
            SRC_LIST.write_text(DEB_SRC)
            p = apt_retry(["apt-get", "update"])
            if p.returncode:
                raise RuntimeError(f"apt-get update failed:\n{p.stdout[-2000:]}")
        log(f"fetching {package}")
        p = apt_retry(["apt-get", "source", "--download-only", package], cwd=cache)
        dscs = sorted(cache.glob(f"{package}_*.dsc"))
        if p.returncode or not dscs:
            for f in dscs:
                f.unlink()
            raise RuntimeError(f"apt-get source {package} failed:\n{p.stdout[-2000:]}")
    if tree.exists():
        shutil.rmtree(tree)
    tree.parent.mkdir(parents=True, exist_ok=True)
    p = subprocess.run(["dpkg-source", "--no-check", "-x", str(dscs[-1]), str(tree)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode:
        raise RuntimeError(f"dpkg-source -x {dscs[-1].name} failed:\n{p.stdout[-2000:]}")
    (tree / ".extracted").write_text(dscs[-1].name + "\n")
    return tree


RUNNING: List[int] = []  # the step's process group, stopped with us


def on_term(signum, frame) -> None:
    for pid in RUNNING:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    sys.exit(128 + signum)


def run_step(cmd, cwd: Path, env: Dict[str, str], logf, timeout: float,
             shell: bool = False) -> Dict:
    """Run one step as a process group; wall, CPU (wait4) and exit status."""
    shown = cmd if shell else shlex.join(cmd)
    logf.write(f"\n$ cd {cwd} && {shown}\n")
    logf.flush()
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=logf, stderr=subprocess.STDOUT,
                         shell=shell, start_new_session=True)
    RUNNING[:] = [p.pid]
    timed_out = False
    deadline = t0 + timeout
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            timed_out = True
            os.killpg(p.pid, signal.SIGKILL)
            pid, status, ru = os.wait4(p.pid, 0)
            break
        time.sleep(0.05)
    p.returncode = os.waitstatus_to_exitcode(status)
    try:  # what the group left behind
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    rc = p.returncode
    logf.write(f"# exit {rc}{' (timed out)' if timed_out else ''}, "
               f"{time.monotonic() - t0:.1f}s wall, {ru.ru_utime + ru.ru_stime:.1f}s CPU\n")
    logf.flush()
    return {"rc": rc, "timed_out": timed_out, "wall": round(time.monotonic() - t0, 2),
            "cpu": round(ru.ru_utime + ru.ru_stime, 2)}


def tally(cells: List[Optional[Dict]]) -> Tuple[int, int]:
    """The cells that passed and failed, of those that ran."""
    ran = [c for c in cells if c is not None]
    passed = sum(1 for c in ran if c.get("pass"))
    return passed, len(ran) - passed
