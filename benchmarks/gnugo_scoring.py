"""Do our Go games against GNU Go end and count right?  A check for systematic losses (issue 26).

    python benchmarks/gnugo_scoring.py [--player SPEC] [--level 1] [--playouts 1000] [--games 20]
                                       [--seed 0] [--out FILE.json]

Plays ``--games`` 9x9 games (komi 7.5, colours alternating) of ``--player`` against
``gnugo:level=L`` (treepolicies.match.play_game), then, for each final position:

* how it ended: two passes or the move cap (3 x 81 moves), the moves, who passed and when;
* our count: Tromp-Taylor area (``Go.score()``: stones + empty points reached by one colour only,
  minus komi), the referee of every match here;
* GNU Go's count of the same moves (a fresh engine replays them): ``final_score`` (its own
  dead-stone judgement) and ``final_status_list dead``;
* whether the two winners agree, and the dead stones GNU Go sees (stones our count calls alive).

A game where the counts disagree on the winner is a game decided by the rules (dead stones left on
the board when both passed), not by play: a systematic source of such games would show here.
Printed: one line a game and a summary; ``--out`` writes the rows as JSON (atomically).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


def _gnugo_view(gnugo, game0, moves, movers):
    """GNU Go's (final_score text, dead stones) for the game ``moves`` from ``game0``'s position."""
    from treepolicies.interop.gtp_client import GtpClient

    c = GtpClient(gnugo._argv(game0.size, game0.komi))
    try:
        c.send(f"boardsize {game0.size}")
        c.send("clear_board")
        c.send(f"komi {game0.komi:g}")
        for player, move in zip(movers, moves):
            c.send(f"play {'bw'[player]} {game0.move_to_str(move)}")
        score = c.send("final_score").strip()
        dead = c.send("final_status_list dead").split()
    finally:
        c.close()
    return score, dead


def _winner_of(score_text):
    """'B+3.5' -> 0, 'W+0.5' -> 1, '0' -> None."""
    t = score_text.strip().upper()
    return 0 if t.startswith("B+") else 1 if t.startswith("W+") else None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--player", default="ucb1:c=0.5,rave=true,rollout=heuristic")
    ap.add_argument("--level", type=int, default=1)
    ap.add_argument("--playouts", type=int, default=1000)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)

    from treepolicies import make_player, play_game
    from treepolicies.games.go import Go

    ours = make_player(args.player, playouts=args.playouts)
    gnugo = make_player(f"gnugo:level={args.level}")
    rows = []
    try:
        for k in range(args.games):
            game0 = Go(9, komi=7.5)
            first, second = (ours, gnugo) if k % 2 == 0 else (gnugo, ours)
            rec = play_game(game0, first, second, seed=args.seed + k)
            g = game0.copy()
            movers = []
            for m in rec.moves:
                movers.append(g.to_move)
                g.play(m)
            our_colour = 0 if k % 2 == 0 else 1
            score, dead = _gnugo_view(gnugo, game0, rec.moves, movers)
            passes = [(i, "BW"[p]) for i, (p, m) in enumerate(zip(movers, rec.moves)) if m == g.PASS]
            row = dict(game=k, our_colour="BW"[our_colour], moves=len(rec.moves), capped=rec.capped,
                       our_score=g.score(), our_winner=g.winner(), gnugo_score=score,
                       gnugo_winner=_winner_of(score), dead=len(dead),
                       dead_ours=sum(1 for p in dead if g.state[_point_index(g, p)] == 1 + our_colour),
                       passes=passes[-4:], we_won=g.winner() == our_colour)
            row["agree"] = row["our_winner"] == row["gnugo_winner"]
            rows.append(row)
            print(f"game {k:3d} we are {row['our_colour']}  {row['moves']:3d} moves{' CAPPED' if rec.capped else ''}"
                  f"  ours {row['our_score']:+6.1f}  gnugo {score:>7s}  dead {row['dead']:2d} "
                  f"(ours {row['dead_ours']:2d})  {'won' if row['we_won'] else 'lost'}"
                  f"{'' if row['agree'] else '  DISAGREE'}  last passes {row['passes']}", flush=True)
    finally:
        gnugo.close()
    n = len(rows)
    print(f"\n{n} games: won {sum(r['we_won'] for r in rows)}, counts disagree on the winner in "
          f"{sum(not r['agree'] for r in rows)}, capped {sum(r['capped'] for r in rows)}, "
          f"games with dead stones left {sum(r['dead'] > 0 for r in rows)} "
          f"(of ours: {sum(r['dead_ours'] > 0 for r in rows)})")
    if args.out:
        tmp = args.out + ".part"
        with open(tmp, "w") as f:
            json.dump(dict(args=vars(args), games=rows), f, indent=1)
        os.replace(tmp, args.out)
    return 0


def _point_index(g, vertex):
    """The state index of a GTP vertex (e.g. 'D4') on ``g``'s board (board.HDR + its padded point)."""
    from treepolicies.games import board as bd

    return bd.HDR + int(bd.point_of(g.state, g.str_to_move(vertex)))


if __name__ == "__main__":
    raise SystemExit(main())
