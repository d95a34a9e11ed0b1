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
and state [G, n / G], G = gamma^(plays so far).  A record multiplies G by gamma and adds 1 / G and
x / G to the pulled arm and 1 / G to n / G (O(1) per play instead of discounting all K arms); N_i =
G (N_i / G).  When 1 / G passes 1e150 every row is multiplied by G and G set to 1 (amortised
O(1)).  An index policy (bandits.index_policy): ``prepare`` works out k = 2 b sqrt(xi log n / G)
once per selection, and the pulled arm's record keeps its mean X_i and r_i = (N_i / G)^(-1/2) (rows
2 and 3, refreshed for every arm at a rescaling), so the index is one multiply-add per arm, as
UCB1's: U_i = X_i + k r_i.  n is the discounted count of all plays, sum_s gamma^(t-s) (Garivier &
Moulines' n_t(gamma)).
"""
from __future__ import annotations

import math

import numba as nb

import bandits

_N, _S, _X, _R = 0, 1, 2, 3  # arm_state rows: N_i / G, S_i / G, the mean X_i, (N_i / G)^(-1/2)
_G, _TOTAL = 0, 1  # state columns: G and n / G
_RESCALE = 1e150


@nb.njit(cache=True)
def init(params, state, arm_state, valid):
    """No pulls: G = 1."""
    state[_G] = 1.0
    state[_TOTAL] = 0.0
    for i in range(arm_state.shape[1]):
        arm_state[_N, i] = 0.0
        arm_state[_S, i] = 0.0
        arm_state[_X, i] = 0.0
        arm_state[_R, i] = math.inf


@nb.njit(cache=True)
def prepare(params, state, valid, t):
    """k = 2 b sqrt(xi log max(n, 1)) / sqrt(G), so that k / sqrt(N_i / G) = 2 b sqrt(xi log n / N_i);
    params = [gamma, xi, b]."""
    g = state[_G]
    return 2.0 * params[2] * math.sqrt(params[1] * math.log(max(g * state[_TOTAL], 1.0)) / g)


@nb.njit(cache=True)
def on_record(params, state, arm_state, stats, arm, reward):
    """Discount every arm by gamma (G *= gamma), then add the pull (1 / G, x / G)."""
    g = state[_G] * params[0]
    if 1.0 / g > _RESCALE:
        for i in range(arm_state.shape[1]):
            arm_state[_N, i] *= g
            arm_state[_S, i] *= g
            arm_state[_R, i] = 1.0 / math.sqrt(arm_state[_N, i])
        state[_TOTAL] *= g
        g = 1.0
    state[_G] = g
    n = arm_state[_N, arm] + 1.0 / g
    arm_state[_N, arm] = n
    arm_state[_S, arm] += reward / g
    arm_state[_X, arm] = arm_state[_S, arm] / n
    arm_state[_R, arm] = 1.0 / math.sqrt(n)
    state[_TOTAL] += 1.0 / g


@bandits.index_policy(
    "ducb", prepare=prepare, init=init, on_record=on_record, state_width=2, arm_state_width=4,
    gamma=bandits.Param(0.99, low=0.0, high=1.0, low_open=True, doc="discount factor in (0, 1]"),
    xi=bandits.Param(0.6, low=0.0, low_open=True, doc="exploration constant"),
    b=bandits.Param(1.0, low=0.0, low_open=True, doc="reward bound"),
    doc="Discounted UCB (Garivier & Moulines 2011) (bandits/zoo/ducb.py).\n\n"
        "Parameters: gamma (default 0.99), xi (default 0.6), b (default 1)")
@nb.njit(cache=True)
def index(stats, i, t, params, state, k, arm_state):
    """U_i = X_t(gamma, i) + 2 b sqrt(xi log n_t(gamma) / N_t(gamma, i)) = X_i + k r_i (+inf while
    N_i = 0 and n > 1; an untried arm comes first by the library's rule anyway)."""
    return arm_state[_X, i] + k * arm_state[_R, i]


DUCB = bandits.POLICIES["ducb"][0]
