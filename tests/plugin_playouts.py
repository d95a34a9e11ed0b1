"""A playout policy written as a user would (docs/playouts.md), loaded with ``--plugin`` or
``bandits.load_plugin``: ``leastplayed`` plays, among the legal moves, the one its player has
played least often in the playouts so far (ties at random), and counts the playouts it played.

    stats[p * codes + m]   playout plies of move m by player p
    stats[2 * codes]       playouts played

and ``evens``, which takes the candidate path (docs/playouts.md: ``accept``) where the game draws
candidates: it plays a move with an even code whenever one is legal (uniformly among them), counts
the candidates it was asked about (``stats[2 * codes + 1]``), so a test sees which path ran, and
the playouts' first moves by code (``stats[2 * codes + 2 + m]``).
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


@numba.njit
def evens_choose(stats, params, codes, plies, k, mover, moves, n, rng, buf):
    even = 0
    for j in range(n):
        if moves[j] % 2 == 0:
            even += 1
    if even == 0:
        return randint(rng, n)
    pick = randint(rng, even)
    for j in range(n):
        if moves[j] % 2 == 0:
            if pick == 0:
                return j
            pick -= 1
    return 0


@numba.njit
def evens_accept(stats, params, codes, plies, k, mover, c, rng, buf, tries):
    stats[2 * codes + 1] += 1.0   # a candidate asked about
    return 1 if c % 2 == 0 else 0


@numba.njit
def evens_update(stats, params, codes, plies, start, k, who, value, buf):
    least_update(stats, params, codes, plies, start, k, who, value, buf)
    if k > start:
        stats[2 * codes + 2 + (plies[start] >> 1)] += 1.0


playout_policy("evens", choose=evens_choose, update=evens_update, accept=evens_accept,
               size=lambda codes, params: 3 * codes + 2)
