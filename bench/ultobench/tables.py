"""Markdown tables, the figures in them, and printing a report."""

import json
import sys
from typing import List, Optional, Type

from ultobench.errors import LinkError


def fmt(value: Optional[float], spec: str) -> str:
    return "–" if value is None else format(value, spec)


def table(head: List[str], rows: List[List[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(head) - 1)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def report_main(args, run, report_name: str,
                errors: Type[Exception] = LinkError) -> int:
    """Runs a benchmark (run(args) -> (report, text)), prints its tables and
    writes its JSON report to args.build/report_name; `errors` end it with
    an ERROR line and exit status 1."""
    try:
        report, text = run(args)
    except errors as e:
        print(f"ERROR: {e}", file=sys.stderr)
        return 1
    print()
    print(text)
    out = args.build / report_name
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwrote {out}")
    return 0


def fmt_ratio(r: Optional[dict]) -> str:
    return "–" if r is None else f"{r['min']:.3f} / {r['median']:.3f}"
