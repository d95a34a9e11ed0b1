"""UCB1 written as a user would, outside the package (docs/plugins.md), for the speed comparison
with the built-in ``ucb1`` in benchmarks/testbed_speed.py and benchmarks/startup.py.

* ``user_ucb1``: w_i + c sqrt(ln t) / sqrt(t_i), the per-selection factor in ``prepare``;
* ``user_ucb1_plain``: w_i + c sqrt(ln t / t_i), everything in the index (a division, a log and a
  square root per arm): what a first attempt looks like.
"""
import math

import numba

import bandits
from bandits.stats import COUNT, ISQRT, MEAN


@numba.njit
def _factor(params, state, valid, t):
    return params[0] * math.sqrt(math.log(max(t, 1)))


@bandits.index_policy("user_ucb1", prepare=_factor, c=math.sqrt(2.0))
@numba.njit
def user_ucb1(stats, i, t, params, state, k):
    return stats[MEAN, i] + k * stats[ISQRT, i]


@bandits.index_policy("user_ucb1_plain", c=math.sqrt(2.0))
@numba.njit
def user_ucb1_plain(stats, i, t, params, state):
    return stats[MEAN, i] + params[0] * math.sqrt(math.log(t) / stats[COUNT, i])
