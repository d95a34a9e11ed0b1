"""``banditree analyze``: search one position and write what the search saw.

    banditree analyze --game go --moves "E5 C3 G7" --player ucb1:c=0.5 --playouts 5000 --out results/e5
    banditree analyze --game go --sgf game.sgf --move 40 --player miucb:episodic=true --playouts 3000 --out DIR
    banditree analyze --game connect4 --moves "3 3 2" --player ucb1:c=1 --playouts 20000 --out DIR
    banditree analyze --game "openspiel:breakthrough(rows=6,columns=6)" --moves "a5a4 a2a3" --out DIR

The position: the game's start, then ``--moves`` (Go/NoGo vertices such as ``D4`` or ``pass``;
Connect Four columns 0-6; tic-tac-toe cells 0-8, row by row; an OpenSpiel game's action strings or
numbers, chance outcomes included), or ``--sgf FILE`` at ``--move N``
(the position after N moves; all moves without ``--move``).  One search of ``--playouts``
iterations (early stopping off), run in chunks so that the snapshots of the root's visit shares
come from it too (treepolicies.viz.growth).  Writes root.png/.pdf (board heatmaps), tree.png/.pdf
(tree view), growth.png/.pdf, tree.json, tree.dot and search.json into ``--out``
(treepolicies.viz.analysis) and prints the search record.  ``--out`` is replaced as a whole, like a
testbed results folder (testbeds.folders): an earlier analysis only with ``--overwrite``, never mixed
with the new one, and a folder holding other files is refused before the search.
"""
from __future__ import annotations

import argparse
import os

from testbeds.commands._common import Int, Number, ranged

GAMES = ("go", "nogo", "connect4", "tictactoe")


def _game_name(text: str) -> str:
    """A game ``analyze`` searches: one of GAMES, or an OpenSpiel game (loaded, and so checked, later)."""
    if text in GAMES or text.startswith("openspiel:"):
        return text
    raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from {', '.join(GAMES)} or openspiel:NAME)")


def register(subparsers) -> None:
    p = subparsers.add_parser("analyze", help="search one position and write heatmaps, a tree view and exports",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, type=_game_name, metavar="GAME",
                   help="go, nogo, connect4, tictactoe or openspiel:NAME (an OpenSpiel game, docs/openspiel.md)")
    p.add_argument("--size", type=Int(5, 19), default=None,
                   help=ranged(Int(5, 19), "9; an SGF sets its own", "board size for go/nogo"))
    p.add_argument("--komi", type=Number(-361, 361), default=None,
                   help=ranged(Number(-361, 361), "7.5; an SGF sets its own", "komi for go"))
    p.add_argument("--sgf", default=None, metavar="FILE", help="start from this SGF record (go, nogo)")
    p.add_argument("--move", type=Int(0, 100_000), default=None, metavar="N",
                   help=ranged(Int(0, 100_000), "the last", "with --sgf: the position after N moves"))
    p.add_argument("--moves", default=None, help='moves played from the start, e.g. "D4 E5 pass" or "3 3 2"')
    p.add_argument("--player", default="ucb1", help="MCTS player spec (default ucb1), e.g. miucb:episodic=true,rave=true")
    p.add_argument("--playouts", type=Int(1, 1_000_000_000), default=1000,
                   help=ranged(Int(1, 1_000_000_000), 1000, "search iterations"))
    p.add_argument("--seed", type=Int(0, 2**63 - 1), default=0, help=ranged(Int(0, 2**63 - 1), 0, "search seed"))
    p.add_argument("--depth", type=Int(1, 50), default=3, help=ranged(Int(1, 50), 3, "plies of the tree view and exports"))
    p.add_argument("--width", type=Int(1, 400), default=4,
                   help=ranged(Int(1, 400), 4, "children per node in the tree view and exports"))
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--overwrite", action="store_true", help="replace the files of an earlier analysis in --out")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run, interrupted=interrupted)


def position(args):
    """The game at the requested position; ValueError naming the flag for bad input."""
    from treepolicies.games import make_game

    if args.move is not None and args.sgf is None:
        raise ValueError("--move needs --sgf FILE")
    if args.sgf is not None and args.moves is not None:
        raise ValueError("give --sgf FILE (with --move N) or --moves, not both")
    if args.sgf is not None:
        if args.game not in ("go", "nogo"):
            raise ValueError(f"--sgf is for go and nogo, got --game {args.game}")
        if args.move is not None and args.move < 0:
            raise ValueError(f"--move must be an integer >= 0, got {args.move}")
        from treepolicies.interop.sgf import load_sgf_file

        try:
            return load_sgf_file(args.sgf, move_number=args.move, game=args.game)
        except OSError as exc:
            raise ValueError(f"--sgf {args.sgf}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise ValueError(f"--sgf {args.sgf}: {exc}") from None
    options = {}
    if args.game in ("go", "nogo") and args.size is not None:
        options["size"] = args.size
    if args.game == "go" and args.komi is not None:
        options["komi"] = args.komi
    if args.game not in ("go", "nogo") and args.size is not None:
        raise ValueError(f"--size is for go and nogo, got --game {args.game}")
    try:
        game = make_game(args.game, **options)
    except ValueError as exc:
        raise ValueError(f"--size/--komi: {exc}") from None
    for k, text in enumerate((args.moves or "").replace(",", " ").split()):
        if game.terminal():
            raise ValueError(f"--moves: the game is over before move {k + 1} ({text!r})")
        try:
            move = game.str_to_move(text)
        except ValueError as exc:
            raise ValueError(f"--moves: move {k + 1} ({text!r}): {exc}") from None
        legal = game.is_legal(move) if hasattr(game, "is_legal") else move in game.legal_moves()
        if not legal:
            raise ValueError(f"--moves: move {k + 1} ({text!r}) is illegal in this position")
        game.play(move)
    if game.terminal():
        raise ValueError("--moves: the game is over after these moves; there is nothing to search")
    return game


def run(args) -> int:
    from testbeds.commands._common import check_writable
    from testbeds.folders import check_replaceable, claim, replace_folder
    from treepolicies.viz.analysis import analyze_position, mcts_player, write_analysis
    from treepolicies.viz.summary import format_record

    for flag, value, lo in (("--playouts", args.playouts, 1), ("--seed", args.seed, 0), ("--depth", args.depth, 0),
                            ("--width", args.width, 1)):
        if value < lo:
            raise ValueError(f"{flag} must be an integer >= {lo}, got {value}")
    mcts_player(args.player, args.playouts)  # a bad spec fails before anything is written
    game = position(args)
    out = check_writable(args.out, create=False)  # before any computing
    with claim(out):  # one writer of --out until its files are in
        check_replaceable(out, overwrite=args.overwrite)  # (and again at the swap: replace_folder)
        bar = None
        if not args.no_progress:
            from tqdm import tqdm

            bar = tqdm(total=args.playouts, desc=f"{args.game} search", unit="it", dynamic_ncols=True)

        def progress(done, total):
            if bar is not None:
                bar.update(done - bar.n)

        try:
            analysis = analyze_position(game, args.player, args.playouts, seed=args.seed, progress=progress)
        finally:
            if bar is not None:
                bar.close()
        # the whole folder at once (testbeds.folders): an earlier analysis is replaced, never mixed in
        with replace_folder(out, overwrite=args.overwrite) as tmp:
            names = [os.path.basename(p) for p in write_analysis(analysis, tmp, depth=args.depth, width=args.width,
                                                                 overwrite=True)]
    print(format_record(analysis.record, prefix=f"{args.game}: "))
    print(f"wrote {len(names)} files to {out}")
    return 0


def interrupted(args) -> str:
    """What a stopped analysis leaves (Ctrl-C, a full disk): --out as it was, nothing of this search."""
    return f"{args.out} is as it was (nothing of this search is saved)"
