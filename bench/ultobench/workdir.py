"""Working and output directories of a benchmark run."""

import contextlib
import os
import shutil
from pathlib import Path
from typing import Iterator

from ultobench.errors import LinkError

OWN_DIR_MARK = ".ulto-bench"


def fresh_own_dir(path: Path, option: str, mine: bool = False) -> None:
    """Makes `path` an empty directory marked as a benchmark's own. A
    directory there is removed first only if it is `mine` (inside the
    script's own work directory) or marked by an earlier run; any other is
    the user's, and the run stops rather than delete it."""
    if mine or (path / OWN_DIR_MARK).exists():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists():
        raise LinkError(f"{path} exists and no earlier run made it; "
                        f"remove it or choose another {option}")
    path.mkdir(parents=True)
    (path / OWN_DIR_MARK).touch()


@contextlib.contextmanager
def in_dir(path: Path) -> Iterator[None]:
    """Run a block with `path` as the working directory, so that the sibling
    scripts' helpers, which take paths as given, see relative paths."""
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)
