"""Keep the default test tier within its compile budget: which tests need which search loops.

Every search-loop variant (treepolicies.mcts.steps.Config x executor) costs 10-30 s to compile on a
fresh clone; the default tier compiles only the variants of tests/default_variants.txt (the guard
in tests/conftest.py fails a test that asks for another).  This script turns a recording run into
the list of tests that need other variants, tests/beyond_default.txt (run with --slow only)::

    rm -f tests/.variants.tsv
    BANDITREE_TEST_VARIANTS=record python -m pytest -n 2     # records (test, variant) requests
    python benchmarks/suite_tiers.py                          # adds those tests to beyond_default.txt

Repeat until the recording run has no test failing with "compiles the search loop" (a test that
asks for an allowed variant first and another one later shows up in the next round).  With
``--counts`` it prints how many tests ask for each variant (to choose the default set).
"""
from __future__ import annotations

import os
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(os.path.dirname(HERE), "tests")


def _lines(name):
    path = os.path.join(TESTS, name)
    if not os.path.exists(path):
        return []
    with open(path) as fh:
        return [line.rstrip("\n") for line in fh if line.strip() and not line.startswith("#")]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    requests = [line.split("\t") for line in _lines(".variants.tsv")]
    allowed = set(_lines("default_variants.txt"))
    if "--counts" in argv:
        counts = Counter(v for _, v in {(t, v) for t, v in requests})
        for variant, n in counts.most_common():
            print(f"{n:5d}  {'*' if variant in allowed else ' '} {variant}")
        return 0
    beyond = set(_lines("beyond_default.txt"))
    new = sorted({t for t, v in requests if v not in allowed and t != "None"} - beyond)
    header = ("# tests that compile a search loop outside tests/default_variants.txt: run with --slow only\n"
              "# (made by benchmarks/suite_tiers.py from a BANDITREE_TEST_VARIANTS=record run)\n")
    with open(os.path.join(TESTS, "beyond_default.txt"), "w") as fh:
        fh.write(header + "".join(f"{t}\n" for t in sorted(beyond | set(new))))
    print(f"{len(new)} tests added, {len(beyond) + len(new)} in tests/beyond_default.txt")
    return 0


if __name__ == "__main__":
    sys.exit(main())
