"""UCB-V (Audibert, Munos & Szepesvari 2009, "Exploration-exploitation tradeoff using variance
estimates in multi-armed bandits", equation (1) with E = zeta ln t).

    U_i = w_i + sqrt(2 V_i zeta ln t / t_i) + 3 c b zeta ln t / t_i

w_i: mean reward of arm i, t_i its pulls, V_i = Q_i / t_i - w_i^2 its biased sample variance (Q_i
the sum of squared rewards; a value that rounds below zero counts as 0), t: pulls of the bandit
so far, b: the range of the rewards (rewards in [0, b]).  Parameters b = 1, zeta = 1, c = 1 (the
paper's theory asks zeta > 1 and c = 1 or c >= 1/3 with zeta large enough).  Untried arms first.

With s = 1 / sqrt(t_i):  U_i = w_i + sqrt(2 zeta ln t) s sqrt(V_i) + (3 c b zeta ln t) s^2.
"""
from __future__ import annotations

import math

import numba as nb

import bandits
from bandits.stats import ISQRT, MEAN, SUMSQ


@nb.njit(cache=True)
def prepare(params, state, valid, t):
    """(sqrt(2 zeta ln t), 3 c b zeta ln t); params = [b, zeta, c]."""
    e = params[1] * math.log(max(t, 1))
    return math.sqrt(2.0 * e), 3.0 * params[2] * params[0] * e


@bandits.index_policy("ucbv", prepare=prepare,
                      b=bandits.Param(1.0, low=0.0, low_open=True, doc="range of the rewards, [0, b]"),
                      zeta=bandits.Param(1.0, low=0.0, low_open=True, doc="exploration function E = zeta ln t"),
                      c=bandits.Param(1.0, low=0.0, doc="weight of the range term"))
@nb.njit(cache=True)
def ucbv(stats, i, t, params, state, prepared):
    """UCB-V (Audibert, Munos & Szepesvari 2009): w_i + sqrt(2 V_i zeta ln t / t_i) + 3 c b zeta ln t / t_i."""
    k1, k2 = prepared
    s, w = stats[ISQRT, i], stats[MEAN, i]
    v = max(0.0, stats[SUMSQ, i] * s * s - w * w)
    return w + k1 * s * math.sqrt(v) + k2 * s * s
