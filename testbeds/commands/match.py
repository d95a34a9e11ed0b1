"""``banditree match``: play two players against each other, colours alternating.

    banditree match --game connect4 --a ucb1:c=1.4 --b miucb:episodic=true --playouts 2000 \\
        --games 100 --seed 0          (or --seconds S for a time budget per move)

Player specs: see treepolicies.players (bandit specs with search options, ``random``,
``alphabeta:depth=N``, registered kinds).  Prints A's wins, draws, losses, score and the Wilson 95%
interval; a progress bar goes to stderr.
"""
from __future__ import annotations

import argparse


def register(subparsers) -> None:
    p = subparsers.add_parser("match", help="play a match between two players (MCTS with any bandit policy, ...)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, help="game name (nim, tictactoe, connect4, ...)")
    p.add_argument("--a", required=True, help="player A spec, e.g. ucb1:c=1.4 or miucb:episodic=true,final=max")
    p.add_argument("--b", required=True, help="player B spec, e.g. random or alphabeta:depth=4")
    p.add_argument("--playouts", type=int, default=None, help="MCTS iterations per move")
    p.add_argument("--seconds", type=float, default=None, help="time per move (seconds)")
    p.add_argument("--games", type=int, default=100, help="number of games (A moves first in even games)")
    p.add_argument("--seed", type=int, default=0, help="match seed (game i uses game_seed(seed, i))")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args) -> int:
    from tqdm import tqdm

    from treepolicies import make_game, make_player, match

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
    game = make_game(args.game)
    a = make_player(args.a, playouts=args.playouts, seconds=args.seconds)
    b = make_player(args.b, playouts=args.playouts, seconds=args.seconds)
    try:
        with tqdm(total=args.games, disable=args.no_progress, unit="game") as bar:
            def progress(i, result):
                bar.update(1)
                bar.set_postfix(score=f"{result.score:.3f}")

            result = match(a, b, game, args.games, args.seed, progress=progress)
    finally:
        a.close()
        b.close()
    lo, hi = result.interval
    print(f"game {args.game}: A = {a.name}, B = {b.name}")
    print(f"A: {result.wins} wins, {result.draws} draws, {result.losses} losses in {result.n_games} games")
    print(f"A score {result.score:.4f} (draws count half), Wilson 95% interval [{lo:.4f}, {hi:.4f}]")
    return 0
