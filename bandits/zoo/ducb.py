"""Discounted UCB (Kocsis & Szepesvari 2006; Garivier & Moulines 2011, "On upper-confidence
bound policies for switching bandit problems", section 3) for non-stationary rewards.

    N_t(gamma, i) = sum_{s <= t} gamma^(t-s) 1{I_s = i}                  discounted pulls
    X_t(gamma, i) = sum_{s <= t} gamma^(t-s) X_s 1{I_s = i} / N_t(gamma, i)   discounted mean
    n_t(gamma)    = sum_i N_t(gamma, i)
    U_i = X_t(gamma, i) + 2 b sqrt(xi log n_t(gamma) / N_t(gamma, i))

gamma in (0, 1] the discount (1: UCB with constant 2 b sqrt(xi)), xi > 0 (the paper's
experiments: 0.6, its theory xi > 1/2), b the reward bound (rewards in [0, b]).  An arm never
pulled has the index +inf (untried arms first); ties at random.

Kept without touching every arm at every play: arm state rows [N_i / G, discounted reward sum / G]
and state [G], G = gamma^(plays so far).  A record multiplies G by gamma and adds 1 / G and x / G to
the pulled arm (O(1) per play instead of discounting all K arms); N_i = G (N_i / G).  When 1 / G
passes 1e150 every row is multiplied by G and G set to 1 (amortised O(1)).
"""
from __future__ import annotations

import math

import numba as nb

import bandits
from bandits.zoo.common import best_of

_N, _S = 0, 1  # arm_state rows (scaled by 1 / G)
_G = 0         # state column
_RESCALE = 1e150


@nb.njit(cache=True)
def init(params, state, arm_state, valid):
    """No pulls: G = 1."""
    state[_G] = 1.0
    for i in range(arm_state.shape[1]):
        arm_state[_N, i] = 0.0
        arm_state[_S, i] = 0.0


@nb.njit(cache=True)
def select(params, state, arm_state, stats, valid, t, rng, work):
    """params = [gamma, xi, b]: the arm of the largest U_i (module docstring)."""
    g = state[_G]
    n_total = 0.0
    for i in range(valid.shape[0]):
        if valid[i]:
            n_total += arm_state[_N, i]
    n_total *= g
    k = 2.0 * params[2] * math.sqrt(params[1] * math.log(max(n_total, 1.0)) / g)
    for i in range(valid.shape[0]):
        n = arm_state[_N, i]
        work[i] = math.inf if n == 0.0 else arm_state[_S, i] / n + k / math.sqrt(n)
    return best_of(work, valid, rng)


@nb.njit(cache=True)
def on_record(params, state, arm_state, stats, arm, reward):
    """Discount every arm by gamma (G *= gamma), then add the pull (1 / G, x / G)."""
    g = state[_G] * params[0]
    if 1.0 / g > _RESCALE:
        for i in range(arm_state.shape[1]):
            arm_state[_N, i] *= g
            arm_state[_S, i] *= g
        g = 1.0
    state[_G] = g
    arm_state[_N, arm] += 1.0 / g
    arm_state[_S, arm] += reward / g


DUCB = bandits.stateful_policy(
    "ducb", select=select, init=init, on_record=on_record, state_width=1, arm_state_width=2,
    gamma=bandits.Param(0.99, low=0.0, high=1.0, low_open=True, doc="discount factor in (0, 1]"),
    xi=bandits.Param(0.6, low=0.0, low_open=True, doc="exploration constant"),
    b=bandits.Param(1.0, low=0.0, low_open=True, doc="reward bound"),
    doc="Discounted UCB (Garivier & Moulines 2011) (bandits/zoo/ducb.py).\n\n"
        "Parameters: gamma (default 0.99), xi (default 0.6), b (default 1)")
