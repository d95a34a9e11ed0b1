"""The root-policy study (docs/root-policies.md): simple-regret root schemes against plain UCT.

    python benchmarks/root_policies.py strength [--games 200] [--playouts 50 200 1000]
                                                [--game connect4 nogo go] [--out FILE.json]
    python benchmarks/root_policies.py regret [--runs 20] [--playouts 50 200 1000] [--out FILE.json]

``strength``: each root scheme (UCB1 at c = 0.5 below it; c = 0.5 is the c the toolkit's tables use
for plain UCT on these games, not re-tuned here) plays ``--games`` games against plain UCT at the
same c and the same playouts a move, colours alternating (treepolicies.match.match), printed as
W-D-L, score (draws half), its Wilson 95% interval and the Elo difference 400 log10(s / (1 - s))
(clamped at the interval's ends where s is 0 or 1).

``regret``: the simple regret of the root recommendation, the quantity these schemes claim to
improve, on every tic-tac-toe position with 1 to 4 stones where the moves' exact values differ
(values by exhaustive negamax in this script, independent of the search): mean over positions and
``--runs`` seeds of V* - V(chosen), V in {0, 1/2, 1} from the mover's side, and the fraction of
non-optimal recommendations.

Results go to a JSON file (written atomically after every cell; a rerun skips the cells it holds).
A measurement, not a test.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile

SCHEMES = {
    "seqhalving": "ucb1:c=0.5,root_policy=seqhalving,final=recommend",
    "sr+cr 1/2-greedy": "ucb1:c=0.5,root_policy=halfgreedy,final=recommend",
    "sr+cr ucb_sqrt": "ucb1:c=0.5,root_policy=ucbsqrt,final=recommend",
    "gumbel root": "ucb1:c=0.5,root_policy=gumbel,final=recommend",
}
UCT = "ucb1:c=0.5"


def _save(path, data):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)) or ".", suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


def _load(path):
    if os.path.exists(path):
        with open(path) as f:
            return json.load(f)
    return {}


def elo(score, lo, hi):
    """400 log10(s / (1 - s)); at s = 0 or 1 the interval's inner end stands in."""
    s = min(max(score, lo if score >= 1.0 else 0.0), hi if score <= 0.0 else 1.0)
    s = min(max(s, 1e-9), 1 - 1e-9)
    return 400.0 * math.log10(s / (1.0 - s))


def strength(args) -> int:
    from treepolicies.match import match
    from treepolicies.players import make_player

    data = _load(args.out)
    print(f"root schemes against {UCT}, {args.games} games a cell, colours alternating")
    print(f"{'game':10s} {'playouts':>8s} {'scheme':18s} {'W-D-L':>12s} {'score':>6s} {'95% interval':>16s} {'Elo':>6s}")
    for game in args.game:
        for playouts in args.playouts:
            for name in args.schemes:
                key = f"{game}|{playouts}|{name}"
                if key not in data:
                    r = match(make_player(SCHEMES[name], playouts=playouts), make_player(UCT, playouts=playouts),
                              game, args.games, seed=args.seed)
                    lo, hi = r.interval
                    data[key] = dict(game=game, playouts=playouts, scheme=name, spec=SCHEMES[name], opponent=UCT,
                                     wins=r.wins, draws=r.draws, losses=r.losses, score=r.score, low=lo, high=hi,
                                     elo=elo(r.score, lo, hi), games=args.games, seed=args.seed)
                    _save(args.out, data)
                d = data[key]
                wdl = f"{d['wins']}-{d['draws']}-{d['losses']}"
                print(f"{game:10s} {playouts:8d} {name:18s} {wdl:>12s} "
                      f"{d['score']:6.3f} [{d['low']:.3f}, {d['high']:.3f}] {d['elo']:6.0f}", flush=True)
    return 0


# -- simple regret on tic-tac-toe ----------------------------------------------------------------------

def _values(game, memo):
    """{move: exact value for the player to move after playing it, in {0, 1/2, 1}} by negamax."""
    out = {}
    for m in game.legal_moves():
        g = game.copy()
        g.play(m)
        out[m] = 1.0 - _value(g, memo) if not g.terminal() else g.reward(game.to_move)
    return out


def _value(game, memo):
    """Exact value of ``game`` for the player to move."""
    key = (tuple(game.state.ravel().tolist()) if hasattr(game.state, "ravel") else str(game.state), game.to_move)
    if key not in memo:
        memo[key] = max(_values(game, memo).values())
    return memo[key]


def positions(max_stones=4):
    """Tic-tac-toe positions with 1..max_stones stones, not over, whose moves' values differ."""
    from treepolicies.games import make_game

    memo, seen, out = {}, set(), []
    frontier = [make_game("tictactoe")]
    for stones in range(1, max_stones + 1):
        nxt = []
        for g in frontier:
            for m in g.legal_moves():
                h = g.copy()
                h.play(m)
                key = str(h.state.tolist()) if hasattr(h.state, "tolist") else str(h.state)
                if h.terminal() or key in seen:
                    continue
                seen.add(key)
                nxt.append(h)
                vals = _values(h, memo)
                if len(set(vals.values())) > 1:
                    out.append((h, vals))
        frontier = nxt
    return out


def regret(args) -> int:
    from treepolicies.mcts import search

    data = _load(args.out)
    cases = positions()
    print(f"simple regret of the root recommendation on {len(cases)} tic-tac-toe positions x {args.runs} seeds")
    print(f"{'playouts':>8s} {'scheme':18s} {'mean regret':>12s} {'P(not optimal)':>15s}")
    from treepolicies.players import make_player

    specs = {"uct (robust)": UCT, **SCHEMES}
    for playouts in args.playouts:
        for name, spec in specs.items():
            key = f"tictactoe|{playouts}|{name}"
            if key not in data:
                player = make_player(spec, playouts=playouts)
                total, wrong, n = 0.0, 0, 0
                for i, (g, vals) in enumerate(cases):
                    best = max(vals.values())
                    for run in range(args.runs):
                        move = search(g, player.policy, iterations=playouts, seed=1000 * i + run,
                                      options=player.options).move
                        total += best - vals[move]
                        wrong += vals[move] < best
                        n += 1
                data[key] = dict(playouts=playouts, scheme=name, spec=spec, positions=len(cases), runs=args.runs,
                                 mean_regret=total / n, p_wrong=wrong / n)
                _save(args.out, data)
            d = data[key]
            print(f"{playouts:8d} {name:18s} {d['mean_regret']:12.4f} {d['p_wrong']:15.3f}", flush=True)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=("strength", "regret"))
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--playouts", type=int, nargs="*", default=[50, 200, 1000])
    parser.add_argument("--game", nargs="*", default=["connect4", "nogo", "go"])
    parser.add_argument("--schemes", nargs="*", default=list(SCHEMES), choices=list(SCHEMES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    if args.out is None:
        args.out = f"root_policies_{args.part}.json"
    return strength(args) if args.part == "strength" else regret(args)


if __name__ == "__main__":
    sys.exit(main())
