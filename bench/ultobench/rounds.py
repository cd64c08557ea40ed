"""Interleaved rounds: the order of configurations rotates from round to
round, and ratios are taken between figures of the same round."""

import math
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


def ratio_stats(num: List[Optional[float]], den: List[Optional[float]]) -> Optional[dict]:
    per_round = [a / b for a, b in zip(num, den) if a is not None and b]
    if not per_round:
        return None
    return {"rounds": per_round, "min": min(per_round), "median": statistics.median(per_round)}


def median_of(values: List[Optional[float]]) -> Optional[float]:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def geomean(values: List[float]) -> Optional[float]:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None
