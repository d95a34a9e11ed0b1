"""``banditree match``: play two players against each other, colours alternating.

    banditree match --game connect4 --a ucb1:c=1.4 --b miucb:episodic=true --playouts 2000 \\
        --games 100 --seed 0          (or --seconds S for a time budget per move)

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


def register(subparsers) -> None:
    p = subparsers.add_parser("match", help="play a match between two players (MCTS with any bandit policy, ...)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, help="game name (nim, tictactoe, connect4, ...)")
    p.add_argument("--size", type=int, default=None, help="board size for go/nogo (default: the game's, 9)")
    p.add_argument("--komi", type=float, default=None, help="komi for go (default: the game's, 7.5)")
    p.add_argument("--a", required=True, help="player A spec, e.g. ucb1:c=1.4 or miucb:episodic=true,final=max")
    p.add_argument("--b", required=True, help="player B spec, e.g. random or alphabeta:depth=4")
    p.add_argument("--playouts", type=int, default=None, help="MCTS iterations per move")
    p.add_argument("--seconds", type=float, default=None, help="time per move (seconds)")
    p.add_argument("--games", type=int, default=100, help="number of games (A moves first in even games)")
    p.add_argument("--seed", type=int, default=0, help="match seed (game i uses game_seed(seed, i))")
    p.add_argument("--db", default=None, help="results database (SQLite); resumes a run already there")
    p.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="play the games on this Dask scheduler instead of local processes")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--log", action="store_true",
                   help="per-move search records on stderr (iterations, time, tree size, depth, PV, "
                        "alternatives) and as SGF comments C[...] of the stored games")
    p.set_defaults(func=run)


def run(args) -> int:
    from testbeds.ratings import format_elo
    from testbeds.tournament import MatchConfig, run_match
    from treepolicies import make_game, make_player

    if args.playouts is None and args.seconds is None:
        raise ValueError("give --playouts N or --seconds S")
    if args.playouts is not None and args.playouts < 1:
        raise ValueError(f"--playouts must be >= 1, got {args.playouts}")
    if args.seconds is not None and not args.seconds > 0:
        raise ValueError(f"--seconds must be > 0, got {args.seconds}")
    if args.games < 1:
        raise ValueError(f"--games must be >= 1, got {args.games}")
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    if args.workers < 1:
        raise ValueError(f"--workers must be >= 1, got {args.workers}")
    options = {k: v for k, v in (("size", args.size), ("komi", args.komi)) if v is not None}
    make_game(args.game, **options)  # unknown names and options fail here, before any worker starts
    a = make_player(args.a, playouts=args.playouts, seconds=args.seconds)
    b = make_player(args.b, playouts=args.playouts, seconds=args.seconds)
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
