"""The strength table of docs/enhancements.md: each enhancement against plain UCT with the same c.

    python benchmarks/strength_table.py run --work DIR [--only GAME-PLAYOUTS-LABEL ...]
    python benchmarks/strength_table.py table --work DIR --out docs/enhancements
    python benchmarks/strength_table.py keep --work DIR

``run`` plays every cell of :data:`CELLS` with ``banditree match`` (``ucb1:c=0.5`` plus the
cell's options against ``ucb1:c=0.5``, colours alternating, ``--seed 10``), one cell after the
other, each into ``DIR/<game>-<playouts>-<label>.sqlite`` (a killed run resumes: the same command
plays only the missing games) and its printed summary into ``DIR/<cell>.txt``; then the strong
player (``strong``, and ``strong:prior_visits=20``) against GNU Go (:data:`STRONG_GNUGO`,
``DIR/go-<playouts>-<label>-gnugo<level>``), and at
equal time (:data:`STRONG_GNUGO_TIMED`, 1 s a move on 2 threads, ``DIR/go-1s-2t-<label>-gnugo<level>``).  ``table`` reads
the summaries and writes ``strength.csv`` and ``strength.md`` (score = wins + draws / 2 of the
enhanced side, Wilson 95% interval, Elo), listing the cells not played yet as such; a cell whose
summary is not in DIR keeps its row of the existing ``strength.csv``.
Nothing is tuned: the options are the documented defaults, the table is what comes out.  The cells
labelled ``strong`` were played before Go's ``strong`` took ``prior_visits=20`` (2026-12-07); those
labelled ``strong+prior_visits`` are the player with it (docs/enhancements.md, the strong player).

An equal-time cell takes about two hours with the machine to itself (6812 s against level 10),
longer than some sessions have, so its games are kept in the repository:
``python benchmarks/strength_table.py keep --work DIR`` copies the equal-time cells' databases of
DIR (finished or not) to :data:`KEPT` (``docs/enhancements/games/<cell>.sqlite``: each game's
result, seconds and SGF record), and ``run`` starts an equal-time cell whose database is not in DIR
from the kept copy, so the same command plays only the games still missing.
"""
from __future__ import annotations

import argparse
import csv
import os
import re
import subprocess
import sys
import time

BASE = "ucb1:c=0.5"
PLUGIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "connect4_evaluator.py")
#: label -> player A's spec (player B is BASE)
VARIANTS = {
    "rave": f"{BASE},rave=true",
    "grave": f"{BASE},grave_ref=50",
    "heuristic": f"{BASE},rollout=heuristic",
    "rave+heuristic": f"{BASE},rave=true,rollout=heuristic",
    "puct": "puct:c=1.5",
    "puct+prior": "puct:c=1.5,prior=heuristic",
    "widen+prior": f"{BASE},widen_k=2,prior=heuristic",
    "fpu-parent": f"{BASE},fpu_reduction=0.1",
    "transpositions": f"{BASE},transpositions=true",
    "evaluator": "puct:c=1.5,evaluator=c4_windows,eval_batch=8,value_mix=0.5",
    # playout policies (docs/playouts.md), each with its documented defaults
    "mast": f"{BASE},rollout=mast",
    "nst": f"{BASE},rollout=nst",
    "lgrf1": f"{BASE},rollout=lgrf1",
    "lgrf2": f"{BASE},rollout=lgrf2",
    "ppa": f"{BASE},rollout=ppa",
    "patterns": f"{BASE},rollout=patterns",
    "strong": "strong",  # treepolicies.strong: each game's strongest measured configuration
    # the strong player with Gelly & Silver's prior knowledge as equivalent experience (n0 = 20)
    "strong+prior_visits": "strong:prior_visits=20",
}
FIRST = ["rave", "grave", "heuristic", "rave+heuristic"]
SECOND = ["puct", "puct+prior", "widen+prior", "fpu-parent", "transpositions"]
#: the playout policies' cells: every game at 1000 and 5000 playouts (MoGo's patterns on Go only)
PLAYOUTS = ["mast", "nst", "lgrf1", "lgrf2", "ppa"]
#: (game, playouts per move, games, label) of each cell
CELLS = ([(g, p, 200, v) for g in ("connect4", "nogo", "go") for p in (1000, 5000) for v in FIRST]
         + [(g, 1000, 200, v) for g in ("connect4", "nogo", "go") for v in SECOND] + [("connect4", 1000, 200, "evaluator")]
         + [(g, p, 200, v) for p in (1000, 5000) for g in ("nogo", "connect4", "go") for v in PLAYOUTS]
         + [("go", p, 200, "patterns") for p in (1000, 5000)])
#: the best 9x9 Go configuration against GNU Go (label of the 1000-playout table's best, levels)
GNUGO = [(1, 50), (10, 50)]
#: the strong player against GNU Go: (label, playouts a move, level, games), the issue's cells
STRONG_GNUGO = [("strong", 10000, 10, 100), ("strong", 10000, 1, 100), ("strong", 3000, 10, 100),
                ("strong", 3000, 1, 100), ("strong+prior_visits", 10000, 10, 100),
                ("strong+prior_visits", 10000, 1, 100), ("strong+prior_visits", 3000, 10, 100),
                ("strong+prior_visits", 3000, 1, 100)]
#: the strong player against GNU Go at equal time: (label, seconds a move, threads, level, games); the cell's
#: "playouts" column reads e.g. "1s-2t" (``banditree match --seconds 1 --threads 2``)
STRONG_GNUGO_TIMED = [("strong", 1, 2, 10, 100), ("strong", 1, 2, 1, 100), ("strong+prior_visits", 1, 2, 10, 100),
                      ("strong+prior_visits", 1, 2, 1, 100)]
#: where ``keep`` puts the equal-time cells' databases (``run`` resumes from them)
KEPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "enhancements", "games")
LINE = re.compile(r"A: (\d+) wins, (\d+) draws, (\d+) losses in (\d+) games")
WILSON = re.compile(r"Wilson 95% interval \[([\d.]+), ([\d.]+)\]")
ELO = re.compile(r"Elo ([+-]?\d+|[+-]?inf) \[([+-]?\d+|[+-]?inf), ([+-]?\d+|[+-]?inf)\]")


def name(game, playouts, label):
    return f"{game}-{playouts}-{label}"


def command(game, playouts, games, a, db, b=BASE, seconds=None, threads=None):
    budget = ["--playouts", str(playouts)] if seconds is None else ["--seconds", str(seconds), "--threads", str(threads)]
    return [sys.executable, "-m", "testbeds.cli", "match", "--plugin", PLUGIN, "--game", game, "--a", a,
            "--b", b, *budget, "--games", str(games), "--seed", "10", "--db", db, "--no-progress"]


def timed(seconds, threads):
    """The "playouts" column of an equal-time cell: ``1s-2t``."""
    return f"{seconds}s-{threads}t"


def timed_cell(label, seconds, threads, level):
    """The name of an equal-time cell: ``go-1s-2t-strong-gnugo10``."""
    return f"go-{timed(seconds, threads)}-{label}-gnugo{level}"


def best_go(work):
    """The label of the best Go cell at 1000 playouts played so far (highest score)."""
    best = None
    for game, playouts, games, label in CELLS:
        path = os.path.join(work, name(game, playouts, label) + ".txt")
        if game == "go" and playouts == 1000 and label in FIRST and os.path.exists(path):
            score = float(re.search(r"A score ([\d.]+)", open(path).read()).group(1))
            if best is None or score > best[0]:
                best = (score, label)
    return best[1] if best else None


#: ``run --workers``: local processes a cell's games are spread over
WORKERS = 1


def run(args) -> int:
    global WORKERS
    WORKERS = args.workers
    os.makedirs(args.work, exist_ok=True)
    for game, playouts, games, label in CELLS:
        cell = name(game, playouts, label)
        if args.only and cell not in args.only:
            continue
        out = os.path.join(args.work, cell + ".txt")
        if os.path.exists(out):
            continue
        print(f"{cell}: {games} games", flush=True)
        t0 = time.perf_counter()
        rc = _play(command(game, playouts, games, VARIANTS[label], os.path.join(args.work, cell + ".sqlite")), out)
        if rc:
            return rc
    for label, playouts, level, games in STRONG_GNUGO:
        cell = f"go-{playouts}-{label}-gnugo{level}"
        out = os.path.join(args.work, cell + ".txt")
        if (args.only and cell not in args.only) or os.path.exists(out):
            continue
        print(f"go {playouts} {label} against gnugo:level={level}: {games} games", flush=True)
        rc = _play(command("go", playouts, games, VARIANTS[label], out[:-4] + ".sqlite", f"gnugo:level={level}"), out)
        if rc:
            return rc
    for label, seconds, threads, level, games in STRONG_GNUGO_TIMED:
        cell = timed_cell(label, seconds, threads, level)
        out = os.path.join(args.work, cell + ".txt")
        if (args.only and cell not in args.only) or os.path.exists(out):
            continue
        db = out[:-4] + ".sqlite"
        kept = os.path.join(KEPT, cell + ".sqlite")
        if not os.path.exists(db) and os.path.exists(kept):
            _copy_db(kept, db)
            print(f"{cell}: resumed from {kept}", flush=True)
        print(f"go {seconds} s a move on {threads} threads, {label} against gnugo:level={level}: {games} games",
              flush=True)
        rc = _play(command("go", None, games, VARIANTS[label], db, f"gnugo:level={level}", seconds, threads), out)
        if rc:
            return rc
    label = best_go(args.work)
    for level, games in GNUGO if label and not args.only else ():
        out = os.path.join(args.work, f"go-10000-{label}-gnugo{level}.txt")
        if not os.path.exists(out):
            print(f"go 10000 {label} against gnugo:level={level}: {games} games", flush=True)
            rc = _play(command("go", 10000, games, VARIANTS[label], out[:-4] + ".sqlite", f"gnugo:level={level}"), out)
            if rc:
                return rc
    return 0


def _copy_db(src, dst) -> None:
    """A consistent copy of the SQLite database ``src`` (its write-ahead log included: SQLite's
    backup, safe while a match writes to it) written to ``dst`` atomically, as one file (rollback
    journal mode: no ``-wal`` beside it)."""
    import contextlib
    import sqlite3

    tmp = dst + ".part"
    if os.path.exists(tmp):
        os.remove(tmp)
    with contextlib.closing(sqlite3.connect(f"file:{src}?mode=ro", uri=True)) as a, \
            contextlib.closing(sqlite3.connect(tmp)) as b:
        a.backup(b)
        b.execute("pragma journal_mode=delete")
    os.replace(tmp, dst)


def keep(args) -> int:
    """Copy the equal-time cells' databases of ``--work`` to :data:`KEPT` (module docstring)."""
    os.makedirs(args.to, exist_ok=True)
    for label, seconds, threads, level, games in STRONG_GNUGO_TIMED:
        cell = timed_cell(label, seconds, threads, level)
        db = os.path.join(args.work, cell + ".sqlite")
        if os.path.exists(db):
            _copy_db(db, os.path.join(args.to, cell + ".sqlite"))
            print(f"{cell}: kept in {args.to}")
    return 0


def _play(cmd, out) -> int:
    if WORKERS > 1:
        cmd = cmd + ["--workers", str(WORKERS)]
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
        return done.returncode
    # notices a reader of the cell should see (e.g. GNU Go crashed in a position and passed), not
    # the compile messages
    notes = [line for line in done.stderr.splitlines() if line.strip() and not line.startswith("banditree: compil")]
    with open(out + ".part", "w") as f:
        f.write(done.stdout + f"{time.perf_counter() - t0:.1f} s wall\n" + "".join(line + "\n" for line in notes))
    os.replace(out + ".part", out)
    return 0


def _tabulated(out):
    """The rows of an existing ``out/strength.csv`` with games played, by (game, playouts, label,
    opponent): a cell whose summary is not in the work folder keeps its row (a work folder of a
    later session need not hold every earlier cell)."""
    path = os.path.join(out, "strength.csv")
    if not os.path.exists(path):
        return {}
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("games") not in ("", "0")]
    for r in rows:
        for k in ("playouts", "planned", "games", "wins", "draws", "losses"):
            r[k] = int(r[k]) if k != "playouts" or r[k].isdigit() else r[k]  # (an equal-time cell: "1s-2t")
        for k in ("score", "wilson_low", "wilson_high"):
            r[k] = float(r[k])
        r["wall_s"] = float(r["wall_s"]) if r.get("wall_s") else ""
    return {(r["game"], r["playouts"], r["enhancement"], r["opponent"]): r for r in rows}


def table(args) -> int:
    rows = []
    before = _tabulated(args.out)
    cells = [(g, p, n, label, name(g, p, label), "ucb1:c=0.5") for g, p, n, label in CELLS]
    best = best_go(args.work)
    if best:
        cells += [("go", 10000, n, best, f"go-10000-{best}-gnugo{lvl}", f"gnugo:level={lvl}") for lvl, n in GNUGO]
    else:  # the GNU Go rows of the existing table
        cells += [(g, p, r["planned"], label, f"{g}-{p}-{label}-{opp}", opp) for (g, p, label, opp), r in before.items()
                  if opp.startswith("gnugo") and not label.startswith("strong")]
    cells += [("go", p, n, label, f"go-{p}-{label}-gnugo{lvl}", f"gnugo:level={lvl}") for label, p, lvl, n in STRONG_GNUGO]
    cells += [("go", timed(s, t), n, label, timed_cell(label, s, t, lvl), f"gnugo:level={lvl}")
              for label, s, t, lvl, n in STRONG_GNUGO_TIMED]
    for game, playouts, games, label, stem, opponent in cells:
        path = os.path.join(args.work, stem + ".txt")
        row = {"game": game, "playouts": playouts, "enhancement": label, "options": VARIANTS[label],
               "opponent": opponent, "planned": games}
        if os.path.exists(path):
            text = open(path).read()
            w, d, l, n = map(int, LINE.search(text).groups())
            lo, hi = map(float, WILSON.search(text).groups())
            elo = ELO.search(text).groups()
            wall = re.search(r"([\d.]+) s wall", text)
            row.update(games=n, wins=w, draws=d, losses=l, score=round((w + d / 2) / n, 4), wilson_low=lo,
                       wilson_high=hi, elo=elo[0], elo_low=elo[1], elo_high=elo[2],
                       wall_s=float(wall.group(1)) if wall else "")
        elif (game, playouts, label, opponent) in before:
            row.update({k: v for k, v in before[(game, playouts, label, opponent)].items() if k not in row})
        else:
            row.update(games=0)
        rows.append(row)
    os.makedirs(args.out, exist_ok=True)
    fields = ["game", "playouts", "enhancement", "options", "opponent", "planned", "games", "wins", "draws", "losses",
              "score", "wilson_low", "wilson_high", "elo", "elo_low", "elo_high", "wall_s"]
    tmp = os.path.join(args.out, "strength.csv.part")
    with open(tmp, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: row.get(k, "") for k in fields})
    os.replace(tmp, os.path.join(args.out, "strength.csv"))
    lines = ["# Strength of the enhancements against plain UCT (`ucb1:c=0.5` on both sides)", "",
             "Generated by `python benchmarks/strength_table.py table --work DIR --out docs/enhancements` from the",
             "outputs of `python benchmarks/strength_table.py run --work DIR` (`banditree match`, colours alternating,",
             "`--seed 10`). Score of the enhanced side (wins + draws / 2) with its Wilson 95% interval; games",
             "played / planned (fewer where the session's time ran out; rerun the command to complete them).", "",
             "| game | playouts | player A | against | games | W-D-L | score | Wilson 95% | Elo |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        head = f"| {r['game']} | {r['playouts']} | {r['enhancement']} (`{r['options']}`) | `{r['opponent']}` |"
        if r["games"]:
            lines.append(f"{head} {r['games']} / {r['planned']} | "
                         f"{r['wins']}-{r['draws']}-{r['losses']} | {r['score']:.3f} | "
                         f"[{r['wilson_low']:.3f}, {r['wilson_high']:.3f}] | {r['elo']} [{r['elo_low']}, {r['elo_high']}] |")
        else:
            lines.append(f"{head} 0 / {r['planned']} (not played yet) | | | | |")
    tmp = os.path.join(args.out, "strength.md.part")
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, os.path.join(args.out, "strength.md"))
    print("\n".join(lines))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run", help="play the cells (resumable)")
    r.add_argument("--work", required=True, help="folder for the databases and summaries")
    r.add_argument("--only", nargs="*", help="cells to play, e.g. go-1000-rave")
    r.add_argument("--workers", type=int, default=1,
                   help="games of a cell played at once in local processes (banditree match --workers); a cell "
                        "with threads takes that many cores a worker")
    t = sub.add_parser("table", help="write strength.csv and strength.md")
    t.add_argument("--work", required=True)
    t.add_argument("--out", default=os.path.join("docs", "enhancements"))
    k = sub.add_parser("keep", help="copy the equal-time cells' databases to docs/enhancements/games")
    k.add_argument("--work", required=True)
    k.add_argument("--to", default=KEPT, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    return {"run": run, "table": table, "keep": keep}[args.what](args)


if __name__ == "__main__":
    raise SystemExit(main())
