"""Per-arm statistics shared by every policy, and the one function that records a pull.

Layout: a float64 array whose last axis holds ``NSTAT`` columns per arm,

    COUNT  t_i      number of pulls of arm i
    SUM    S_i      sum of rewards of arm i
    SUMSQ  Q_i      sum of squared rewards of arm i
    MEAN   w_i      S_i / t_i (0 while t_i = 0)
    ISQRT  1/sqrt(t_i) (inf while t_i = 0)

The last two are caches of the first two, kept so that index policies do one multiply-add per arm
per selection instead of a division and a square root (UCB1's w_i + c sqrt(ln t) / sqrt(t_i)).
A testbed holds one ``(B, K, NSTAT)`` array for B bandits; a search tree holds one ``(nodes, NSTAT)``
array whose rows ``first[p] : first[p] + n[p]`` are the arms (children) of node p.  Either way a
policy sees one bandit as a ``(K, NSTAT)`` view.
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

__all__ = ["COUNT", "SUM", "SUMSQ", "MEAN", "ISQRT", "NSTAT", "new_stats", "record"]

COUNT, SUM, SUMSQ, MEAN, ISQRT = 0, 1, 2, 3, 4
NSTAT = 5


def new_stats(*shape: int) -> np.ndarray:
    """Zeroed statistics of the given leading shape, e.g. ``new_stats(B, K)`` -> (B, K, NSTAT)."""
    out = np.zeros(shape + (NSTAT,), dtype=np.float64)
    out[..., ISQRT] = np.inf
    return out


@nb.njit(cache=True, inline="always")
def record(stats, arm, reward):
    """Add one pull of ``arm`` with ``reward`` to ``stats`` (a (K, NSTAT) view), caches included."""
    n = stats[arm, COUNT] + 1.0
    s = stats[arm, SUM] + reward
    stats[arm, COUNT] = n
    stats[arm, SUM] = s
    stats[arm, SUMSQ] += reward * reward
    stats[arm, MEAN] = s / n
    stats[arm, ISQRT] = 1.0 / math.sqrt(n)
