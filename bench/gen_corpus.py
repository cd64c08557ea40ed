#!/usr/bin/env python3
"""Generate a deterministic multi-file C++17 program for ulto's benchmarks.

The corpus exercises what matters for (unified) LTO: class hierarchies with
virtual functions (so vtables carry type metadata), anonymous-namespace
classes, templates instantiated in many TUs (linkonce_odr/comdat copies),
cross-TU calls (so ThinLTO imports), and "internal-only" TUs whose only
definitions have internal linkage or live in comdats.  The last kind is the
case where stock clang cannot compute a unique module ID and therefore
writes an unsplit regular-LTO module even under -funified-lto.

The generator also *evaluates* the program itself (a Python mirror of every
generated statement), so DIR/expected_output.txt is known without running
anything: a linked binary is correct iff its stdout equals that file.

Layout of DIR:
  common.h            shared header (templates, Node base class, registry API)
  base.cpp            Node's key function and bench::apply
  registry.cpp        the name-ordered registry internal-only TUs register into
  main.cpp            calls every public unit's entry(), runs the registry
  uNNNN.cpp           N generated units (public or internal-only)
  units.txt           every source file, one per line, relative to DIR
  expected_output.txt what the linked program prints

Same arguments give byte-identical output: all randomness comes from
random.Random seeded with strings (hashed with SHA-512, independent of
PYTHONHASHSEED), and nothing iterates an unordered container.
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
