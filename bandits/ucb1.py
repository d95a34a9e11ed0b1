"""UCB1 (Auer, Cesa-Bianchi & Fischer, 2002), the node policy of UCT (Kocsis & Szepesvari, 2006).

    U_i = w_i + c * sqrt(ln t / t_i)        (untried arms first, ties at random)

w_i: mean reward of arm i, t_i: its pulls, t: pulls of the bandit (a tree node's visit count).
c = sqrt(2) is the constant of the finite-time analysis for rewards in [0, 1].
"""
from __future__ import annotations

import math

import numba as nb

from bandits._choice import mean_plus_bonus
from bandits.policy import Policy
from bandits.registry import KernelSpec, register_policy


@nb.njit(cache=True, inline="always")
def prepare(params, state, valid, t):
    """k = c sqrt(ln t), once per selection; params = [c]."""
    return params[0] * math.sqrt(math.log(max(t, 1)))


@nb.njit(cache=True, inline="always")
def index(stats, i, t, params, state, k):
    """U_i = w_i + k / sqrt(t_i) with k from :func:`prepare` (an index policy, bandits.index)."""
    return mean_plus_bonus(stats, i, k, 1.0)


@register_policy
class UCB1(Policy):
    """UCB1: ``U_i = w_i + c * sqrt(ln t / t_i)``, untried arms first.

    Parameters
    ----------
    c : float, default sqrt(2)
        Exploration constant (>= 0).  UCT's C.  Reference: Auer, Cesa-Bianchi & Fischer (2002).
    """

    name = "ucb1"
    kernel_spec = KernelSpec(index=index, prepare=prepare)

    def __init__(self, c: float = math.sqrt(2.0)):
        super().__init__(c=self._check_float("c", c, low=0.0))

    def _pack(self):
        return [self.c]
