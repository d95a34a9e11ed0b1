"""Boltzmann (softmax) exploration (Sutton & Barto 2018, section 2.8 and exercise 2.9; Luce 1959).

    P(pull i) = exp(w_i / tau) / sum_j exp(w_j / tau)          over the valid arms

w_i: the estimate of arm i, tau > 0 the temperature (tau -> 0: greedy; tau -> inf: uniform).
Estimates: with ``alpha`` 0 (the default) the sample mean; with ``alpha`` in (0, 1] the constant
step-size estimate Q_{n+1} = Q_n + alpha (R_n - Q_n) of Sutton & Barto section 2.5 (the first
reward is an arm's first estimate; bandits.stats.constant_step), for non-stationary rewards.
Untried arms first (uniformly at random among them), as every library policy [our choice: then
every w_i is an estimate].  Computed as exp(w_i / tau - ref), ref within 20 of max_j w_j / tau,
so no overflow; the exponentials are cached per arm (bandits.zoo.common.exp_weights: one exp per
play on a testbed, the pulled arm's, instead of one per arm).

A stateful policy (bandits.stateful_policy): the weight cache is its arm state rows 0-1 and state
(the shift and the scale), the constant step-size estimates its arm state row 2; ``work`` holds
the weights.
"""
from __future__ import annotations

import math

import numba as nb

import bandits
from bandits.stats import COUNT, MEAN, constant_step
from bandits.zoo.common import best_of, draw_from, exp_weights, reset_exp_weights


_Q = 2  # arm_state row: the constant step-size estimates (alpha > 0)


@nb.njit(cache=True)
def select(params, state, arm_state, stats, valid, t, rng, work):
    """params = [tau, alpha]: an untried valid arm if any, else a draw from the Boltzmann distribution."""
    count = stats[COUNT]
    untried = False
    for i in range(count.shape[0]):  # (branch-free)
        untried |= valid[i] and count[i] == 0.0
    if untried:
        for i in range(count.shape[0]):
            work[i] = 1.0 if count[i] == 0.0 else 0.0
        return best_of(work, valid, rng)
    estimate = arm_state[_Q] if params[1] > 0.0 else stats[MEAN]
    total = exp_weights(estimate, 1.0 / params[0], valid, arm_state[:2], state, 0, work)
    return draw_from(work, valid, total, rng)


@nb.njit(cache=True)
def init(params, state, arm_state, valid):
    """No weight cached yet; no estimate yet (NaN)."""
    reset_exp_weights(arm_state[:2], state, 0)
    for i in range(arm_state.shape[1]):
        arm_state[_Q, i] = math.nan


@nb.njit(cache=True)
def on_record(params, state, arm_state, stats, arm, reward):
    """With alpha > 0: Q_arm += alpha (R - Q_arm) (:func:`bandits.stats.constant_step`)."""
    if params[1] > 0.0:
        arm_state[_Q, arm] = constant_step(arm_state[_Q, arm], reward, params[1])


SOFTMAX = bandits.stateful_policy(
    "softmax", select=select, init=init, on_record=on_record, state_width=2, arm_state_width=3,
    tau=bandits.Param(0.1, low=0.0, low_open=True, doc="temperature (> 0)"),
    alpha=bandits.Param(0.0, low=0.0, high=1.0, doc="constant step size of the estimates, Q += alpha (R - Q) "
                        "(Sutton & Barto 2.5); 0: sample means"),
    doc="Boltzmann exploration: P(i) proportional to exp(w_i / tau), untried arms first "
        "(bandits/zoo/softmax.py).\n\nParameters: tau (default 0.1), alpha (default 0: sample means)")
