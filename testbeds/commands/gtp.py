"""``banditree gtp``: a Go Text Protocol (version 2) engine on stdin/stdout, for Go or NoGo.

    banditree gtp --game go --size 9 --player miucb:episodic=true --playouts 3000
    banditree gtp --game nogo --player ucb1:c=0.5 --seconds 5
    banditree gtp --game go --player ucb1:c=0.5 --seconds 5 --threads 2    (tree parallelism, docs/parallel.md)

Drive it from GoGui, Sabaki, gomill or GNU Go's twogtp, e.g.
``gogui-twogtp -black "banditree gtp --game go" -white "gnugo --mode gtp --chinese-rules"``.
Commands: protocol_version, name, version, known_command, list_commands, boardsize, clear_board,
komi, play, genmove, undo, showboard, final_score, loadsgf, quit (treepolicies.interop.gtp).  Nothing but
protocol answers is written to stdout; when the controller closes it (exits), the engine stops
quietly with exit status 0.

Importing this module also registers the ``gnugo:level=N`` player kind (treepolicies.interop.gtp_client),
so ``banditree match --game go --a miucb:episodic=true --b gnugo:level=10 ...`` works.
"""
from __future__ import annotations

import argparse
import os
import sys

from testbeds.commands._common import KOMI, PLAYOUTS, SECONDS, SEED, SIZE, Int, Number, add_parallel_flags, \
    parallel_spec, ranged

try:  # registers the gnugo player kind for `banditree match`
    import treepolicies.interop.gtp_client  # noqa: F401
except ImportError:  # pragma: no cover - the tree layer's players module is missing in this checkout
    pass


def register(subparsers) -> None:
    p = subparsers.add_parser("gtp", help="run a GTP engine (Go or NoGo) on stdin/stdout",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=("go", "nogo"), default="go", help="go (default) or nogo")
    p.add_argument("--size", type=Int(*SIZE), default=9,
                   help=ranged(Int(*SIZE), 9, "board size; GTP boardsize changes it"))
    p.add_argument("--komi", type=Number(*KOMI), default=7.5,
                   help=ranged(Number(*KOMI), 7.5, "komi for go, a multiple of 0.5 within +-size*size"))
    p.add_argument("--player", default="miucb:episodic=true",
                   help="player spec (default miucb:episodic=true; e.g. ucb1:c=0.5, random)")
    p.add_argument("--playouts", type=Int(*PLAYOUTS), default=None,
                   help=ranged(Int(*PLAYOUTS), "3000 without --seconds", "MCTS iterations per move"))
    p.add_argument("--seconds", type=Number(*SECONDS, open_low=True), default=None,
                   help=ranged(Number(*SECONDS, open_low=True), "none", "time per move in seconds instead of --playouts"))
    p.add_argument("--seed", type=Int(*SEED), default=0, help=ranged(Int(*SEED), 0, "seed of the engine's randomness"))
    add_parallel_flags(p)
    p.add_argument("--name", default="banditree", help="name the engine reports")
    p.add_argument("--log", action="store_true",
                   help="one search record per genmove on stderr (iterations, time, tree size, depth, PV, alternatives)")
    p.set_defaults(func=run, interrupted=lambda args: "the engine stopped (a GTP session keeps no state)")


def run(args) -> int:
    from treepolicies.interop.gtp import GtpEngine

    playouts = args.playouts
    if playouts is None and args.seconds is None:
        playouts = 3000
    args.player = parallel_spec(args.player, args)
    try:
        engine = GtpEngine(game=args.game, size=args.size, komi=args.komi, player=args.player,
                           playouts=playouts, seconds=args.seconds, seed=args.seed, name=args.name,
                           log=sys.stderr if args.log else None)
    except ValueError as exc:  # name the flag: the engine's own messages name its parameters
        text = str(exc)
        for key in ("komi", "size"):
            if text.startswith(f"{key} "):
                raise ValueError(f"--{text}") from None
        raise ValueError(f"--player {args.player!r}: {text}") from None
    try:
        return engine.run()
    except BrokenPipeError:
        # the controller closed our standard output (it exited): nobody is left to answer, so stop
        # quietly; stdout goes to devnull so that the interpreter's final flush cannot fail again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 0
