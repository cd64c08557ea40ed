"""Checked copies of ulto's tools for one run (others rebuild the build
directories at any time)."""

import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Sequence

from ultobench.errors import LinkError
from ultobench.toolchain import sha256


def snapshot(src: Path, dest: Path, names: Sequence[str]) -> Path:
    """Copies of src's programs in dest/bin (returned), checked to hold the
    bytes src holds after the copy and to start: the build directories are
    rebuilt by others, and a rebuild during a run must not mix versions or
    break a link. ld.ulto runs the ulto (and ulto-dist-attach) next to it,
    so the copies work together; ulto's libraries (remote execution, the
    distributor ld.ulto forks into and its workers' code) go to
    dest/lib/ulto, where the copies look for them."""
    shutil.rmtree(dest, ignore_errors=True)
    copies = [(src / name, dest / "bin" / name) for name in names]
    plugin = Path("lib") / "ulto" / "libUltoRemote.so"
    if "ulto" in names and (src.parent / plugin).exists():
        copies.append((src.parent / plugin, dest / plugin))
    # ld.ulto's distributor when it starts ulto dist early; without it,
    # lld starts ulto dist itself. ld.ulto forks into libUltoDist.so, or
    # starts ulto dist without it.
    if "ld.ulto" in names and (src / "ulto-dist-attach").exists():
        copies.append((src / "ulto-dist-attach", dest / "bin" / "ulto-dist-attach"))
    # With the workers' code it loads to start a fork server.
    for library in ("libUltoDist.so", "libUltoClangWorkers.so"):
        forked = Path("lib") / "ulto" / library
        if "ld.ulto" in names and (src.parent / forked).exists():
            copies.append((src.parent / forked, dest / forked))
    for source, copy in copies:
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, copy)  # a symlink's target, under its own name
        if (copy.stat().st_size == 0
                or sha256(copy) != sha256(source)):
            raise LinkError(f"{source} changed while it was copied (being "
                            f"rebuilt?); run again when the build is done")
    checks = {"ld.ulto": ["--version"], "ulto": ["dist", "--help"],
              "ulto-clang++": ["--version"]}
    for name in names:
        argv = [str(dest / "bin" / name), *checks[name]]
        proc = subprocess.run(argv, capture_output=True, text=True)
        if proc.returncode != 0:
            raise LinkError(f"the copy of {src / name} does not run (exit "
                            f"{proc.returncode}):\n  {shlex.join(argv)}\n{proc.stderr}")
    return dest / "bin"
