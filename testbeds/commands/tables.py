"""``banditree tables``: the grid of Tables 1-2 (Mi-UCT against UCT on Go or NoGo), resumable.

The paper's games are Go and NoGo; the same grid runs on any two-player game (connect4,
openspiel:breakthrough, ...), whose default is %d games a cell and whose files are named after
the game (results/<game>_tables.sqlite, other characters than letters, digits, _ . - as _)."""
from __future__ import annotations

import argparse
import os

from testbeds.commands._common import C, GAMES, KOMI, PLAYOUTS, SEED, SIZE, WORKERS, Int, Number, NumberList, \
    check_writable, cpus, game_slug, ranged, two_players
from testbeds.tables import DEFAULT_C, DEFAULT_MI, DEFAULT_PLAYOUTS, TablesSpec, collect_cells, run_tables, \
    write_outputs

#: Default games per cell, sized so the default grid (6 C x 3 playouts) takes about an hour with
#: --workers 2 on a 2-core machine; measured game times in docs/tournaments.md.
DEFAULT_GAMES = {"nogo": 250, "go": 100}
OTHER_GAMES = 100  # games a cell on the other games (not measured: choose --games for the game's speed)
__doc__ %= OTHER_GAMES

EPILOG = f"""\
Each cell is the match `banditree match --game G --a MI --b ucb1:c=C --playouts P --seed S`.
Default games per cell: {DEFAULT_GAMES['nogo']} for nogo, {DEFAULT_GAMES['go']} for go (9x9), sized for about an
hour on a 2-core machine with 2 workers: measured, one game in every cell of the default 6 x 3 grid
costs 27 core-seconds in NoGo and 73 in Go (docs/tournaments.md).  The paper used --games 1000
(about 7.5 core-hours for NoGo, 20 for Go).  Running the command again resumes; a larger --games
adds games; Ctrl-C keeps every finished game and writes the partial tables.
"""


def register(sub) -> None:
    p = sub.add_parser("tables", help="Tables 1-2: Mi-UCT against UCT over UCT's C and playouts, resumable",
                       description=__doc__, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, metavar="GAME",
                   help="go or nogo (the paper's), or any two-player game: connect4, openspiel:NAME, ...")
    p.add_argument("--size", type=Int(*SIZE), default=None,
                   help=ranged(Int(*SIZE), "9, the paper's", "go/nogo only: board size"))
    p.add_argument("--komi", type=Number(*KOMI), default=None,
                   help=ranged(Number(*KOMI), "the game's, 7.5", "Go only: komi, a multiple of 0.5 within +-size*size"))
    p.add_argument("--c", type=NumberList(Number(*C)), default=DEFAULT_C, metavar="C1,C2,...",
                   help=f"UCT's constants, the rows, each in {C[0]:g}..{C[1]:g} "
                        f"(default {','.join(f'{c:g}' for c in DEFAULT_C)}: our grid, the paper gives none)")
    p.add_argument("--playouts", type=NumberList(Int(*PLAYOUTS)), default=DEFAULT_PLAYOUTS, metavar="P1,P2,...",
                   help=f"playouts per move for both players, the columns, each in {PLAYOUTS[0]}..{PLAYOUTS[1]} "
                        f"(default {','.join(str(p) for p in DEFAULT_PLAYOUTS)})")
    p.add_argument("--mi", action="append", default=None, metavar="SPEC",
                   help=f"Mi-UCT's spec; repeat for one table per variant (default {DEFAULT_MI})")
    p.add_argument("--uct", default="ucb1", metavar="SPEC",
                   help="UCT's spec without c, e.g. ucb1:final=max (default %(default)s)")
    p.add_argument("--games", type=Int(*GAMES), default=None,
                   help=ranged(Int(*GAMES), "nogo %d, go %d, other games %d; the paper: 1000" % (
                               DEFAULT_GAMES["nogo"], DEFAULT_GAMES["go"], OTHER_GAMES), "games per cell"))
    p.add_argument("--seed", type=Int(*SEED), default=0, help=ranged(Int(*SEED), 0, "run seed"))
    p.add_argument("--db", default=None, help="results database (default results/<game><size>_tables.sqlite)")
    p.add_argument("--out", default=None, help="folder for table.csv, table.md, heatmap.png/.pdf, replaced "
                                               "as a whole (default: beside the database, named after it without "
                                               "its extension, with _tables added unless the name ends in tables: "
                                               "results/nogo9_tables.sqlite gives results/nogo9_tables/, "
                                               "results/go9.sqlite results/go9_tables/); printed at the end")
    p.add_argument("--overwrite", action="store_true",
                   help="replace tables of another grid already in --out (the same grid is rewritten as it "
                        "resumes)")
    p.add_argument("--workers", type=Int(*WORKERS), default=cpus(),
                   help=ranged(Int(*WORKERS), f"all cores, {cpus()}", "local worker processes"))
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="run the games on this Dask scheduler instead (pip install banditree[distributed])")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run, interrupted=interrupted)


def _options(args) -> dict:
    """make_game's options: go and nogo take --size (default 9, the paper's) and go --komi; other games
    neither (ValueError naming the flag)."""
    if args.game not in DEFAULT_GAMES:
        for flag, value in (("--size", args.size), ("--komi", args.komi)):
            if value is not None:
                raise ValueError(f"{flag} applies to --game go and nogo only, got --game {args.game}")
        return {}
    options = {"size": 9 if args.size is None else args.size}
    if args.komi is not None:
        if args.game != "go":
            raise ValueError("--komi applies to --game go only")
        options["komi"] = args.komi
    return options


def default_db(args) -> str:
    """results/<game><size>_tables.sqlite for go and nogo (results/nogo9_tables.sqlite), else
    results/<game_slug(game)>_tables.sqlite."""
    if args.game in DEFAULT_GAMES:
        return os.path.join("results", f"{args.game}{9 if args.size is None else args.size}_tables.sqlite")
    return os.path.join("results", f"{game_slug(args.game)}_tables.sqlite")


def default_out(db: str) -> str:
    """The tables folder beside the database, named after it: its name without the extension, with
    ``_tables`` added unless that name already ends in ``tables`` (or there is no extension to drop):
    ``results/nogo9_tables.sqlite`` -> ``results/nogo9_tables``, ``results/tables.sqlite`` ->
    ``results/tables``, ``runs/a.sqlite`` -> ``runs/a_tables``, ``runs/tables`` -> ``runs/tables_tables``."""
    stem, ext = os.path.splitext(db)
    return stem if ext and os.path.basename(stem).endswith("tables") else stem + "_tables"


def run(args) -> int:
    from testbeds.commands.match import game_options
    from testbeds.folders import claim

    options = _options(args)
    game_options(args.game, options)  # a bad game, --size or --komi named, before anything else
    two_players(args.game, options, "tables")
    games = args.games if args.games is not None else DEFAULT_GAMES.get(args.game, OTHER_GAMES)
    spec = TablesSpec(game=args.game, cs=args.c, playouts=args.playouts, mis=tuple(args.mi or (DEFAULT_MI,)),
                      uct=args.uct, games=games, seed=args.seed, game_options=options)
    db = args.db or default_db(args)
    out = args.out or default_out(db)
    if args.game in DEFAULT_GAMES:
        board = f"{options['size']}x{options['size']} {'Go' if args.game == 'go' else 'NoGo'}"
    else:
        board = args.game
    title = f"Mi-UCT against UCT, {board}, seed {args.seed}"
    check_writable(out, create=False)  # before the games, not after them (creates nothing yet)
    with claim(out):  # one writer of --out, from these checks to the tables written
        return _run(args, spec, db, out, title)


def _run(args, spec, db, out, title) -> int:
    from testbeds.folders import check_replaceable
    from testbeds.tables import grid_of, stored_grid

    check_replaceable(out)
    stored = stored_grid(out)
    if stored is not None and stored != grid_of(spec) and not args.overwrite:
        raise FileExistsError(f"{out} holds the tables of another grid; pass --overwrite to replace them with this "
                              f"grid's or choose another --out (the games of both grids stay in {db})")
    try:
        cells = run_tables(spec, db, workers=args.workers, scheduler=args.scheduler,
                           progress=not args.no_progress)
    except KeyboardInterrupt:
        args.partial = _write(db, spec, out, title)  # the tables so far, from what the database holds
        raise
    paths = write_outputs(cells, out, title)
    print(open(paths[1]).read())
    print(f"tables in {out}{os.sep}: " + ", ".join(p.name for p in paths) + f" (the games are in {db})")
    return 0


def _write(db, spec, out, title) -> "str | None":
    """Write the tables of the cells stored so far (after Ctrl-C); returns the folder, or None."""
    wanted = {(mi, float(c), int(p)) for mi, c, p, _ in spec.cells()}
    cells = [c for c in collect_cells(db, spec.games) if (c.mi, c.c, c.playouts) in wanted]
    if cells:
        write_outputs(cells, out, title + " (partial)")
        return out
    return None


def interrupted(args) -> str:
    from testbeds.commands._common import saved_games

    db = args.db or default_db(args)
    partial = getattr(args, "partial", None)
    tables = f", the partial tables in {partial}" if partial else ""
    return f"{saved_games(db)} in {db}{tables}; rerun the same command to resume"
