"""The gradient bandit algorithm (Sutton & Barto 2018, section 2.8, equations 2.11 and 2.12).

Preferences H_i (all 0 at first), pulls drawn from pi = softmax(H) over the valid arms; after
reward R_t for arm A_t:

    H_{A_t} += alpha (R_t - Rbar_t) (1 - pi(A_t))
    H_i     -= alpha (R_t - Rbar_t) pi(i)              for every other arm i

Rbar_t (``baseline=true``) is the average of the rewards *before* R_t, with Rbar_1 = R_1, so the
first update does nothing [the book's corrected text; its first printing averaged R_t in];
``baseline=false`` takes Rbar = 0.  No "untried arms first": the book's algorithm starts uniform.

State: per bandit [Rbar, rewards seen]; per arm rows [H_i, pi_i of the last selection] (the update
uses the distribution the arm was drawn from, so a masked arm of a tree node keeps pi = 0).
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

import bandits
from bandits.zoo.common import draw_from

_H, _PI = 0, 1          # arm_state rows
_RBAR, _SEEN = 0, 1     # state columns


@nb.njit(cache=True)
def _softmax(arm_state, valid):
    """pi = softmax(H) over the valid arms into arm_state[_PI] (0 for the others); returns 1."""
    top = -np.inf
    for i in range(valid.shape[0]):
        if valid[i] and arm_state[_H, i] > top:
            top = arm_state[_H, i]
    total = 0.0
    for i in range(valid.shape[0]):
        arm_state[_PI, i] = math.exp(arm_state[_H, i] - top) if valid[i] else 0.0
        total += arm_state[_PI, i]
    for i in range(valid.shape[0]):
        arm_state[_PI, i] /= total
    return 1.0


@nb.njit(cache=True)
def init(params, state, arm_state, valid):
    """H = 0, pi uniform over the valid arms, no rewards seen."""
    state[_RBAR] = 0.0
    state[_SEEN] = 0.0
    for i in range(arm_state.shape[1]):
        arm_state[_H, i] = 0.0
    _softmax(arm_state, valid)


@nb.njit(cache=True)
def select(params, state, arm_state, stats, valid, t, rng, work):
    """A draw from pi = softmax(H) (kept for the update)."""
    total = _softmax(arm_state, valid)
    return draw_from(arm_state[_PI], valid, total, rng)


@nb.njit(cache=True)
def on_record(params, state, arm_state, stats, arm, reward):
    """Equation 2.12 with the pi of the last selection; params = [alpha, baseline flag]."""
    seen = state[_SEEN]
    rbar = (reward if seen == 0.0 else state[_RBAR]) if params[1] != 0.0 else 0.0
    g = params[0] * (reward - rbar)
    for i in range(arm_state.shape[1]):
        arm_state[_H, i] -= g * arm_state[_PI, i]
    arm_state[_H, arm] += g
    state[_SEEN] = seen + 1.0
    state[_RBAR] += (reward - state[_RBAR]) / (seen + 1.0)


GRADIENT = bandits.stateful_policy(
    "gradient", select=select, init=init, on_record=on_record, state_width=2, arm_state_width=2,
    alpha=bandits.Param(0.1, low=0.0, low_open=True, doc="step size (> 0)"),
    baseline=bandits.Param(True, doc="subtract the average reward so far"),
    doc="The gradient bandit of Sutton & Barto (2018), section 2.8 (bandits/zoo/gradient.py).\n\n"
        "Parameters: alpha (default 0.1), baseline (default true)")
