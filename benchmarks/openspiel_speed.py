"""Iterations per second on OpenSpiel's games: our search through the adapter against OpenSpiel's MCTS.

    python benchmarks/openspiel_speed.py [--iterations 2000] [--repeats 3]

Each game (``make_game("openspiel:<spec>")``, treepolicies.games.openspiel) is searched from its
initial state by our Python-game driver (``ucb1`` at c = sqrt 2, one uniformly random playout an
iteration, no early stop), by OpenSpiel's Python ``MCTSBot`` (open_spiel.python.algorithms.mcts,
UCT c = sqrt 2, one random rollout) and by its C++ ``pyspiel.MCTSBot`` (the same), ``--iterations``
each, interleaved, best of ``--repeats``.  The game's own calls (legal actions, apply, clone,
returns) are the floor of both Python searches.  Needs the ``open_spiel`` package (the
``openspiel`` extra).  A measurement, not a test: nothing here asserts a speed.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from search_speed import openspiel_cpp, openspiel_python  # noqa: E402

from treepolicies import search  # noqa: E402
from treepolicies.games import make_game  # noqa: E402

#: the games: two players (Connect Four, small Breakthrough and Hex) and chance nodes (Pig)
GAMES = ("connect_four", "breakthrough(rows=6,columns=6)", "hex(board_size=5)", "pig")


def ours(spec, iterations, seed):
    result = search(make_game("openspiel:" + spec), f"ucb1:c={math.sqrt(2.0)!r}", iterations=iterations, seed=seed,
                    early_stop=False)
    return result.iterations / result.elapsed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--games", nargs="*", default=list(GAMES))
    args = parser.parse_args(argv)
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("open_spiel is not installed: pip install -e \".[openspiel]\"")
        return 1
    for spec in args.games:  # (compiles the tree kernels once, before any clock)
        ours(spec, 50, 0)
    print(f"iterations/s from the initial state, {args.iterations} iterations a search, best of {args.repeats} "
          "interleaved")
    print(f"{'game':32s} {'ours':>9s} {'OpenSpiel Py':>13s} {'OpenSpiel C++':>14s} {'ours/Py':>8s} {'ours/C++':>9s}")
    for spec in args.games:
        mine, py, cpp = [], [], []
        for r in range(args.repeats):
            mine.append(ours(spec, args.iterations, r + 1))
            py.append(openspiel_python(spec, args.iterations))
            cpp.append(openspiel_cpp(spec, args.iterations, 1))
        a, b, c = max(mine), max(py), max(cpp)
        print(f"{spec:32s} {a:9.0f} {b:13.0f} {c:14.0f} {a / b:8.2f} {a / c:9.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
