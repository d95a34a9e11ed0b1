"""Strength beside OpenSpiel's own MCTS: our tree policies against ``pyspiel.MCTSBot`` at equal simulations.

    python benchmarks/openspiel_strength.py [--games 200] [--simulations 400] [--policies ucb1:c=0.7071 ...]

On each game (Connect Four, Breakthrough 6x6, Hex 5x5 through ``make_game("openspiel:...")``) each
policy of ours (an MCTS player, ``--simulations`` iterations a move, one random playout an
iteration) plays ``--games`` games against OpenSpiel's C++ ``MCTSBot`` (UCT at c = sqrt 2, the
same simulations, one random rollout, no solver), colours alternating, seeds from
treepolicies.match.game_seed.  OpenSpiel's returns are in [-1, 1] and ours in [0, 1], so its
c = sqrt 2 is our ``ucb1:c=0.7071`` (the default row); ``ucb1:c=1.4142`` is the same number on our
scale (twice the exploration), ``ucb1:c=0.35`` half of it; then KL-UCB, Thompson sampling, UCB1-Tuned
and the modified improved UCB at their defaults.  Printed: our score (draws count half) with its Wilson 95% interval.
Needs the ``open_spiel`` package (the ``openspiel`` extra).  A measurement, not a test.
"""
from __future__ import annotations

import argparse
import math
import sys

from treepolicies.games import make_game
from treepolicies.match import match
from treepolicies.players import Player, make_player

GAMES = ("connect_four", "breakthrough(rows=6,columns=6)", "hex(board_size=5)")


class OpenSpielBot(Player):
    """OpenSpiel's C++ MCTSBot (UCT, random rollouts) as a player of our matches; its own seed is
    drawn from the match's stream at each move, so a game replays with its seed."""

    def __init__(self, simulations: int, c: float = math.sqrt(2.0)):
        self.simulations, self.c = int(simulations), float(c)
        self.name = f"openspiel-mcts:c={self.c:.3f},sims={self.simulations}"

    def choose(self, game, rng):
        import pyspiel
        from bandits.rng import randint

        seed = randint(rng.state, 2 ** 31 - 1)
        bot = pyspiel.MCTSBot(game.game, pyspiel.RandomRolloutEvaluator(1, seed), self.c, self.simulations, 1000,
                              False, seed, False)
        return int(bot.step(game.state))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--simulations", type=int, default=400)
    parser.add_argument("--policies", nargs="*", default=["ucb1:c=0.7071", "ucb1:c=1.4142", "ucb1:c=0.35", "klucb",
                                                          "thompson", "ucb1tuned", "miucb"])
    parser.add_argument("--game", nargs="*", default=list(GAMES))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("open_spiel is not installed: pip install -e \".[openspiel]\"")
        return 1
    print(f"our MCTS against OpenSpiel's C++ MCTSBot, {args.simulations} simulations a move, {args.games} games a cell")
    print(f"{'game':32s} {'our policy':24s} {'W-D-L':>12s} {'score':>6s} {'95% interval':>16s}")
    for spec in args.game:
        game = make_game("openspiel:" + spec)
        for policy in args.policies:
            ours = make_player(policy, playouts=args.simulations)
            r = match(ours, OpenSpielBot(args.simulations), game, args.games, seed=args.seed)
            lo, hi = r.interval
            print(f"{spec:32s} {policy:24s} {f'{r.wins}-{r.draws}-{r.losses}':>12s} {r.score:6.3f} "
                  f"[{lo:.3f}, {hi:.3f}]", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
