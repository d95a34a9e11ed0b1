"""Speed of the Go and NoGo engines and of MCTS on them, one core.

    python benchmarks/go_speed.py [--size 9] [--playouts 200000] [--repeats 5] [--games 4]

Prints:

1. random playouts per second from the empty board (Go: uniform non-own-eye moves, pass when none,
   to two passes; NoGo: uniform legal moves to the end), measured by a compiled loop that copies
   the empty position into a scratch state and runs ``kernels.playout`` (what the search does per
   iteration, minus the tree); beside them the heuristic (light) playouts of ``rollout=heuristic``
   (``game.rollouts["heuristic"]``: capture, escape atari, no self-atari, no own-eye filling; NoGo:
   no own chain left with one liberty), recording their plies as RAVE does; on Go also MoGo's
   pattern playouts (``rollout=patterns``: escape, 3x3 patterns around the last move, capture;
   ``nakade`` and ``fillboard`` with MoGo's later rules);
   the heuristic and pattern rates also over the heuristic rate of the same round (interleaved
   rounds: the ratio holds on a loaded machine where the rates drift); ``--only-playouts`` stops here;
2. MCTS iterations per second for UCT (``ucb1:c=0.5``) and Mi-UCT (``miucb:episodic=true``) searching
   5000 playouts from the empty board (no early stop), and that rate over the playout rate;
3. MCTS iterations per second averaged over whole games at 1000 playouts per move (players of
   both colours with the same policy, all searches of ``--games`` games: total iterations over
   total search time), Go and NoGo.

Medians over ``--repeats``; a warm-up compiles first.  Run it on an idle machine, or read only the
ratios within one run.  A measurement, not a test: nothing here asserts a speed.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numba as nb
import numpy as np

from bandits.rng import stream_state
from treepolicies import search
from treepolicies.games.go import (Go, go_fillboard_rollout, go_nakade_rollout, go_pattern_rollout, go_playout,
                                   go_rollout)
from treepolicies.games.nogo import NoGo, nogo_playout, nogo_rollout
from treepolicies.players import make_player

POLICIES = {"UCT": "ucb1:c=0.5", "Mi-UCT": "miucb:episodic=true"}


@nb.njit(cache=True)
def _go_playouts(root, n, rng):
    s = np.empty_like(root)
    moves = 0
    for _ in range(n):
        s[:] = root
        go_playout(s, rng)
        moves += s[4]
    return moves


@nb.njit(cache=True)
def _nogo_playouts(root, n, rng):
    s = np.empty_like(root)
    moves = 0
    for _ in range(n):
        s[:] = root
        nogo_playout(s, rng)
        moves += s[4]
    return moves


@nb.njit(cache=True)
def _go_heuristic_playouts(root, n, rng):
    s = np.empty_like(root)
    plies = np.empty(4 * root[8] + 1, np.int64)  # the move cap, H_CAP
    moves = 0
    for _ in range(n):
        s[:] = root
        moves += go_rollout(s, rng, plies, -1, True)
    return moves


@nb.njit(cache=True)
def _go_pattern_playouts(root, n, rng, kind):
    """kind 0: rollout=patterns, 1: nakade, 2: fillboard."""
    s = np.empty_like(root)
    plies = np.empty(4 * root[8] + 1, np.int64)  # the move cap, H_CAP
    moves = 0
    for _ in range(n):
        s[:] = root
        if kind == 0:
            moves += go_pattern_rollout(s, rng, plies, -1)
        elif kind == 1:
            moves += go_nakade_rollout(s, rng, plies, -1)
        else:
            moves += go_fillboard_rollout(s, rng, plies, -1)
    return moves


@nb.njit(cache=True)
def _nogo_heuristic_playouts(root, n, rng):
    s = np.empty_like(root)
    plies = np.empty(root[6] + 1, np.int64)  # the empty points, H_NEMPTY
    moves = 0
    for _ in range(n):
        s[:] = root
        moves += nogo_rollout(s, rng, plies, -1, True)
    return moves


def playout_rate(game, n, repeats, heuristic=False):
    if heuristic:
        fn = _go_heuristic_playouts if game.name == "go" else _nogo_heuristic_playouts
    else:
        fn = _go_playouts if game.name == "go" else _nogo_playouts
    fn(game.state, 10, stream_state(0, 0, 0))
    rates, lengths = [], []
    for r in range(repeats):
        t0 = time.perf_counter()
        moves = fn(game.state, n, stream_state(r + 1, 0, 0))
        rates.append(n / (time.perf_counter() - t0))
        lengths.append(moves / n)
    return statistics.median(rates), statistics.mean(lengths)


PATTERN_KINDS = {"patterns": 0, "nakade": 1, "fillboard": 2}


def pattern_rates(make, n, repeats):
    """Go's pattern playouts (``patterns``, ``nakade``, ``fillboard``) beside its heuristic ones, in
    interleaved rounds: each round's rate over the heuristic rate of the same round (median), and
    the medians of the rates."""
    game = make()
    runs = {"heuristic": lambda root, k, rng: _go_heuristic_playouts(root, k, rng)}
    for label, kind in PATTERN_KINDS.items():
        runs[label] = lambda root, k, rng, kind=kind: _go_pattern_playouts(root, k, rng, kind)
    for run in runs.values():
        run(game.state, 10, stream_state(0, 0, 0))  # compile
    rates = {label: [] for label in runs}
    lengths = {label: [] for label in runs}
    for r in range(repeats):
        for label, run in runs.items():
            t0 = time.perf_counter()
            moves = run(game.state, n, stream_state(r + 1, 0, 0))
            rates[label].append(n / (time.perf_counter() - t0))
            lengths[label].append(moves / n)
    for label in rates:
        print(f"Go    {label + ' playouts/s (interleaved):':40s} {statistics.median(rates[label]):10.0f}"
              f"   (mean length {statistics.mean(lengths[label]):.1f} moves)")
    for label in PATTERN_KINDS:
        ratio = statistics.median(p / h for p, h in zip(rates[label], rates["heuristic"]))
        print(f"Go    {label} / heuristic playout rate, median of the rounds' ratios: {ratio:.2f}")


def search_rate(game, spec, iterations, repeats):
    search(game, spec, iterations=200, seed=0)  # compile
    rates = []
    for r in range(repeats):
        res = search(game, spec, iterations=iterations, seed=r + 1, early_stop=False)
        rates.append(res.iterations / res.elapsed)
    return statistics.median(rates)


def game_rate(make, spec, playouts, games):
    """Total iterations / total search seconds over whole self-play games."""
    iters = secs = 0.0
    moves = 0
    for k in range(games):
        g = make()
        players = (make_player(spec, playouts=playouts), make_player(spec, playouts=playouts))
        while not g.terminal():
            p = players[g.to_move]
            m = p.choose(g, 1000 * k + len(g.moves))
            iters += p.last.iterations
            secs += p.last.elapsed
            g.play(m)
            moves += 1
    return iters / secs, moves / games


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--playouts", type=int, default=200_000, help="random playouts per repeat")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--games", type=int, default=4, help="whole games per policy for the game-average rates")
    ap.add_argument("--only-playouts", action="store_true", help="only the playout rates (part 1)")
    args = ap.parse_args(argv)

    games = {"Go": lambda: Go(size=args.size), "NoGo": lambda: NoGo(size=args.size)}
    print(f"board {args.size}x{args.size}, one core")
    base = {}
    for name, make in games.items():
        rate, length = playout_rate(make(), args.playouts, args.repeats)
        base[name] = rate
        print(f"{name:5s} random playouts/s from the empty board: {rate:10.0f}   (mean length {length:.1f} moves)")
        hrate, hlength = playout_rate(make(), args.playouts // 2, args.repeats, heuristic=True)
        print(f"{name:5s} heuristic playouts/s:                   {hrate:10.0f}   (mean length {hlength:.1f} moves)"
              f"   = {hrate / rate:.0%} of the random rate")
        if name == "Go":
            pattern_rates(make, args.playouts // 2, args.repeats)
    if args.only_playouts:
        return
    for name, make in games.items():
        for label, spec in POLICIES.items():
            rate = search_rate(make(), spec, 5000, args.repeats)
            print(f"{name:5s} {label:6s} MCTS it/s, 5000 playouts from the empty board: {rate:10.0f}"
                  f"   = {rate / base[name]:.0%} of the playout rate")
    for name, make in games.items():
        for label, spec in POLICIES.items():
            rate, length = game_rate(make, spec, 1000, args.games)
            print(f"{name:5s} {label:6s} MCTS it/s over whole games at 1000 playouts/move: {rate:10.0f}"
                  f"   ({args.games} games, {length:.0f} moves each on average)")


if __name__ == "__main__":
    main()
