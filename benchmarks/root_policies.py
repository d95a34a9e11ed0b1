"""The root-policy study (docs/root-policies.md): simple-regret root schemes against plain UCT at its best c.

    python benchmarks/root_policies.py tune [--games 200] [--playouts 50 200 1000] [--game connect4 nogo go]
                                            [--out docs/results/root_policies_tune.json]
    python benchmarks/root_policies.py strength [--games 200] [--playouts ...] [--game ...] [--schemes ...]
                                                [--tune docs/results/root_policies_tune.json]
                                                [--out docs/results/root_policies_strength.json]
    python benchmarks/root_policies.py regret [--game tictactoe connect4] [--runs 20] [--playouts ...]
                                              [--positions 200] [--stones 22 30] [--no-win-in-one]
                                              [--out FILE (default docs/results/root_policies_regret.json,
                                                           ..._regret_connect4.json for connect4)]
    python benchmarks/root_policies.py tables [--tune FILE] [--out STRENGTH_FILE]

``tune``: plain UCT at each c of TUNE_GRID (0.25 and 1, our choice: half and double the toolkit's
usual c = 0.5) plays UCT at c = 0.5 over ``--games`` games; the best c of a (game, playouts) is the
grid's c with the highest score, 0.5 itself counting 0.5 (a tie keeps 0.5, then the smaller c).

``strength``: each scheme (SCHEME_TEMPLATES: a root policy over UCB1, or SHOT / H-MCTS at every node)
with the tuned c in its tree plays ``--games`` games against plain UCT at the tuned c and the same
playouts a move, colours alternating (treepolicies.match.match), printed as W-D-L, score (draws
half), its Wilson 95% interval and the Elo difference 400 log10(s / (1 - s)) (at s = 0 or 1 the
interval's inner end stands in).  Every 10 games a cell's games so far go to <out>_partial.json.

``regret``: the simple regret of the root recommendation, the quantity these schemes claim to
improve, with UCB1 at c = 0.5 in every tree: mean over positions and ``--runs`` seeds of
V* - V(chosen), V in {0, 1/2, 1} from the mover's side, and the fraction of non-optimal
recommendations.  tictactoe: every position with 1 to 4 stones where the moves' exact values differ
(values by exhaustive negamax in this script).  connect4: ``--positions`` positions from seeded
random play (``--stones`` from..to, not over, values differ; ``--no-win-in-one``: the player to move
has no move that wins at once), each move's value by this script's win/draw/loss negamax to the end
of the game (:func:`solve_wdl`, on the game's own rules, independent of treepolicies/alphabeta.py;
tests/test_root_policies_solver.py checks it against hand-derived values and alpha-beta).

``tables``: the markdown tables of docs/root-policies.md from the files.

Results go to JSON files (written atomically and merged under a lock after every cell, so two
processes can share a file; a rerun skips the cells it holds).  A measurement, not a test.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile

# Each scheme's spec with the c of the tree policy below the root left open ({c}).
SCHEME_TEMPLATES = {
    "seqhalving": "ucb1:c={c},root_policy=seqhalving,final=recommend",
    "sr+cr 1/2-greedy": "ucb1:c={c},root_policy=halfgreedy,final=recommend",
    "sr+cr ucb_sqrt": "ucb1:c={c},root_policy=ucbsqrt,final=recommend",
    "gumbel root": "ucb1:c={c},root_policy=gumbel,final=recommend",
    "shot": "shot:c={c},final=recommend",
    "h-mcts": "hmcts:c={c},final=recommend",
}
SCHEMES = {name: t.format(c=0.5) for name, t in SCHEME_TEMPLATES.items()}  # (at the reference c)
UCT = "ucb1:c=0.5"
REFERENCE_C = 0.5           # the toolkit's usual c for plain UCT on these games
TUNE_GRID = (0.25, 1.0)     # the c's that play UCT at REFERENCE_C in ``tune`` (our choice: half and double)


def _save(path, data):
    """Write ``data`` merged over what the file holds now (two processes may share one file: each
    adds its own cells), under an exclusive lock, atomically."""
    import fcntl

    import hashlib

    name = hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:16]
    with open(os.path.join(tempfile.gettempdir(), f"root_policies.{name}.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        merged = {**_load(path), **data}
        data.update(merged)
        _write(path, merged)


def _write(path, data):
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
    s = hi if score <= 0.0 else lo if score >= 1.0 else score
    s = min(max(s, 1e-9), 1 - 1e-9)
    return 400.0 * math.log10(s / (1.0 - s))


def _cell(a_spec, b_spec, game, playouts, games, seed, partial=None):
    """One match of ``games`` games, A = ``a_spec`` against B = ``b_spec``, as a JSON-ready dict.
    ``partial``: (file, key): every 10 games the games so far are written there (a cell cut short
    by a deadline still shows what it played)."""
    from treepolicies.match import match
    from treepolicies.players import make_player

    def progress(i, r):
        if partial is not None and (i + 1) % 10 == 0 and i + 1 < games:
            _save(partial[0], {partial[1]: dict(game=game, playouts=playouts, spec=a_spec, opponent=b_spec,
                                                wins=r.wins, draws=r.draws, losses=r.losses, played=i + 1,
                                                games=games, seed=seed)})

    r = match(make_player(a_spec, playouts=playouts), make_player(b_spec, playouts=playouts), game, games, seed=seed,
              progress=progress)
    lo, hi = r.interval
    return dict(game=game, playouts=playouts, spec=a_spec, opponent=b_spec, wins=r.wins, draws=r.draws,
                losses=r.losses, score=r.score, low=lo, high=hi, elo=elo(r.score, lo, hi), games=games, seed=seed)


def _print_cell(game, playouts, name, d):
    wdl = f"{d['wins']}-{d['draws']}-{d['losses']}"
    print(f"{game:10s} {playouts:8d} {name:18s} {wdl:>12s} "
          f"{d['score']:6.3f} [{d['low']:.3f}, {d['high']:.3f}] {d['elo']:6.0f}", flush=True)


def best_c(tune_data, game, playouts, games):
    """The grid's c with the highest score against UCT at REFERENCE_C (which counts 0.5 itself); a tie
    keeps REFERENCE_C, then the smaller c.  None while a cell of the grid is missing."""
    scores = {REFERENCE_C: 0.5}
    for c in TUNE_GRID:
        d = tune_data.get(f"{game}|{playouts}|c={c}|n={games}")
        if d is None:
            return None
        scores[c] = d["score"]
    top = max(scores.values())
    return REFERENCE_C if scores[REFERENCE_C] == top else min(c for c, v in scores.items() if v == top)


def tune(args) -> int:
    """Plain UCT at each c of TUNE_GRID against UCT at REFERENCE_C; the best c per (game, playouts)."""
    data = _load(args.out)
    print(f"UCT at c in {TUNE_GRID} against ucb1:c={REFERENCE_C}, {args.games} games a cell, colours alternating")
    print(f"{'game':10s} {'playouts':>8s} {'c':18s} {'W-D-L':>12s} {'score':>6s} {'95% interval':>16s} {'Elo':>6s}")
    for game in args.game:
        for playouts in args.playouts:
            for c in TUNE_GRID:
                key = f"{game}|{playouts}|c={c}|n={args.games}"
                if key not in data:
                    data[key] = dict(_cell(f"ucb1:c={c}", UCT, game, playouts, args.games, args.seed), c=c)
                    _save(args.out, data)
                _print_cell(game, playouts, f"c={c}", data[key])
            best = best_c(data, game, playouts, args.games)
            data[f"best|{game}|{playouts}|n={args.games}"] = dict(game=game, playouts=playouts, best_c=best,
                                                                   grid=[REFERENCE_C, *TUNE_GRID], games=args.games)
            _save(args.out, data)
            print(f"{game:10s} {playouts:8d} best c = {best}", flush=True)
    return 0


def strength(args) -> int:
    """Each scheme, with the tuned c below its root, against plain UCT at the tuned c."""
    tuned = _load(args.tune)
    data = _load(args.out)
    print(f"root schemes against plain UCT at the tuned c ({args.tune}), {args.games} games a cell, colours alternating")
    print(f"{'game':10s} {'playouts':>8s} {'scheme':18s} {'W-D-L':>12s} {'score':>6s} {'95% interval':>16s} {'Elo':>6s}")
    for game in args.game:
        for playouts in args.playouts:
            c = best_c(tuned, game, playouts, args.tune_games)
            if c is None:
                print(f"{game:10s} {playouts:8d} no tuned c in {args.tune} (run the tune part first): skipped", flush=True)
                continue
            for name in args.schemes:
                key = f"{game}|{playouts}|{name}|c={c}|n={args.games}"
                if key not in data:
                    spec = SCHEME_TEMPLATES[name].format(c=c)
                    partial = (args.out.replace(".json", "") + "_partial.json", key)
                    data[key] = dict(_cell(spec, f"ucb1:c={c}", game, playouts, args.games, args.seed, partial),
                                     scheme=name, c=c)
                    _save(args.out, data)
                _print_cell(game, playouts, name, data[key])
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


# -- simple regret on solved Connect Four positions -----------------------------------------------------

_WDL = {}


def _wdl_solver(kernels):
    """A compiled win/draw/loss negamax over ``kernels`` (the game's own rules: legal, play, terminal,
    result), written here independently of treepolicies/alphabeta.py: it solves to the end of the game
    (no depth limit) with scores in {-1, 0, 1}, so alpha-beta cuts as soon as a win is found."""
    import numba as nb
    import numpy as np

    legal, play, to_move, terminal, result, _ = kernels  # (the rules only)

    @nb.njit(cache=False)
    def solve(root, max_plies, max_moves):
        """negamax(s) = max over moves m of -negamax(play(s, m)), alpha-beta on [-1, 1], unrolled
        into a stack (ply by ply) because numba's recursion and the games' cached kernels do not mix."""
        size = max_plies + 2
        states = np.empty((size, root.shape[0]), root.dtype)
        moves = np.empty((size, max_moves), np.int64)
        count = np.zeros(size, np.int64)   # legal moves of the node at each ply
        nxt = np.zeros(size, np.int64)     # the next of them to search
        alpha = np.empty(size)
        beta = np.empty(size)
        best = np.empty(size)
        states[0] = root
        alpha[0], beta[0] = -1.0, 1.0
        ply, entering, value = 0, True, 0.0
        while True:
            if entering:  # a node reached for the first time: settle it at once, or go down its first move
                state = states[ply]
                done = False
                if terminal(state):
                    value, done = 2.0 * result(state, to_move(state)) - 1.0, True
                else:
                    count[ply] = legal(state, moves[ply])
                    me = to_move(state)
                    for i in range(count[ply]):  # a move that wins at once settles the node
                        states[ply + 1] = state
                        play(states[ply + 1], moves[ply, i])
                        if terminal(states[ply + 1]) and result(states[ply + 1], me) == 1.0:
                            value, done = 1.0, True
                            break
                if not done:
                    best[ply] = -2.0
                    nxt[ply] = 1
                    states[ply + 1] = state
                    play(states[ply + 1], moves[ply, 0])
                    alpha[ply + 1], beta[ply + 1] = -beta[ply], -alpha[ply]
                    ply += 1
                    continue
                entering = False
            # ``value`` is the settled value of the node at ``ply``: hand it to its parent
            if ply == 0:
                return value
            ply -= 1
            v = -value
            if v > best[ply]:
                best[ply] = v
            if v > alpha[ply]:
                alpha[ply] = v
            if alpha[ply] >= beta[ply] or nxt[ply] >= count[ply]:
                value = best[ply]
                continue
            states[ply + 1] = states[ply]
            play(states[ply + 1], moves[ply, nxt[ply]])
            nxt[ply] += 1
            alpha[ply + 1], beta[ply + 1] = -beta[ply], -alpha[ply]
            ply += 1
            entering = True

    return solve


def solve_wdl(game):
    """Exact value of ``game`` (a compiled game) for the player to move: 1 win, 0 draw, -1 loss."""
    solve = _WDL.get(game.kernels)
    if solve is None:
        solve = _WDL[game.kernels] = _wdl_solver(game.kernels)
    if game.terminal():
        return int(round(2.0 * game.reward(game.to_move) - 1.0))
    return int(round(solve(game.state, int(game.max_plies), max(1, int(game.max_moves)))))


def move_values(game):
    """{move: exact value for the player to move after playing it, in {0, 1/2, 1}} (by :func:`solve_wdl`)."""
    out = {}
    for m in game.legal_moves():
        child = game.copy()
        child.play(m)
        out[m] = (1.0 - solve_wdl(child)) / 2.0 if not child.terminal() else child.reward(game.to_move)
    return out


def connect4_positions(n=200, stones=(22, 30), seed=0, no_win_in_one=False):
    """``n`` Connect Four positions from seeded uniformly random play: the number of stones drawn
    uniformly from ``stones`` (inclusive), then random moves; a position is kept if the game is not
    over and its moves' exact values differ (and, with ``no_win_in_one``, the player to move has no
    move that wins at once), else the draw starts again.  [(game, values), ...]."""
    import numpy as np

    from treepolicies.games import make_game

    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        target = int(rng.integers(stones[0], stones[1] + 1))
        g = make_game("connect4")
        while not g.terminal() and int(g.state[2]) < target:
            g.play(int(rng.choice(g.legal_moves())))
        if g.terminal() or (no_win_in_one and immediate_win(g)):
            continue
        vals = move_values(g)
        if len(set(vals.values())) > 1:
            out.append((g, vals))
    return out


def immediate_win(game):
    """True if the player to move has a move that ends the game with its win."""
    for m in game.legal_moves():
        child = game.copy()
        child.play(m)
        if child.terminal() and child.reward(game.to_move) == 1.0:
            return True
    return False


def regret(args) -> int:
    from treepolicies.mcts import search
    from treepolicies.players import make_player

    specs = {"uct (robust)": UCT, **SCHEMES}
    for game in args.game:
        out = args.out or {"tictactoe": "docs/results/root_policies_regret.json",
                           "connect4": "docs/results/root_policies_regret_connect4.json"}.get(game)
        data = _load(out) if out else {}
        if game == "tictactoe":
            cases = positions()
            print(f"simple regret of the root recommendation on {len(cases)} tic-tac-toe positions x {args.runs} seeds")
        elif game == "connect4":
            cases = connect4_positions(args.positions, tuple(args.stones), seed=args.seed,
                                       no_win_in_one=args.no_win_in_one)
            wins = sum(immediate_win(g) for g, _ in cases)
            sel = "|no-win-in-one" if args.no_win_in_one else ""
            pkey = f"positions|connect4|{args.positions}|{args.stones[0]}-{args.stones[1]}|seed={args.seed}{sel}"
            if pkey not in data:  # the positions themselves (diagrams, exact values, win in one), to check
                data[pkey] = dict(positions=[dict(diagram=str(g), values={str(m): v for m, v in vals.items()},
                                                  win_in_one=immediate_win(g)) for g, vals in cases])
                _save(out, data)
            print(f"simple regret of the root recommendation on {len(cases)} Connect Four positions "
                  f"({args.stones[0]}-{args.stones[1]} stones, seed {args.seed}; {wins} with a win in one) "
                  f"x {args.runs} seeds")
        else:
            raise SystemExit(f"regret: --game must be tictactoe or connect4, got {game!r}")
        print(f"{'playouts':>8s} {'scheme':18s} {'mean regret':>12s} {'P(not optimal)':>15s}")
        for playouts in args.playouts:
            for name, spec in specs.items():
                key = (f"tictactoe|{playouts}|{name}" if game == "tictactoe" else
                       f"connect4|{playouts}|{name}|positions={args.positions}|stones={args.stones[0]}-"
                       f"{args.stones[1]}|seed={args.seed}|runs={args.runs}{sel}")
                if key not in data:
                    player = make_player(spec, playouts=playouts)
                    total, wrong, n = 0.0, 0, 0
                    by_position = []  # (Connect Four) each position's regret summed over the runs
                    for i, (g, vals) in enumerate(cases):
                        best = max(vals.values())
                        here = 0.0
                        for run in range(args.runs):
                            move = search(g, player.policy, iterations=playouts, seed=1000 * i + run,
                                          options=player.options).move
                            here += best - vals[move]
                            wrong += vals[move] < best
                            n += 1
                        total += here
                        by_position.append(here)
                    data[key] = dict(game=game, playouts=playouts, scheme=name, spec=spec, positions=len(cases),
                                     runs=args.runs, mean_regret=total / n, p_wrong=wrong / n)
                    if game == "connect4":
                        data[key].update(stones=list(args.stones), position_seed=args.seed, win_in_one=wins,
                                         no_win_in_one=args.no_win_in_one,
                                         regret_by_position=by_position)
                    _save(out, data)
                d = data[key]
                print(f"{playouts:8d} {name:18s} {d['mean_regret']:12.4f} {d['p_wrong']:15.3f}", flush=True)
    return 0


LABELS = {"uct (robust)": "UCT (robust)", "seqhalving": "seqhalving", "sr+cr 1/2-greedy": "SR+CR 1/2-greedy",
          "sr+cr ucb_sqrt": "SR+CR UCB_sqrt", "gumbel root": "Gumbel root", "shot": "SHOT", "h-mcts": "H-MCTS"}
GAME_LABELS = {"connect4": "Connect Four", "nogo": "NoGo 9x9", "go": "Go 9x9"}


def tables(args) -> int:
    """The markdown tables of docs/root-policies.md, from the result files."""
    tune_data = _load(args.tune)
    strength_data = _load(args.out or "docs/results/root_policies_strength.json")
    partial = _load((args.out or "docs/results/root_policies_strength.json").replace(".json", "") + "_partial.json")
    games, playouts = ["connect4", "nogo", "go"], [50, 200, 1000]
    print("| game | playouts | c = 0.25 | c = 1 | best c |\n|---|---|---|---|---|")
    for g in games:
        for p in playouts:
            cells = [tune_data.get(f"{g}|{p}|c={c}|n={args.tune_games}") for c in TUNE_GRID]
            text = [f"{d['score']:.3f} [{d['low']:.3f}, {d['high']:.3f}]" if d else "-" for d in cells]
            b = best_c(tune_data, g, p, args.tune_games)
            print(f"| {GAME_LABELS[g]} | {p} | {text[0]} | {text[1]} | {b if b is not None else '-'} |")
    names = list(SCHEME_TEMPLATES)
    print()
    print("| game | playouts | c | " + " | ".join(LABELS[n] for n in names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    elo_rows = []
    for g in games:
        for p in playouts:
            c = best_c(tune_data, g, p, args.tune_games)
            row, elos = [], []
            for n in names:
                key = f"{g}|{p}|{n}|c={c}|n={args.games}"
                d = strength_data.get(key)
                if d:
                    row.append(f"{d['score']:.3f} [{d['low']:.3f}, {d['high']:.3f}]")
                    elos.append(f"{d['elo']:+.0f}")
                elif key in partial:
                    q = partial[key]
                    row.append(f"({q['played']} of {q['games']} games: {(q['wins'] + q['draws'] / 2) / q['played']:.3f})")
                    elos.append("-")
                else:
                    row.append("not played")
                    elos.append("-")
            print(f"| {GAME_LABELS[g]} | {p} | {c if c is not None else '-'} | " + " | ".join(row) + " |")
            elo_rows.append(f"| {GAME_LABELS[g]} | {p} | " + " | ".join(elos) + " |")
    print()
    print("| game | playouts | " + " | ".join(LABELS[n] for n in names) + " |")
    print("|---|---|" + "---|" * len(names))
    print("\n".join(elo_rows))
    specs = ["uct (robust)", *SCHEME_TEMPLATES]
    regret_t = _load("docs/results/root_policies_regret.json")
    print()
    print("| playouts | " + " | ".join(LABELS[n] for n in specs) + " |")
    print("|---|" + "---|" * len(specs))
    for p in playouts:
        cells = [regret_t.get(f"tictactoe|{p}|{n}") for n in specs]
        print(f"| {p} | " + " | ".join(f"{d['mean_regret']:.4f} ({d['p_wrong']:.3f})" if d else "-" for d in cells) + " |")
    regret_c = _load("docs/results/root_policies_regret_connect4.json")
    for sel in ("", "|no-win-in-one"):
        rows = {}
        for k, d in regret_c.items():
            if "scheme" in d and k.endswith(f"|runs={d['runs']}{sel}"):
                rows[(d["playouts"], d["scheme"])] = d
        if not rows:
            continue
        print()
        print(f"Connect Four{sel}: mean regret (P(not optimal)); [95% interval of the mean difference from UCT, "
              "paired by position]")
        print("| playouts | " + " | ".join(LABELS[n] for n in specs) + " |")
        print("|---|" + "---|" * len(specs))
        for p in playouts:
            base = rows.get((p, "uct (robust)"))
            out = []
            for n in specs:
                d = rows.get((p, n))
                if d is None:
                    out.append("-")
                    continue
                text = f"{d['mean_regret']:.4f} ({d['p_wrong']:.3f})"
                if base is not None and n != "uct (robust)":
                    diff = [(x - y) / d["runs"] for x, y in zip(d["regret_by_position"], base["regret_by_position"])]
                    m = sum(diff) / len(diff)
                    sd = math.sqrt(sum((x - m) ** 2 for x in diff) / (len(diff) - 1))
                    h = 1.96 * sd / math.sqrt(len(diff))
                    text += f" [{m - h:+.4f}, {m + h:+.4f}]"
                out.append(text)
            print(f"| {p} | " + " | ".join(out) + " |")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=("tune", "strength", "regret", "tables"))
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--playouts", type=int, nargs="*", default=[50, 200, 1000])
    parser.add_argument("--game", nargs="*", default=None,
                        help="tune, strength: connect4 nogo go (default); regret: tictactoe connect4 (default)")
    parser.add_argument("--positions", type=int, default=200, help="regret: Connect Four positions")
    parser.add_argument("--no-win-in-one", action="store_true",
                        help="regret: only Connect Four positions where the player to move cannot win at once")
    parser.add_argument("--stones", type=int, nargs=2, default=[22, 30], help="regret: Connect Four stones, from to")
    parser.add_argument("--schemes", nargs="*", default=list(SCHEME_TEMPLATES), choices=list(SCHEME_TEMPLATES))
    parser.add_argument("--tune", default="docs/results/root_policies_tune.json",
                        help="strength: the tune part's file, where each (game, playouts) finds its c")
    parser.add_argument("--tune-games", type=int, default=200, help="strength: the games a cell of --tune")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    if args.game is None:
        args.game = ["tictactoe", "connect4"] if args.part == "regret" else ["connect4", "nogo", "go"]
    if args.out is None and args.part in ("tune", "strength"):
        args.out = f"docs/results/root_policies_{args.part}.json"
    return {"tune": tune, "strength": strength, "regret": regret, "tables": tables}[args.part](args)


if __name__ == "__main__":
    sys.exit(main())
