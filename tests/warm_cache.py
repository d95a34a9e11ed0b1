"""Compile what the default tier shares, once, before pytest-xdist's workers start (tests/conftest.py).

    python tests/warm_cache.py PART PARTS

Each of the PARTS processes compiles every PARTS-th item (PART = 0 .. PARTS-1) into numba's disk
cache: the search loops of tests/default_variants.txt (one small search each) and the kernels of
every built-in policy.  Without it the two workers of ``python -m pytest -n 2`` each compiled the
loops most tests share, at the same time (numba has no lock across processes), so both cores spent
their first minute compiling the same code; the workers now load it from the cache.  A failure here
is only reported: the tests compile what they need themselves.
"""
from __future__ import annotations

import sys

#: (game, search keywords) of one search for each loop variant of tests/default_variants.txt
SEARCHES = [("connect4", {}), ("connect4", {"rave": True}), ("go", {}), ("nogo", {}), ("tictactoe", {}),
            ("connect4", {"root_policy": "seqhalving"}), ("connect4", {"threads": 2})]


def main(part: int, parts: int) -> int:
    from bandits import make_policy
    from bandits.registry import kernels_for, policy_names
    from treepolicies import make_game, search

    jobs = [("search", game, kw) for game, kw in SEARCHES] + [("policy", name, None) for name in policy_names()]
    failed = 0
    for k, (what, name, kw) in enumerate(jobs):
        if k % parts != part:
            continue
        try:
            if what == "search":
                search(make_game(name), "ucb1", iterations=50, seed=0, **kw)
            else:
                policy = make_policy(name)
                kernels_for(type(policy), policy.instance_kernel_spec())
        except Exception as exc:  # (reported; the test that needs it compiles it)
            failed += 1
            print(f"warm_cache: {what} {name}: {type(exc).__name__}: {exc}", file=sys.stderr)
    return 0 if not failed else 1


if __name__ == "__main__":
    raise SystemExit(main(int(sys.argv[1]), int(sys.argv[2])))
