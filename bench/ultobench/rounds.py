"""Interleaved rounds: the order of configurations rotates from round to
round, and ratios are taken between figures of the same round."""

import statistics
from typing import List, Optional, TypeVar

T = TypeVar("T")


def rotated(configs: List[T], round_index: int) -> List[T]:
    """Round r runs the configurations starting from the r-th one."""
    k = round_index % len(configs)
    return configs[k:] + configs[:k]


def ratio(a: object, b: object, what: str,
          pick=statistics.median) -> Optional[float]:
    """Median (or `pick`) over rounds of a's figure over b's in the same
    round."""
    xs, ys = getattr(a, what), getattr(b, what)
    pairs = [x / y for x, y in zip(xs, ys) if y]
    return pick(pairs) if pairs else None
