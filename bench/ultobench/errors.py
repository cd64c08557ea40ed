"""The exceptions a benchmark reports by name: each ends a run (or one
configuration's part of it) with an ERROR or PROBLEM line, not a traceback."""


class BenchError(Exception):
    """A benchmark cannot go on; the base of the ones below."""


class CompileError(BenchError):
    pass


class LinkError(BenchError):
    pass
