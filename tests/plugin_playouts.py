"""A playout policy written as a user would (docs/playouts.md), loaded with ``--plugin`` or
``bandits.load_plugin``: ``leastplayed`` plays, among the legal moves, the one its player has
played least often in the playouts so far (ties at random), and counts the playouts it played.

    stats[p * codes + m]   playout plies of move m by player p
    stats[2 * codes]       playouts played
"""
import numba

from bandits import Param
from bandits.rng import randint
from treepolicies.mcts.playouts import playout_policy


@numba.njit
def least_choose(stats, params, codes, plies, k, mover, moves, n, rng, buf):
    best, pick, ties = 1e300, 0, 0
    for j in range(n):
        v = stats[mover * codes + moves[j]] * params[0]
        if v < best:
            best, pick, ties = v, j, 1
        elif v == best:
            ties += 1
            if randint(rng, ties) == 0:
                pick = j
    return pick


@numba.njit
def least_update(stats, params, codes, plies, start, k, who, value, buf):
    for t in range(start, k):
        stats[(plies[t] & 1) * codes + (plies[t] >> 1)] += 1.0
    stats[2 * codes] += 1.0


playout_policy("leastplayed", choose=least_choose, update=least_update, size=lambda codes, params: 2 * codes + 1,
               weight=Param(1.0, low=0.0, high=10.0, doc="0: uniformly random playouts"))
