"""What a playout policy (docs/playouts.md) costs on 9x9 Go, one core.

    PYTHONPATH=. python benchmarks/playout_speed.py [--size 9] [--playouts 20000] [--iterations 5000]
                                                    [--repeats 3] [--rollouts random,mast,lgrf1,...]
                                                    [--no-search] [--overhead]

1. Playouts per second from the empty board: the one playout loop of treepolicies.mcts.playouts
   (``play_playout``: the policy's choices, its statistics read and updated once per playout, as
   in a search) against the game's random rollout kernel (``rollout=random``), each in a compiled
   loop that copies the empty position, plays ``--playouts`` playouts and scores each (as a search
   does); with the plies a playout averages (a policy changes the playouts' length, which changes
   the rate by itself) and the rate over the random rollout's, round by round, their median (the
   issue's target: MAST and LGRF at least 0.70 of it), and each one's best round over the random
   rollout's best round ("best / best": on a machine shared with other work, the rounds least
   disturbed).  ``defer`` (registered here) always answers -1, the game's
   random ply: the floor of a policy that chooses every ply, the rollout kernel called ply by ply.
2. For each ``rollout=`` it times UCT (``ucb1:c=0.5``) searching ``--iterations`` playouts from the
empty board (no early stop; the compiled loop, one thread; a warm-up search compiles first) and
prints the median iterations per second over ``--repeats`` and that rate over ``rollout=random``'s
(the issue's target: MAST and LGRF at least 0.70 of it), and the best search over random's best.
Also ``plain``: the search without any option (the game's own playout kernel, the plain loop).
3. With ``--overhead``: the best time of a search of one iteration with each rollout, what a search
costs besides its iterations.  A measurement, not a test; run it on an idle machine or read only
the ratios within one run.
"""
from __future__ import annotations

import argparse
import math
import statistics
import time

import numba as nb
import numpy as np

from bandits.rng import stream_state
from treepolicies import search
from treepolicies.games.go import Go
from treepolicies.mcts import calls
from treepolicies.mcts.calls import game_key, rollout_key
from treepolicies.mcts.options import SearchOptions
from treepolicies.mcts.playouts import make_playout, play_playout, playout_policy

_LOOPS: dict = {}


@nb.njit(cache=True)
def _defer_choose(stats, params, codes, plies, k, mover, moves, n, rng, buf):
    return 0


@nb.njit(cache=True)
def _defer_update(stats, params, codes, plies, start, k, who, value, buf):
    pass


@nb.njit(cache=True)
def _defer_propose(stats, params, codes, plies, k, mover, rng, buf, tries):
    return -1


#: ``defer``: a playout policy that always answers -1 (the game's random ply) and learns nothing:
#: the floor of the one playout loop, the game's rollout kernel called one ply at a time
playout_policy("defer", choose=_defer_choose, update=_defer_update, propose=_defer_propose,
               size=lambda codes, params: 1)


def _loop(pkey, gkey, rkey):
    """A compiled loop of ``n`` playouts from ``state0`` (a policy's by key, or "" the rollout's)."""
    if (pkey, gkey, rkey) in _LOOPS:
        return _LOOPS[(pkey, gkey, rkey)]
    if pkey == "":
        @nb.njit(cache=False)  # (compiled in each process: it inlines the playout loop, whose edits numba's cache would miss)
        def run(state0, n, rng, plies, opts):
            s = state0.copy()
            total = 0
            value = 0.0
            for i in range(n):
                s[:] = state0
                total += calls.rollout_play(rkey, s, rng, plies, -1)
                value += calls.rollout_value(rkey, s, i & 1)  # (valued, as in a search)
            if value < 0.0:
                total = -1
            return total
    else:
        @nb.njit(cache=False)  # (compiled in each process: it inlines the playout loop, whose edits numba's cache would miss)
        def run(state0, n, rng, plies, opts):
            s = state0.copy()
            total = 0
            for i in range(n):
                s[:] = state0
                total += play_playout(pkey, gkey, rkey, s, rng, plies, 0, -1, opts, i & 1)[1]
            return total
    _LOOPS[(pkey, gkey, rkey)] = run
    return run


def playout_rates(size, specs, playouts, repeats):
    """spec -> (playouts per second, plies per playout, rate over random's, best rate over random's
    best) from the empty board (module docstring).  The specs run interleaved, ``repeats`` rounds;
    each round's rate is divided by the random rollout's of the same round (a shared machine's
    load drifts), and the medians are reported; and the best rate of each over the random
    rollout's best (the round least disturbed by other work, for each)."""
    game = Go(size)
    gkey, rkey = game_key(game.kernels), rollout_key(game.rollouts["random"])
    plies = np.empty(4 * game.max_plies + 8, np.int64)
    runs = {}
    for spec in ["random"] + [s for s in specs if s != "random"]:
        opts = SearchOptions().array()
        pkey = ""
        if spec != "random":
            bound = make_playout(spec)
            pkey = bound.key_for(game.move_check, game.move_draw)
            opts = np.concatenate([opts, bound.block(game.move_codes, game.max_moves)])
        run = _loop(pkey, gkey, rkey)
        run(game.state, 10, stream_state(1, 0, 0), plies, opts)  # compile
        runs[spec] = (run, opts)
    rates = {spec: [] for spec in runs}
    lengths = {spec: [] for spec in runs}
    for rep in range(repeats):
        for spec, (run, opts) in runs.items():
            t0 = time.perf_counter()
            total = run(game.state, playouts, stream_state(rep, 0, 0), plies, opts)
            rates[spec].append(playouts / (time.perf_counter() - t0))
            lengths[spec].append(total / playouts)
    return {spec: (statistics.median(rates[spec]), statistics.median(lengths[spec]),
                   statistics.median(r / b for r, b in zip(rates[spec], rates["random"])),
                   max(rates[spec]) / max(rates["random"])) for spec in runs}


def rate(size, rollout, iterations, repeats):
    """UCT's iterations per second searching ``iterations`` playouts from the empty board: the
    ``repeats`` rates, in order."""
    kw = {} if rollout == "plain" else {"rollout": rollout}
    search(Go(size), "ucb1:c=0.5", iterations=50, seed=0, early_stop=False, **kw)  # compile first
    out = []
    for rep in range(repeats):
        t0 = time.perf_counter()
        r = search(Go(size), "ucb1:c=0.5", iterations=iterations, seed=rep, early_stop=False, **kw)
        out.append(r.iterations / (time.perf_counter() - t0))
    return out


def overhead(size, rollout, repeats):
    """The best time (seconds) of ``repeats`` searches of one iteration from the empty board: what a
    search costs besides its iterations (its options read, its kernels' keys, the tree allocated)."""
    kw = {} if rollout == "plain" else {"rollout": rollout}
    search(Go(size), "ucb1:c=0.5", iterations=50, seed=0, early_stop=False, **kw)  # compile first
    best = math.inf
    for rep in range(repeats):
        t0 = time.perf_counter()
        search(Go(size), "ucb1:c=0.5", iterations=1, seed=rep, early_stop=False, **kw)
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--playouts", type=int, default=20000)
    ap.add_argument("--iterations", type=int, default=5000)
    ap.add_argument("--no-search", action="store_true", help="only the playout rates")
    ap.add_argument("--overhead", action="store_true",
                    help="also the best time of a search of one iteration with each rollout (a search's fixed cost)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--rollouts", default="random,defer,mast,mast:epsilon=0.1,lgrf1,lgrf2,nst,ppa")
    a = ap.parse_args(argv)
    rollouts = a.rollouts.split(",")
    print(f"{a.size}x{a.size} Go, playouts from the empty board (scored), {a.playouts} a run, median of "
          f"{a.repeats} interleaved rounds")
    print(f"{'rollout':<20} {'playouts/s':>12} {'plies':>7} {'/ random':>9} {'best / best':>12}")
    for ro, (r, length, ratio, best) in playout_rates(a.size, [x for x in rollouts if x != "plain"], a.playouts,
                                                      a.repeats).items():
        print(f"{ro:<20} {r:>12.0f} {length:>7.1f} {ratio:>9.2f} {best:>12.2f}")
    if a.no_search:
        return
    print()
    rates = {ro: rate(a.size, ro, a.iterations, a.repeats) for ro in rollouts}
    base = rates.get("random")
    print(f"{a.size}x{a.size} Go, ucb1:c=0.5, {a.iterations} iterations a search, median of {a.repeats} "
          f"(best / best: each rollout's best search over random's best)")
    print(f"{'rollout':<20} {'iterations/s':>12} {'/ random':>9} {'best / best':>12}")
    for ro, r in rates.items():
        med = statistics.median(r)
        print(f"{ro:<20} {med:>12.0f} {med / statistics.median(base) if base else float('nan'):>9.2f} "
              f"{max(r) / max(base) if base else float('nan'):>12.2f}")
    if a.overhead:
        print()
        print(f"{a.size}x{a.size} Go, ucb1:c=0.5, a search of 1 iteration, best of {5 * a.repeats}")
        for ro in rollouts:
            print(f"{ro:<20} {overhead(a.size, ro, 5 * a.repeats) * 1e3:>9.2f} ms")


if __name__ == "__main__":
    main()
