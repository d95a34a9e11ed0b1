"""What a root scheme costs: iterations per second of a search with ``root_policy=`` against the same
search without one (issue target: at most 10 % slower at 1000 playouts on 9x9 Go).

    python benchmarks/root_policy_speed.py [--game go] [--iterations 1000] [--repeats 7] [--searches 5]

Each timing is ``--searches`` fresh searches of ``--iterations`` iterations from the opening
(seeds 0..searches-1, early_stop off so every search runs its budget); the schemes are interleaved
and the best of ``--repeats`` rounds is kept (the machine is shared).  Compilation happens in a
warm-up round that is not timed.  Printed: iterations per second and the ratio to plain UCB1.
"""
from __future__ import annotations

import argparse
import sys
import time

SCHEMES = ("none", "seqhalving", "halfgreedy", "ucbsqrt", "gumbel", "sr", "shot", "hmcts",
           "tree=shot:c=0.5", "tree=hmcts:c=0.5")


def _run(game, scheme, iterations, searches, final):
    """``scheme``: a root policy over UCB1 (c = 0.5), ``none``, or ``tree=SPEC``: SPEC as the tree
    policy (SHOT and H-MCTS run at every node), no root policy."""
    from treepolicies.mcts import search

    policy = "ucb1:c=0.5"
    kw = {} if scheme == "none" else dict(root_policy=scheme, final=final)
    if scheme.startswith("tree="):
        policy, kw = scheme[len("tree="):], dict(final=final)
    t = time.perf_counter()
    for seed in range(searches):
        search(game, policy, iterations=iterations, seed=seed, early_stop=False, **kw)
    return searches * iterations / (time.perf_counter() - t)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="go")
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--searches", type=int, default=5)
    parser.add_argument("--schemes", nargs="*", default=list(SCHEMES))
    args = parser.parse_args(argv)
    from treepolicies.games import make_game

    game = make_game(args.game)
    best = {}
    for scheme in args.schemes:  # warm-up: compiles each loop and policy (not timed)
        _run(game, scheme, 50, 1, "recommend")
    for _ in range(args.repeats):
        for scheme in args.schemes:
            rate = _run(game, scheme, args.iterations, args.searches, "recommend")
            best[scheme] = max(best.get(scheme, 0.0), rate)
    base = best.get("none")
    print(f"{args.game}, {args.iterations} iterations a search, best of {args.repeats} rounds of {args.searches} searches")
    for scheme in args.schemes:
        ratio = f"{best[scheme] / base:6.3f}" if base else "   -"
        shown = scheme if scheme.startswith("tree=") else f"root_policy={scheme}"
        print(f"{shown:24s} {best[scheme]:10.0f} it/s   ratio to none {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
