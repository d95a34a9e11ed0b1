"""``banditree tune``: tune a player-spec parameter by self-play, with successive halving.

    banditree tune --game connect4 --player "ucb1:c={c}" --grid c=0.3,0.5,0.7,1,1.4,2 \\
        --against ucb1:c=1.4 --playouts 1000 --budget 2000 --db results/c4_tune.sqlite --out results/c4_tune
    banditree tune --game connect4 --player "ucb1:c=0.5,rave=true,rave_k={k}" --grid k=10,100,1000 \\
        --round-robin --playouts 500 --budget 600

The candidates are --player with each --grid value put in its {KEY} placeholder (several --grid
give the cartesian product); any spec parameter works (a policy's c, rave_k, widen_alpha, ...).
Every candidate plays --against (or, with --round-robin, the other candidates).

Schedule (successive halving; testbeds.tune): R = max(1, ceil(log2 n)) rounds for n candidates;
in round r the n_r = ceil(n / 2^r) candidates still in play 2 * floor(BUDGET / (2 R n_r)) games each
against the reference (a round robin: that many per pair, with n_r (n_r - 1) / 2 pairs in place of
n_r); after each round the lower half by score over all their games so far is dropped (ties: the
candidate listed first stays).  The last one left is the best.  BUDGET must give 2 games per
candidate (pair) in every round.

Writes table.csv, table.md, score.png/.pdf (score against the first grid key with 95% intervals)
and tune.json into --out (checked writable before any game), and prints the best candidate with
its Wilson 95% interval and Elo.  --db resumes: each (candidate, round) pairing is one match of
the database, so the same command again plays only the missing games and gives the same result.
"""
from __future__ import annotations

import argparse

from testbeds.commands._common import KOMI, PLAYOUTS, SECONDS, SEED, SIZE, WORKERS, Int, Number, check_writable, \
    game_slug, ranged, two_players

BUDGET = (2, 10_000_000)
DEFAULT_BUDGET = 1000


def register(subparsers) -> None:
    p = subparsers.add_parser("tune", help="tune a player-spec parameter by self-play (successive halving)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", required=True, help="game name (connect4, nogo, go, tictactoe, openspiel:NAME, ...)")
    p.add_argument("--size", type=Int(*SIZE), default=None,
                   help=ranged(Int(*SIZE), "the game's, 9", "board size for go/nogo"))
    p.add_argument("--komi", type=Number(*KOMI), default=None,
                   help=ranged(Number(*KOMI), "the game's, 7.5", "komi for go"))
    p.add_argument("--player", required=True, metavar="TEMPLATE",
                   help='player spec with {KEY} placeholders, e.g. "ucb1:c={c}"')
    p.add_argument("--grid", action="append", required=True, metavar="KEY=V1,V2,...",
                   help="values of one placeholder; repeat for a cartesian product (at most 1000 candidates)")
    p.add_argument("--against", default=None, metavar="SPEC", help="the reference player, e.g. ucb1:c=1.4")
    p.add_argument("--round-robin", action="store_true", help="candidates play each other instead of --against")
    p.add_argument("--playouts", type=Int(*PLAYOUTS), default=None,
                   help=ranged(Int(*PLAYOUTS), "none", "MCTS iterations per move; give this or --seconds"))
    p.add_argument("--seconds", type=Number(*SECONDS, open_low=True), default=None,
                   help=ranged(Number(*SECONDS, open_low=True), "none", "time per move; give this or --playouts"))
    p.add_argument("--budget", type=Int(*BUDGET), default=DEFAULT_BUDGET,
                   help=ranged(Int(*BUDGET), DEFAULT_BUDGET, "games in all, spread over the rounds"))
    p.add_argument("--seed", type=Int(*SEED), default=0, help=ranged(Int(*SEED), 0, "run seed"))
    p.add_argument("--db", default=None, help="results database (SQLite); resumes a run already there")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="folder for table.csv, table.md, score.png/.pdf, tune.json, replaced as a whole "
                        "(default results/<game>_tune, the game name with other characters than letters, digits, _ . - as _)")
    p.add_argument("--overwrite", action="store_true", help="replace the results of another tuning in --out")
    p.add_argument("--workers", type=Int(*WORKERS), default=1, help=ranged(Int(*WORKERS), 1, "local worker processes"))
    p.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                   help="play the games on this Dask scheduler instead (pip install banditree[distributed])")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run, interrupted=interrupted)


def spec_of(args):
    """The TuneSpec of the arguments; ValueError naming the flag."""
    from testbeds.commands.match import game_options
    from testbeds.tune import TuneSpec, parse_grid

    if (args.playouts is None) == (args.seconds is None):
        raise ValueError("give exactly one of --playouts N and --seconds S (the budget of every move)")
    if args.round_robin == (args.against is not None):
        raise ValueError("give exactly one of --against SPEC and --round-robin")
    options = {k: v for k, v in (("size", args.size), ("komi", args.komi)) if v is not None}
    game_options(args.game, options)
    two_players(args.game, options, "tune")
    spec = TuneSpec(game=args.game, template=args.player, grid=parse_grid(args.grid), reference=args.against,
                    playouts=args.playouts, seconds=args.seconds, budget=args.budget, seed=args.seed,
                    game_options=options)
    spec.check_players()
    return spec


def run(args) -> int:
    from testbeds.folders import check_replaceable, claim
    from testbeds.ratings import format_elo
    from testbeds.tune import run_tune, stored_settings, write_outputs

    spec = spec_of(args)
    out = args.out or f"results/{game_slug(args.game)}_tune"
    check_writable(out, create=False)
    with claim(out):  # one writer of --out, from these checks to the results written
        check_replaceable(out)
        stored = stored_settings(out)
        if stored is not None and stored != spec.as_dict() and not args.overwrite:
            raise FileExistsError(f"--out {out} holds the results of another tuning; pass --overwrite to replace "
                                  f"them or choose another --out")
        result = run_tune(spec, args.db, workers=args.workers, scheduler=args.scheduler,
                          progress=not args.no_progress)
        title = f"Tuning {spec.template} on {spec.game}"
        paths = write_outputs(spec, result, out, title)
    print(open(paths[1]).read())
    best = result["standings"][0]
    r = best.rating
    vs = f"against {spec.reference}" if spec.reference else "in the round robin"
    print(f"best: {best.candidate.spec} ({best.candidate.label}) scores {r.rate:.3f} [{r.low:.3f}, {r.high:.3f}] "
          f"{vs} over {r.games} games; {format_elo(r)}")
    if args.db:
        print(f"{result['played']} games played now; the games are in {args.db}")
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def interrupted(args) -> str:
    from testbeds.commands._common import saved_games

    if not args.db:
        return "nothing is saved (without --db the games are kept in memory only)"
    return f"{saved_games(args.db)} in {args.db}; rerun the same command to resume"
