"""Where are our games against GNU Go lost?  GNU Go's own count along each lost game (issue 26).

    python benchmarks/gnugo_losses.py DB.sqlite [--games 12] [--level 10] [--out FILE.json]

``DB.sqlite`` is a match database (``banditree match --db``, or a cell of
``benchmarks/strength_table.py``: player A ours, B GNU Go).  For each game A lost (the first
``--games``; 0 = all), GNU Go at ``--level`` replays its SGF moves and answers ``estimate_score``
(its own count with its dead-stone judgement; positive = good for us):

* ``at_first_pass``: the estimate just before our first pass (MCTS passes once every move loses);
* ``all_dead_from``: the first ply from which GNU Go counts the whole board for the opponent (every
  stone of ours dead: board area +- komi, within :data:`NEAR` points), by bisection between the start and our first pass
  (the estimate is not monotone; bisection finds one such crossing);
* ``before``: the estimate every 4 plies over the 24 plies before that ply.

A game lost by a rule (a pass at the wrong time, the count, the move cap) would show a close
estimate until its end; a game lost in play shows the estimate falling well before.  Printed: one
line a game and a summary; ``--out`` writes the rows as JSON (atomically).  Each estimate is one
GNU Go process (about 1-3 s at level 10).
"""
from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

#: "every stone of ours dead": GNU Go's estimate within this many points of the whole board to the
#: opponent (its estimate of such a 9x9 board is B+72.5 where the area count gives B+73.5)
NEAR = 2.0
def estimate(level: int, size: int, komi: float, moves) -> float:
    """GNU Go's ``estimate_score`` after ``moves`` as Black's lead (W+x = -x)."""
    from treepolicies.interop.gtp_client import GtpClient, find_gnugo

    c = GtpClient([find_gnugo(), "--mode", "gtp", "--level", str(level)])
    try:
        c.send(f"boardsize {size}")
        c.send("clear_board")
        c.send(f"komi {komi:g}")
        for colour, vertex in moves:
            c.send(f"play {colour} {vertex}")
        text = c.send("estimate_score").split()[0].upper()
    finally:
        c.close()
    return float(text[2:]) * (1 if text.startswith("B+") else -1) if text[1:2] == "+" else 0.0


def trace(level, sgf: str, ours: str) -> dict:
    """The row of one lost game (module docstring); ``ours`` 'B' or 'W'."""
    from treepolicies.interop.sgf import parse_sgf
    from treepolicies.games import make_game

    rec = parse_sgf(sgf)
    size, komi = rec.size, rec.komi
    board = make_game("go", size=size)
    moves = [("BW"[p], "pass" if code is None else board.move_to_str(code)) for p, code in rec.moves]
    sign = 1 if ours == "B" else -1
    whole = size * size + komi if ours == "B" else size * size - komi  # (the whole board to the opponent)

    def ours_est(n):
        return sign * estimate(level, size, komi, moves[:n])

    first = next((i for i, (c, v) in enumerate(moves) if c == ours and v == "pass"), len(moves))
    at_pass = ours_est(first)
    lo, hi = 0, first
    if at_pass > -whole + NEAR:
        hi = None
    else:
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if ours_est(mid) <= -whole + NEAR:
                hi = mid
            else:
                lo = mid
    before = [] if hi is None else [ours_est(p) for p in range(max(0, hi - 24), hi, 4)]
    return {"result": rec.result, "plies": len(moves), "first_pass": first, "at_first_pass": at_pass, "all_dead_from": hi,
            "before": before}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("db")
    ap.add_argument("--games", type=int, default=12, help="lost games to trace (0 = all); default 12")
    ap.add_argument("--level", type=int, default=10)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if args.games < 0:
        ap.error(f"--games must be >= 0, got {args.games}")
    if not os.path.exists(args.db):
        ap.error(f"no such database: {args.db}")
    from treepolicies.interop.gtp_client import find_gnugo

    if find_gnugo() is None:
        ap.error("GNU Go not found (gnugo on PATH or in /usr/games): install it, e.g. apt-get install gnugo")
    con = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    lost = con.execute("SELECT game_index, a_first, sgf FROM games WHERE score_a = 0 ORDER BY game_index").fetchall()
    lost = lost if args.games == 0 else lost[:args.games]
    rows = []
    for gi, a_first, sgf in lost:
        ours = "B" if a_first else "W"
        row = {"game": gi, "ours": ours, **trace(args.level, sgf, ours)}
        rows.append(row)
        print(f"game {gi:3d} ({ours}) {row['result']:7s} first pass at ply {row['first_pass']} of {row['plies']}, "
              f"estimate there {row['at_first_pass']:+.1f}; all dead from ply {row['all_dead_from']}; "
              f"24 plies before: {', '.join(f'{v:+.1f}' for v in row['before'])}", flush=True)
    dead = [r for r in rows if r["all_dead_from"] is not None]
    print(f"{len(rows)} lost games traced; every stone of ours dead at our first pass in {len(dead)}")
    if args.out:
        tmp = args.out + ".part"
        with open(tmp, "w") as fh:
            json.dump(rows, fh, indent=1)
        os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
