"""UCB1-Tuned (Auer, Cesa-Bianchi & Fischer 2002, section 4), MoGo's tree policy (Gelly et al. 2006).

    U_i = w_i + sqrt((ln t / t_i) * min(1/4, V_i)),     V_i = Q_i / t_i - w_i^2 + sqrt(2 ln t / t_i)

w_i: mean reward of arm i, t_i its pulls, Q_i its sum of squared rewards (so Q_i / t_i - w_i^2 is
the biased sample variance), t: pulls of the bandit so far (a tree node: its visits).  Untried arms
first, ties at random (bandits.index).  1/4 is the largest variance of a reward in [0, 1].

Written as an index policy with ``s = 1 / sqrt(t_i)`` (the ISQRT statistic), so one square root
per arm:  V_i = Q_i s^2 - w_i^2 + sqrt(2 ln t) s,  U_i = w_i + sqrt(ln t) s sqrt(min(1/4, V_i)).
A variance that rounds below zero (constant rewards) counts as 0.
"""
from __future__ import annotations

import math

import numba as nb

import bandits
from bandits.stats import ISQRT, MEAN, SUMSQ


@nb.njit(cache=True)
def prepare(params, state, valid, t):
    """(sqrt(ln t), sqrt(2 ln t)), once per selection."""
    lt = math.log(max(t, 1))
    return math.sqrt(lt), math.sqrt(2.0 * lt)


@bandits.index_policy("ucb1tuned", prepare=prepare)
@nb.njit(cache=True)
def ucb1tuned(stats, i, t, params, state, prepared):
    """UCB1-Tuned (Auer et al. 2002): w_i + sqrt((ln t / t_i) min(1/4, V_i)),
    V_i = biased sample variance + sqrt(2 ln t / t_i)."""
    sl, s2l = prepared
    s, w = stats[ISQRT, i], stats[MEAN, i]
    v = stats[SUMSQ, i] * s * s - w * w + s2l * s
    return w + sl * s * math.sqrt(max(0.0, min(0.25, v)))
