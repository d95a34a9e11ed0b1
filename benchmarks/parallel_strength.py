"""The strength-speedup table of docs/parallel.md: each parallel mode at 2 threads against the
single-threaded search, at the same wall-clock time per move and at the same total playouts.

    python benchmarks/parallel_strength.py run --work DIR [--games 200] [--only CELL ...]
    python benchmarks/parallel_strength.py table --work DIR [--out docs/parallel]

``run`` plays every cell of :func:`cells` (game x mode x budget) as a ``banditree match`` (the same
code, :func:`testbeds.tournament.run_match`): player A = ``BASE,threads=2,parallel=MODE``, player
B = ``BASE`` (one thread), colours alternating, ``--seed 12``, one game at a time (``workers=1``:
the two threads are the parallelism, and B, moving in turn, gets the same machine).  Each cell
goes into ``DIR/<cell>.sqlite``: a killed run resumes, and a later ``--games`` larger than before
plays only the games missing.  Its summary goes into ``DIR/<cell>.json``; ``table`` writes ``parallel_strength.csv`` and ``.md``: A's score
(wins + draws / 2) with its Wilson 95% interval and the Elo difference.

Budgets: ``time`` = the same seconds per move for both (what threads buy on this machine; depends
on the load: say what it was), ``playouts`` = the same iterations per move for both (what
parallelism costs in strength per playout: tree and leaf parallelism see staler statistics, root
parallelism smaller trees).  Nothing is tuned; the table is what comes out.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time

#: the node policy and its constant on both sides, per game
BASE = {"connect4": "ucb1:c=1", "go": "ucb1:c=0.5"}
#: (seconds per move, playouts per move) per game; on 9x9 Go 0.05 s is about the 3000 playouts
#: a single-threaded search makes on one idle core (56 000 it/s), so both budgets start level
BUDGETS = {"connect4": (0.02, 2000), "go": (0.05, 3000)}
MODES = ("tree", "root", "leaf")
SEED = 12


def cells(games=("connect4", "go")):
    """(name, game, mode, budget kind, budget, spec A, spec B) of every cell."""
    out = []
    for game in games:
        seconds, playouts = BUDGETS[game]
        for kind, amount in (("time", seconds), ("playouts", playouts)):
            for mode in MODES:
                a = f"{BASE[game]},threads=2,parallel={mode}"
                out.append((f"{game}-{kind}-{mode}", game, mode, kind, amount, a, BASE[game]))
    return out


def run(args) -> int:
    from testbeds.ratings import format_elo
    from testbeds.tournament import MatchConfig, run_match

    os.makedirs(args.work, exist_ok=True)
    for name, game, mode, kind, amount, a, b in cells(args.game):
        if args.only and name not in args.only:
            continue
        config = MatchConfig(game=game, a=a, b=b, playouts=amount if kind == "playouts" else None,
                             seconds=amount if kind == "time" else None, seed=SEED,
                             game_options={"size": 9} if game == "go" else {})
        t0 = time.perf_counter()
        print(f"{name}: {args.games} games ({a} against {b}, {amount} {'s' if kind == 'time' else 'playouts'} "
              f"per move), load average {os.getloadavg()[0]:.2f}", flush=True)
        result = run_match(config, args.games, db=os.path.join(args.work, name + ".sqlite"), workers=1,
                           progress=False)
        r = result.rating
        wall = time.perf_counter() - t0
        print(f"  A {r.wins}-{r.draws}-{r.losses}, score {r.rate:.3f} [{r.low:.3f}, {r.high:.3f}] "
              f"({wall:.0f} s, load average {os.getloadavg()[0]:.2f})", flush=True)
        summary = dict(games=r.games, wins=r.wins, draws=r.draws, losses=r.losses, score=r.rate, low=r.low,
                       high=r.high, elo=format_elo(r), wall_s=round(wall, 1), load_after=os.getloadavg()[0])
        with open(os.path.join(args.work, name + ".json.part"), "w") as f:
            json.dump(summary, f)
        os.replace(os.path.join(args.work, name + ".json.part"), os.path.join(args.work, name + ".json"))
    return 0


def table(args) -> int:
    rows = []
    for name, game, mode, kind, amount, a, b in cells(args.game):
        path = os.path.join(args.work, name + ".json")
        row = {"cell": name, "game": "9x9 Go" if game == "go" else "Connect Four", "mode": mode, "budget": kind,
               "per_move": f"{amount} s" if kind == "time" else f"{amount} playouts", "a": a, "b": b, "games": 0}
        if os.path.exists(path):
            with open(path) as f:
                r = json.load(f)
            row.update(games=r["games"], wdl=f"{r['wins']}-{r['draws']}-{r['losses']}", score=round(r["score"], 3),
                       low=round(r["low"], 3), high=round(r["high"], 3), elo=r["elo"], wall_s=r["wall_s"])
        rows.append(row)
    os.makedirs(args.out, exist_ok=True)
    fields = ["cell", "game", "mode", "budget", "per_move", "a", "b", "games", "wdl", "score", "low", "high", "elo",
              "wall_s"]
    with open(os.path.join(args.out, "parallel_strength.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for row in rows:
            w.writerow({k: row.get(k, "") for k in fields})
    lines = ["| game | budget per move (both sides) | A: 2 threads | games | A W-D-L | A score | Wilson 95% | Elo |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        head = f"| {r['game']} | {r['per_move']} ({r['budget']}) | `{r['a']}` |"
        if r["games"]:
            lines.append(f"{head} {r['games']} | {r['wdl']} | {r['score']:.3f} | [{r['low']:.3f}, {r['high']:.3f}] | "
                         f"{r['elo']} |")
        else:
            lines.append(f"{head} 0 (not played) | | | | |")
    with open(os.path.join(args.out, "parallel_strength.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run", help="play the cells (resumable)")
    r.add_argument("--work", required=True, help="folder for the databases")
    r.add_argument("--games", type=int, default=200, help="games per cell (default 200)")
    r.add_argument("--game", nargs="*", default=["connect4", "go"], choices=("connect4", "go"))
    r.add_argument("--only", nargs="*", help="cells to play, e.g. connect4-time-tree")
    t = sub.add_parser("table", help="write parallel_strength.csv and parallel_strength.md")
    t.add_argument("--work", required=True)
    t.add_argument("--game", nargs="*", default=["connect4", "go"], choices=("connect4", "go"))
    t.add_argument("--out", default=os.path.join("docs", "parallel"))
    args = ap.parse_args(argv)
    return run(args) if args.what == "run" else table(args)


if __name__ == "__main__":
    sys.exit(main())
