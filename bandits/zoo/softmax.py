"""Boltzmann (softmax) exploration (Sutton & Barto 2018, section 2.8 and exercise 2.9; Luce 1959).

    P(pull i) = exp(w_i / tau) / sum_j exp(w_j / tau)          over the valid arms

w_i: mean reward of arm i, tau > 0 the temperature (tau -> 0: greedy; tau -> inf: uniform).
Untried arms first (uniformly at random among them), as every library policy [our choice: then
every w_i is an estimate].  Computed as exp(w_i / tau - ref), ref within 20 of max_j w_j / tau,
so no overflow; the exponentials are cached per arm (bandits.zoo.common.exp_weights: one exp per
play on a testbed, the pulled arm's, instead of one per arm).

A stateful policy (bandits.stateful_policy): the weight cache is its arm state (2 rows) and state
(the shift and the scale); ``work`` holds the weights.
"""
from __future__ import annotations

import numba as nb

import bandits
from bandits.stats import COUNT, MEAN
from bandits.zoo.common import best_of, draw_from, exp_weights, reset_exp_weights


@nb.njit(cache=True)
def select(params, state, arm_state, stats, valid, t, rng, work):
    """params = [tau]: an untried valid arm if any, else a draw from the Boltzmann distribution."""
    count, mean = stats[COUNT], stats[MEAN]
    untried = False
    for i in range(count.shape[0]):  # (branch-free)
        untried |= valid[i] and count[i] == 0.0
    if untried:
        for i in range(count.shape[0]):
            work[i] = 1.0 if count[i] == 0.0 else 0.0
        return best_of(work, valid, rng)
    total = exp_weights(mean, 1.0 / params[0], valid, arm_state, state, 0, work)
    return draw_from(work, valid, total, rng)


@nb.njit(cache=True)
def init(params, state, arm_state, valid):
    """No weight cached yet."""
    reset_exp_weights(arm_state, state, 0)


SOFTMAX = bandits.stateful_policy(
    "softmax", select=select, init=init, state_width=2, arm_state_width=2,
    tau=bandits.Param(0.1, low=0.0, low_open=True, doc="temperature (> 0)"),
    doc="Boltzmann exploration: P(i) proportional to exp(w_i / tau), untried arms first "
        "(bandits/zoo/softmax.py).\n\nParameters: tau (default 0.1)")
