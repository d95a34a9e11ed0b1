"""Per-arm statistics shared by every policy, and the one function that records a pull.

Layout: field-major (a struct of arrays).  One bandit's statistics are a float64 ``(NSTAT, K)``
array with one row per statistic and one column per arm,

    stats[COUNT, i]  t_i          number of pulls of arm i
    stats[SUM, i]    S_i          sum of rewards of arm i
    stats[SUMSQ, i]  Q_i          sum of squared rewards of arm i
    stats[MEAN, i]   w_i          S_i / t_i (0 while t_i = 0)
    stats[ISQRT, i]  1/sqrt(t_i)  (inf while t_i = 0)

MEAN and ISQRT are caches of the first two, kept so that index policies do one multiply-add per arm
per selection instead of a division and a square root (UCB1's w_i + c sqrt(ln t) / sqrt(t_i)).
Field-major rows make each statistic contiguous over the arms, so a selection's loop over the arms
compiles to SIMD instructions (a 60-armed UCB1 selection is about twice as fast as with one row
per arm).  A testbed holds one ``(B, NSTAT, K)`` array for B bandits; a search tree holds one
``(NSTAT, nodes)`` array whose columns ``first[p] : first[p] + n[p]`` are the arms (children) of
node p.  Either way a policy sees one bandit as a ``(NSTAT, K)`` view.

A search with enhancement options hands its node policies a view of ``NVIEW`` rows instead: the
five above (RAVE-blended where RAVE is on) and two rows of what the tree knows about the children
(docs/enhancements.md):

    stats[PRIOR, i]  P_i          prior probability of child i (a game's prior kernel or an
                                  evaluator; uniform 1/K when none), read by PUCT
    stats[FIRST, i]  v            the index an untried arm gets: the first-play urgency (+inf =
                                  untried arms first, the rule without the row)

A policy that reads a row beyond NSTAT must check ``stats.shape[0]`` (the testbeds pass NSTAT rows).
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

__all__ = ["COUNT", "SUM", "SUMSQ", "MEAN", "ISQRT", "NSTAT", "PRIOR", "FIRST", "NVIEW", "new_stats", "record", "constant_step"]

COUNT, SUM, SUMSQ, MEAN, ISQRT = 0, 1, 2, 3, 4
NSTAT = 5
PRIOR, FIRST = 5, 6
NVIEW = 7


def new_stats(*shape: int) -> np.ndarray:
    """Zeroed statistics for ``shape = (..., K)`` arms: ``new_stats(K)`` -> (NSTAT, K),
    ``new_stats(B, K)`` -> (B, NSTAT, K); ISQRT is inf (no pulls)."""
    if not shape:
        raise ValueError("new_stats needs the number of arms, e.g. new_stats(K) or new_stats(B, K)")
    out = np.zeros(shape[:-1] + (NSTAT, shape[-1]), dtype=np.float64)
    out[..., ISQRT, :] = np.inf
    return out


@nb.njit(cache=True, inline="always")
def refresh(stats, arm):
    """MEAN and ISQRT of column ``arm`` from its COUNT and SUM (after COUNT was changed directly:
    a virtual loss adds or removes visits with reward 0); no visit: MEAN 0, ISQRT inf."""
    n = stats[COUNT, arm]
    if n > 0.0:
        stats[MEAN, arm] = stats[SUM, arm] / n
        stats[ISQRT, arm] = 1.0 / math.sqrt(n)
    else:
        stats[MEAN, arm] = 0.0
        stats[ISQRT, arm] = math.inf


@nb.njit(cache=True, inline="always")
def record(stats, arm, reward):
    """Add one pull of ``arm`` with ``reward`` to ``stats`` (an (NSTAT, K) view), caches included."""
    n = stats[COUNT, arm] + 1.0
    s = stats[SUM, arm] + reward
    stats[COUNT, arm] = n
    stats[SUM, arm] = s
    stats[SUMSQ, arm] += reward * reward
    stats[MEAN, arm] = s / n
    stats[ISQRT, arm] = 1.0 / math.sqrt(n)


@nb.njit(cache=True, inline="always")
def constant_step(q, reward, alpha):
    """Q_{n+1} = Q_n + alpha (R_n - Q_n), the constant step-size estimate (Sutton & Barto 2018,
    section 2.5, eq. 2.5: an exponential recency-weighted average, for non-stationary rewards);
    Q_n NaN (an arm with no estimate yet, no initial Q_1 given): the reward itself."""
    return reward if q != q else q + alpha * (reward - q)
