"""Compiled helpers shared by the selection kernels: untried arms first, argmax with random ties."""
from __future__ import annotations

import numba as nb

from bandits.rng import randint
from bandits.stats import COUNT


@nb.njit(cache=True)
def untried_arm(stats, valid, rng):
    """A uniformly random valid arm with no pull yet, or -1 if every valid arm has been pulled.

    One pass with reservoir sampling; draws a random number only when there are two or more.
    """
    chosen = -1
    seen = 0
    for i in range(stats.shape[0]):
        if valid[i] and stats[i, COUNT] == 0.0:
            seen += 1
            if seen == 1 or randint(rng, seen) == 0:
                chosen = i
    return chosen


@nb.njit(cache=True)
def argmax_valid(scores, valid, rng):
    """Index of the largest score among valid arms, exact ties broken uniformly at random.

    Returns -1 when no arm is valid.
    """
    best = -1
    best_score = -math_inf
    ties = 0
    for i in range(scores.shape[0]):
        if not valid[i]:
            continue
        x = scores[i]
        if best < 0 or x > best_score:
            best, best_score, ties = i, x, 1
        elif x == best_score:
            ties += 1
            if randint(rng, ties) == 0:
                best = i
    return best


math_inf = float("inf")


@nb.njit(cache=True)
def n_valid(valid):
    """Number of valid arms."""
    k = 0
    for i in range(valid.shape[0]):
        if valid[i]:
            k += 1
    return k
