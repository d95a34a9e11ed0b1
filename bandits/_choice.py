"""Compiled helpers shared by the selection kernels: untried arms first, argmax with random ties.

Index policies write one score per arm into a scratch vector through :func:`gated`, which turns an
untried valid arm into +inf and an invalid arm into -inf; :func:`argmax_random` then returns the
best arm with exact ties broken uniformly at random.  So "untried arms first, chosen uniformly at
random, and ties at random" is one rule, written once.  Both loops are branch-free and vectorise.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from bandits.rng import randint
from bandits.stats import COUNT

_FAST = {"nnan", "nsz"}  # scores are never NaN (gated() replaces untried arms); infinities are used


@nb.njit(cache=True, inline="always")
def gated(score, count, valid):
    """+inf for an untried valid arm, -inf for an invalid arm, else ``score``."""
    s = np.inf if count == 0.0 else score
    return s if valid else -np.inf


@nb.njit(cache=True, fastmath=_FAST)
def argmax_random(work, rng):
    """Index of the largest entry of ``work``, exact ties broken uniformly at random.

    Draws a random number only when there is a tie.  Invalid arms must be gated to -inf and at
    least one arm must be valid (every caller guarantees it).
    """
    best = -np.inf
    for i in range(work.shape[0]):
        best = max(best, work[i])
    ties = 0
    for i in range(work.shape[0]):
        ties += work[i] == best
    j = 0 if ties == 1 else randint(rng, ties)
    for i in range(work.shape[0]):
        if work[i] == best:
            if j == 0:
                return i
            j -= 1
    return -1


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
def n_valid(valid):
    """Number of valid arms."""
    k = 0
    for i in range(valid.shape[0]):
        if valid[i]:
            k += 1
    return k
