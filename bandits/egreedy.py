"""Epsilon-greedy and greedy (Sutton & Barto, 2018, section 2.3).

With probability epsilon pull a uniformly random valid arm, otherwise the arm with the highest
estimate Q_i (ties at random).  Estimates: Q_i = w_i (sample mean) once arm i is tried.  Untried
arms: with ``q0`` unset they are pulled first (like every index policy here); with ``q0`` set they
carry the initial estimate Q_1 = q0, as in Sutton & Barto's testbed (q0 = 0; optimistic q0 = 5).
"""
from __future__ import annotations

import math

import numba as nb

from bandits._choice import argmax_random, gated
from bandits.policy import Policy
from bandits.registry import KernelSpec, register_policy
from bandits.rng import randint, uniform
from bandits.stats import COUNT, MEAN


@nb.njit(cache=True, inline="always")
def select(params, state, arm_state, stats, valid, t, rng, work):
    """params = [epsilon, q0 (NaN: untried arms first)]."""
    eps, q0 = params[0], params[1]
    if eps > 0.0 and uniform(rng) < eps:
        k = 0
        for i in range(valid.shape[0]):
            k += 1 if valid[i] else 0
        j = randint(rng, k)
        for i in range(valid.shape[0]):
            if valid[i]:
                if j == 0:
                    return i
                j -= 1
    untried_first = math.isnan(q0)
    count, mean = stats[COUNT], stats[MEAN]
    for i in range(count.shape[0]):
        if untried_first:
            work[i] = gated(mean[i], count[i], valid[i])
        else:
            work[i] = gated(mean[i], 1.0, valid[i]) if count[i] > 0.0 else gated(q0, 1.0, valid[i])
    return argmax_random(work, rng)


@register_policy
class EpsilonGreedy(Policy):
    """Epsilon-greedy; ``epsilon=0`` is greedy.

    Parameters
    ----------
    epsilon : float, default 0.1
        Exploration probability in [0, 1].
    q0 : float or None, default None
        Initial estimate of untried arms; None pulls untried arms first.
    """

    name = "egreedy"
    kernel_spec = KernelSpec(select=select)

    def __init__(self, epsilon: float = 0.1, q0: float | None = None):
        epsilon = self._check_float("epsilon", epsilon, low=0.0, high=1.0)
        if q0 is not None:
            q0 = self._check_float("q0", q0)
        super().__init__(epsilon=epsilon, q0=q0)

    def _pack(self):
        return [self.epsilon, math.nan if self.q0 is None else self.q0]


register_policy(EpsilonGreedy, name="greedy", fixed={"epsilon": 0.0})
