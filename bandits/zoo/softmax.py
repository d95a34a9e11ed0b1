"""Boltzmann (softmax) exploration (Sutton & Barto 2018, section 2.8 and exercise 2.9; Luce 1959).

    P(pull i) = exp(w_i / tau) / sum_j exp(w_j / tau)          over the valid arms

w_i: mean reward of arm i, tau > 0 the temperature (tau -> 0: greedy; tau -> inf: uniform).
Untried arms first (uniformly at random among them), as every library policy [our choice: then
every w_i is an estimate].  Computed as exp((w_i - max_j w_j) / tau), so no overflow.

A stateful policy (bandits.stateful_policy): state and arm state are not needed, only the shared
statistics; ``work`` holds the weights.
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

import bandits
from bandits.stats import COUNT, MEAN
from bandits.zoo.common import best_of, draw_from


@nb.njit(cache=True)
def select(params, state, arm_state, stats, valid, t, rng, work):
    """params = [tau]: an untried valid arm if any, else a draw from the Boltzmann distribution."""
    count, mean = stats[COUNT], stats[MEAN]
    untried = False
    top = -np.inf
    for i in range(count.shape[0]):
        if valid[i]:
            if count[i] == 0.0:
                untried = True
            elif mean[i] > top:
                top = mean[i]
    if untried:
        for i in range(count.shape[0]):
            work[i] = 1.0 if count[i] == 0.0 else 0.0
        return best_of(work, valid, rng)
    total = 0.0
    inv_tau = 1.0 / params[0]
    for i in range(count.shape[0]):
        work[i] = math.exp((mean[i] - top) * inv_tau) if valid[i] else 0.0
        total += work[i]
    return draw_from(work, valid, total, rng)


SOFTMAX = bandits.stateful_policy(
    "softmax", select=select,
    tau=bandits.Param(0.1, low=0.0, low_open=True, doc="temperature (> 0)"),
    doc="Boltzmann exploration: P(i) proportional to exp(w_i / tau), untried arms first "
        "(bandits/zoo/softmax.py).\n\nParameters: tau (default 0.1)")
