"""``banditree tables``: the grid of Tables 1-2 (Mi-UCT against UCT on Go or NoGo), resumable."""
from __future__ import annotations

import argparse
import os
import sys

from testbeds.commands._common import check_writable, cpus
from testbeds.tables import DEFAULT_C, DEFAULT_MI, DEFAULT_PLAYOUTS, TablesSpec, collect_cells, run_tables, \
    write_outputs

#: Default games per cell, sized so the default grid (6 C x 3 playouts) takes about an hour with
#: --workers 2 on a 2-core machine; measured game times in docs/tournaments.md.
DEFAULT_GAMES = {"nogo": 250, "go": 100}

EPILOG = f"""\
Each cell is the match `banditree match --game G --a MI --b ucb1:c=C --playouts P --seed S`.
Default games per cell: {DEFAULT_GAMES['nogo']} for nogo, {DEFAULT_GAMES['go']} for go (9x9), sized for about an
hour on a 2-core machine with 2 workers: measured, one game in every cell of the default 6 x 3 grid
costs 27 core-seconds in NoGo and 73 in Go (docs/tournaments.md).  The paper used --games 1000
(about 7.5 core-hours for NoGo, 20 for Go).  Running the command again resumes; a larger --games
adds games; Ctrl-C keeps every finished game and writes the partial tables.
"""


def _numbers(name, kind, what):
    """argparse type for a comma-separated list of ``kind`` (float or int), named in errors."""
    def parse(text):
        try:
            vals = tuple(kind(x) for x in text.split(",") if x.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be comma-separated {what}s, got {text!r}")
        if not vals:
            raise argparse.ArgumentTypeError(f"{name} must list at least one {what}")
        return vals
    return parse


def register(sub) -> None:
    p = sub.add_parser("tables", help="Tables 1-2: Mi-UCT against UCT over UCT's C and playouts, resumable",
                       description=__doc__, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, choices=("go", "nogo"))
    p.add_argument("--size", type=int, default=9, help="board size (default 9, the paper's)")
    p.add_argument("--komi", type=float, default=None, help="Go only: komi (default: the game's, 7.5)")
    p.add_argument("--c", type=_numbers("c", float, "number"), default=DEFAULT_C, metavar="C1,C2,...",
                   help="UCT's constants, the rows (default %(default)s: our grid, the paper gives none)")
    p.add_argument("--playouts", type=_numbers("playouts", int, "integer"), default=DEFAULT_PLAYOUTS, metavar="P1,P2,...",
                   help="playouts per move for both players, the columns (default %(default)s)")
    p.add_argument("--mi", action="append", default=None, metavar="SPEC",
                   help=f"Mi-UCT's spec; repeat for one table per variant (default {DEFAULT_MI})")
    p.add_argument("--uct", default="ucb1", metavar="SPEC",
                   help="UCT's spec without c, e.g. ucb1:final=max (default %(default)s)")
    p.add_argument("--games", type=int, default=None,
                   help="games per cell (default: nogo %d, go %d; the paper: 1000)" % (DEFAULT_GAMES["nogo"],
                                                                                      DEFAULT_GAMES["go"]))
    p.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
    p.add_argument("--db", default=None, help="results database (default results/<game><size>_tables.sqlite)")
    p.add_argument("--out", default=None, help="folder for table.csv, table.md, heatmap.png/.pdf "
                                               "(default: next to the database, <db name>_tables/)")
    p.add_argument("--workers", type=int, default=cpus(), help="local worker processes (default: all cores, %(default)s)")
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="run the games on this Dask scheduler instead (pip install banditree[distributed])")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args) -> int:
    options = {"size": args.size}
    if args.komi is not None:
        if args.game != "go":
            raise ValueError("komi applies to --game go only")
        options["komi"] = args.komi
    games = args.games if args.games is not None else DEFAULT_GAMES[args.game]
    spec = TablesSpec(game=args.game, cs=args.c, playouts=args.playouts, mis=tuple(args.mi or (DEFAULT_MI,)),
                      uct=args.uct, games=games, seed=args.seed, game_options=options)
    db = args.db or os.path.join("results", f"{args.game}{args.size}_tables.sqlite")
    out = args.out or os.path.splitext(db)[0] + "_tables"
    title = f"Mi-UCT against UCT, {args.size}x{args.size} {'Go' if args.game == 'go' else 'NoGo'}, seed {args.seed}"
    check_writable(out, create=False)  # before the games, not after them (creates nothing yet)
    try:
        cells = run_tables(spec, db, workers=args.workers, scheduler=args.scheduler,
                           progress=not args.no_progress)
    except KeyboardInterrupt:
        _write(db, spec, out, title)  # the tables so far, from what the database holds
        raise
    paths = write_outputs(cells, out, title)
    print(open(paths[1]).read())
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def _write(db, spec, out, title) -> None:
    wanted = {(mi, float(c), int(p)) for mi, c, p, _ in spec.cells()}
    cells = [c for c in collect_cells(db, spec.games) if (c.mi, c.c, c.playouts) in wanted]
    if cells:
        paths = write_outputs(cells, out, title + " (partial)")
        print("wrote partial tables: " + ", ".join(str(p) for p in paths), file=sys.stderr)
