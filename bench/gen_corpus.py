#!/usr/bin/env python3
"""Generate a deterministic multi-file C++17 program for ulto's benchmarks.

What the program holds, the layout of the directory and why the same
arguments give the same bytes: ultobench/corpus.py.
"""

import argparse
import sys
from pathlib import Path
from typing import List, Optional

from ultobench.corpus import write_corpus


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, type=Path, help="output directory")
    ap.add_argument("--units", required=True, type=int,
                    help="number of generated units (main/base/registry come on top)")
    ap.add_argument("--seed", type=int, default=1, help="corpus seed (default 1)")
    args = ap.parse_args(argv)
    if args.units < 1:
        ap.error("--units must be at least 1")
    corpus = write_corpus(args.out, args.units, args.seed)
    print(f"wrote {len(corpus.sources)} sources ({len(corpus.internal)} internal-only "
          f"units) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
