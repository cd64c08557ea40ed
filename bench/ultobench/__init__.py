"""Shared code of ulto's benchmarks (bench/*.py, bench/realworld/*.py).

A library, not a script: each module is one concept, none has a main, and
the scripts import from here only, never from each other.

  errors      the exceptions a benchmark reports by name
  toolchain   where the stock and ulto tools are, and facts about them
  workdir     working and output directories
  measure     timing (CPU, wall), instruction counts, whole-machine CPU
  rounds      interleaved rounds and ratios within a round
  tables      markdown tables, figures in them, printing a report
  snapshot    checked copies of ulto's tools for a run
  corpus      the generated corpus (bench/gen_corpus.py)
  jobs        compiling the generated corpus
  corpuslink  linking the generated corpus, locally and distributed
  testsuite   the LLVM test-suite subset in ../shared/testsuite
  projects    real projects of bench/realworld: fetching, steps, ulto prefix
"""
