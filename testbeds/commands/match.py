"""``banditree match``: play two players against each other, colours alternating.

    banditree match --game connect4 --a ucb1:c=1.4 --b miucb:episodic=true --playouts 2000 \\
        --games 100 --seed 0          (or --seconds S for a time budget per move)
    banditree match --game "openspiel:pig(players=3)" --players ucb1 klucb random --playouts 200 --games 30

A game of n players other than two (OpenSpiel's) takes ``--players`` with one spec a seat: the seats
rotate (player (s + i) % n in seat s of game i, treepolicies.match_seats) and each player's score is
its mean reward in [0, 1] (the game's returns scaled by its utility bounds), printed with its Wilson
95% interval and its mean in each seat.  Such a match runs in this process (``--db``, ``--workers``,
``--scheduler`` and ``--log`` are for two-player matches).  ``--players A B`` is ``--a A --b B``.

``--threads N`` (and ``--parallel tree|root|leaf``) give each MCTS player a parallel search: the keys
threads=N (parallel=MODE) are added to its spec, which the results database records (docs/parallel.md).

Player specs: see treepolicies.players (bandit specs with search options, ``random``,
``alphabeta:depth=N``, registered kinds).  Prints A's wins, draws, losses, score and the Wilson 95%
interval, and the Elo difference with its interval; a progress bar goes to stderr.

Storage, resume and scale-out (testbeds.tournament): ``--db FILE`` commits every finished game to
an SQLite database and the same command again plays only the missing games (a file made with
another configuration is refused); ``--workers N`` plays in N local processes; ``--scheduler
tcp://HOST:PORT`` on a Dask cluster (pip install banditree[distributed]).
"""
from __future__ import annotations

import argparse

from testbeds.commands._common import (GAMES, saved_games, KOMI, PLAYOUTS, SECONDS, SEED, SIZE, WORKERS, Int, Number,
                                       add_parallel_flags, parallel_spec, ranged)


def register(subparsers) -> None:
    p = subparsers.add_parser("match", help="play a match between two players (MCTS with any bandit policy, ...)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, help="game name (nim, tictactoe, connect4, ...)")
    p.add_argument("--size", type=Int(*SIZE), default=None,
                   help=ranged(Int(*SIZE), "the game's, 9", "board size for go/nogo"))
    p.add_argument("--komi", type=Number(*KOMI), default=None,
                   help=ranged(Number(*KOMI), "the game's, 7.5", "komi for go, a multiple of 0.5 within "
                               "+-size*size"))
    p.add_argument("--a", default=None, help="player A spec, e.g. ucb1:c=1.4 or miucb:episodic=true,final=max")
    p.add_argument("--b", default=None, help="player B spec, e.g. random or alphabeta:depth=4")
    p.add_argument("--players", nargs="+", default=None, metavar="SPEC",
                   help="one player spec a seat, for games of any number of players (instead of --a and --b)")
    p.add_argument("--playouts", type=Int(*PLAYOUTS), default=None,
                   help=ranged(Int(*PLAYOUTS), "none", "MCTS iterations per move; give this or --seconds"))
    p.add_argument("--seconds", type=Number(*SECONDS, open_low=True), default=None,
                   help=ranged(Number(*SECONDS, open_low=True), "none", "time per move in seconds; "
                               "give this or --playouts"))
    p.add_argument("--games", type=Int(*GAMES), default=100,
                   help=ranged(Int(*GAMES), 100, "number of games (A moves first in even games)"))
    p.add_argument("--seed", type=Int(*SEED), default=0,
                   help=ranged(Int(*SEED), 0, "match seed (game i uses game_seed(seed, i))"))
    p.add_argument("--db", default=None, help="results database (SQLite); resumes a run already there")
    p.add_argument("--workers", type=Int(*WORKERS), default=1, help=ranged(Int(*WORKERS), 1, "local worker processes"))
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="play the games on this Dask scheduler instead of local processes")
    add_parallel_flags(p)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--log", action="store_true",
                   help="per-move search records on stderr (iterations, time, tree size, depth, PV, "
                        "alternatives) and as SGF comments C[...] of the stored games")
    p.set_defaults(func=run, interrupted=interrupted)


def run(args) -> int:
    from testbeds.ratings import format_elo
    from testbeds.tournament import MatchConfig, run_match

    if (args.playouts is None) == (args.seconds is None):
        raise ValueError("give exactly one of --playouts N and --seconds S (the budget of every move)")
    options = {k: v for k, v in (("size", args.size), ("komi", args.komi)) if v is not None}
    game_options(args.game, options)  # unknown names and options fail here, before any worker starts
    seats = _seats(args, options)
    if seats != 2:
        return _run_seats(args, options, seats)
    args.a, args.b = parallel_spec(args.a, args), parallel_spec(args.b, args)
    a = _player("--a", args.a, args)
    b = _player("--b", args.b, args)
    _check_game("--a", a, args.game, options)
    _check_game("--b", b, args.game, options)
    a.close()
    b.close()
    config = MatchConfig(game=args.game, a=args.a, b=args.b, playouts=args.playouts, seconds=args.seconds,
                         seed=args.seed, game_options=options)
    result = run_match(config, args.games, db=args.db, workers=args.workers, scheduler=args.scheduler,
                       progress=not args.no_progress, log=args.log)
    r = result.rating
    print(f"game {args.game}: A = {a.name}, B = {b.name}")
    print(f"A: {r.wins} wins, {r.draws} draws, {r.losses} losses in {r.games} games")
    print(f"A score {r.rate:.4f} (draws count half), Wilson 95% interval [{r.low:.4f}, {r.high:.4f}]")
    print(f"A - B {format_elo(r)}")
    capped = sum(g.capped for g in result.games)
    if capped:
        print(f"{capped} games ended by the game's move cap and were scored as they stood")
    if args.db:
        print(f"{result.played} games played now, {r.games} in {args.db}")
    return 0


def _seats(args, options) -> int:
    """The game's number of players, with --players / --a --b checked against it (ValueError naming them)."""
    from treepolicies.games import make_game

    n = int(getattr(make_game(args.game, **options), "num_players", 2))
    if args.players is not None:
        if args.a is not None or args.b is not None:
            raise ValueError("give either --players or --a and --b, not both")
        if len(args.players) != n:
            raise ValueError(f"--players needs one spec a seat: --game {args.game} has {n} players, "
                             f"got {len(args.players)}")
        if n == 2:
            args.a, args.b = args.players
    elif n != 2:
        raise ValueError(f"--game {args.game} has {n} players: give one spec a seat with --players "
                         f"(--a and --b are for two-player games)")
    elif args.a is None or args.b is None:
        raise ValueError("give --a and --b (or --players A B): the two players' specs")
    return n


def _run_seats(args, options, n: int) -> int:
    """A match of ``n`` seats (not two) in this process: treepolicies.match_seats with a progress bar."""
    from testbeds.tournament import progress_bar
    from treepolicies import match_seats
    from treepolicies.games import make_game

    for flag, used in (("--db", args.db), ("--workers", args.workers != 1), ("--scheduler", args.scheduler),
                       ("--log", args.log)):
        if used:
            raise ValueError(f"{flag} is for two-player matches; a match of {n} players runs in this process")
    specs = [parallel_spec(spec, args) for spec in args.players]
    players = [_player(f"--players #{k + 1}", spec, args) for k, spec in enumerate(specs)]
    try:
        for k, player in enumerate(players):
            _check_game(f"--players #{k + 1}", player, args.game, options)
        bar = progress_bar(args.games, 0, not args.no_progress, f"{args.game} {n} seats")

        def progress(i, result):
            if bar is not None:
                bar.update(1)
                bar.set_postfix_str(f"{result.players[0]} {result.score(0):.3f}")

        try:
            result = match_seats(players, make_game(args.game, **options), args.games, seed=args.seed,
                                 progress=progress)
        finally:
            if bar is not None:
                bar.close()
    finally:
        for player in players:
            player.close()
    print(f"game {args.game}: {n} seats, {result.n_games} games, seats rotated")
    for i, spec in enumerate(specs):
        lo, hi = result.interval(i)
        by_seat = "  ".join("-" if (v := result.seat_score(i, s)) is None else f"{v:.3f}" for s in range(n))
        print(f"player {i + 1} {spec}: score {result.score(i):.4f}, Wilson 95% interval [{lo:.4f}, {hi:.4f}]; "
              f"by seat {by_seat}")
    return 0


def _player(flag, spec, args):
    """The player ``spec`` names, or a ValueError naming ``flag``."""
    from treepolicies import make_player

    try:
        return make_player(spec, playouts=args.playouts, seconds=args.seconds)
    except ValueError as exc:
        raise ValueError(f"{flag} {spec!r}: {exc}") from None


def _check_game(flag, player, game, options) -> None:
    """A player whose search cannot run on ``game`` (e.g. threads on a Python game): ValueError naming ``flag``."""
    from treepolicies.games import make_game

    check = getattr(player, "check_game", None)
    if check is not None:
        try:
            check(make_game(game, **options))
        except ValueError as exc:
            raise ValueError(f"{flag} {player.name!r}: {exc}") from None


def game_options(game: str, options: dict) -> None:
    """Make ``game`` with ``options`` once; a bad option is a ValueError naming its flag
    (--size, --komi) and the valid values."""
    from treepolicies.games import GAMES, make_game

    if game not in GAMES:
        make_game(game)  # the error naming the valid games
    try:
        make_game(game, **options)
    except ValueError as exc:
        text = str(exc)
        for key in options:
            if text.startswith(f"unknown option {key!r}"):
                raise ValueError(f"--{key} does not apply to --game {game} ({text.split('; ', 1)[-1]})") from None
            if text.startswith(f"{key} "):
                raise ValueError(f"--{text}") from None
        raise


def interrupted(args) -> str:
    """Without --db nothing is kept; with it every finished game is (committed one by one)."""
    if not args.db:
        return "nothing is saved (without --db the games are kept in memory only)"
    return f"{saved_games(args.db)} in {args.db}; rerun the same command to resume"
