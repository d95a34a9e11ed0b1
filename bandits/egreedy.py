"""Epsilon-greedy and greedy (Sutton & Barto, 2018, sections 2.3 and 2.5).

With probability epsilon pull a uniformly random valid arm, otherwise the arm with the highest
estimate Q_i (ties at random).  Estimates: with ``alpha`` unset (or 0), Q_i = w_i, the sample
mean, once arm i is tried (step size 1/n); with ``alpha`` in (0, 1], the constant step-size
estimate of section 2.5, for non-stationary rewards (exercise 2.5: the non-stationary testbed)::

    Q_{n+1} = Q_n + alpha (R_n - Q_n)        (bandits.stats.constant_step)

kept per arm in the policy's arm state (one row, K) by ``on_record``.  Untried arms: with ``q0``
unset they are pulled first (like every index policy here), and the first reward is an arm's
first estimate; with ``q0`` set they carry the initial estimate Q_1 = q0, as in Sutton & Barto's
testbed (q0 = 0; optimistic q0 = 5), which the constant step size then moves away from.
"""
from __future__ import annotations

import math

import numba as nb

from bandits._choice import argmax_random, gated
from bandits.policy import Policy
from bandits.registry import KernelSpec, register_policy
from bandits.rng import randint, uniform
from bandits.stats import COUNT, MEAN, constant_step


_Q = 0  # arm_state row: the constant step-size estimates (alpha > 0)


@nb.njit(cache=True, inline="always")
def select(params, state, arm_state, stats, valid, t, rng, work):
    """params = [epsilon, q0 (NaN: untried arms first), alpha (0: sample means)]."""
    eps, q0, alpha = params[0], params[1], params[2]
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
    count = stats[COUNT]
    estimate = arm_state[_Q] if alpha > 0.0 else stats[MEAN]
    for i in range(count.shape[0]):
        if untried_first:
            work[i] = gated(estimate[i], count[i], valid[i])
        else:
            work[i] = gated(estimate[i], 1.0, valid[i]) if count[i] > 0.0 else gated(q0, 1.0, valid[i])
    return argmax_random(work, rng)


@nb.njit(cache=True)
def init(params, state, arm_state, valid):
    """Q_1 = q0 for every arm (NaN when unset: the first reward is the first estimate)."""
    for i in range(arm_state.shape[1]):
        arm_state[_Q, i] = params[1]


@nb.njit(cache=True)
def on_record(params, state, arm_state, stats, arm, reward):
    """With alpha > 0: Q_arm += alpha (R - Q_arm) (:func:`bandits.stats.constant_step`)."""
    if params[2] > 0.0:
        arm_state[_Q, arm] = constant_step(arm_state[_Q, arm], reward, params[2])


@register_policy
class EpsilonGreedy(Policy):
    """Epsilon-greedy; ``epsilon=0`` is greedy.

    Parameters
    ----------
    epsilon : float, default 0.1
        Exploration probability in [0, 1].
    q0 : float or None, default None
        Initial estimate of untried arms; None pulls untried arms first.
    alpha : float in [0, 1] or None, default None
        Constant step size of the estimates, Q += alpha (R - Q) (Sutton & Barto 2.5); None or 0:
        sample means (0 is stored as None: the same policy, the same spec).
    """

    name = "egreedy"
    kernel_spec = KernelSpec(select=select, init=init, on_record=on_record)
    arm_state_width = 1

    def __init__(self, epsilon: float = 0.1, q0: float | None = None, alpha: float | None = None):
        epsilon = self._check_float("epsilon", epsilon, low=0.0, high=1.0)
        if q0 is not None:
            q0 = self._check_float("q0", q0)
        if alpha is not None:
            alpha = self._check_float("alpha", alpha, low=0.0, high=1.0) or None
        super().__init__(epsilon=epsilon, q0=q0, alpha=alpha)

    def _pack(self):
        return [self.epsilon, math.nan if self.q0 is None else self.q0, self.alpha or 0.0]


register_policy(EpsilonGreedy, name="greedy", fixed={"epsilon": 0.0})
