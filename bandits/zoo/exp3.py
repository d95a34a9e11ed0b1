"""Exp3 (Auer, Cesa-Bianchi, Freund & Schapire 2002, "The nonstochastic multiarmed bandit
problem", Figure 1 and Corollary 3.2), for rewards in [0, 1]; the adversarial bandit of
simultaneous-move MCTS (Teytaud & Flory 2011).

    p_i = (1 - gamma) w_i / sum_j w_j + gamma / K          over the K valid arms
    after reward x for arm I:  w_I <- w_I exp(gamma x / (p_I K))     (x / p_I: importance weighting)

    gamma = min(1, sqrt(K ln K / ((e - 1) T)))    for a horizon T (Corollary 3.2 with g = T)

``gamma`` given fixes it; otherwise it comes from ``horizon`` (bound to a testbed's horizon or a
search's iteration budget when unset).  The weights are kept as logarithms (arm state row 0), and
exponentiated shifted (bandits.zoo.common.exp_weights: the exponentials cached, one per play
instead of one per arm), so they never overflow; p of the last selection is kept (row 1) for the
update, together with gamma and K (state).
"""
from __future__ import annotations

import math

import numba as nb

import bandits
from bandits.zoo.common import BindsHorizon, check_horizon, count_valid, draw_from, exp_weights, reset_exp_weights

_LOGW, _P, _CACHE = 0, 1, 2   # arm_state rows (2 and 3: the weight cache, common.exp_weights)
_GAMMA, _K, _REF = 0, 1, 2     # state columns (2 and 3: the cache's shift and scale)


@nb.njit(cache=True)
def exploration(k, horizon):
    """gamma = min(1, sqrt(K ln K / ((e - 1) T)))."""
    return min(1.0, math.sqrt(k * math.log(k) / ((math.e - 1.0) * horizon)))


@nb.njit(cache=True)
def init(params, state, arm_state, valid):
    """Weights 1 (log 0); params = [horizon T, gamma (< 0: from T)]."""
    for i in range(arm_state.shape[1]):
        arm_state[_LOGW, i] = 0.0
        arm_state[_P, i] = 0.0
    reset_exp_weights(arm_state[_CACHE:_CACHE + 2], state, _REF)


@nb.njit(cache=True)
def select(params, state, arm_state, stats, valid, t, rng, work):
    """A draw from p (module docstring); p, gamma and K kept for on_record."""
    k = count_valid(valid)
    gamma = params[1] if params[1] >= 0.0 else exploration(k, params[0])
    total = exp_weights(arm_state[_LOGW], 1.0, valid, arm_state[_CACHE:_CACHE + 2], state, _REF, work)
    for i in range(valid.shape[0]):
        arm_state[_P, i] = (1.0 - gamma) * work[i] / total + gamma / k if valid[i] else 0.0
    state[_GAMMA] = gamma
    state[_K] = k
    return draw_from(arm_state[_P], valid, 1.0, rng)


@nb.njit(cache=True)
def on_record(params, state, arm_state, stats, arm, reward):
    """log w_I += gamma x / (p_I K)."""
    p = arm_state[_P, arm]
    if p > 0.0:
        arm_state[_LOGW, arm] += state[_GAMMA] * reward / (p * state[_K])


@bandits.register_policy
class Exp3(BindsHorizon, bandits.Policy):
    """Exp3 (module docstring).

    Parameters
    ----------
    horizon : int or None, the T of gamma's formula (bound to the run's horizon or search budget)
    gamma : float in [0, 1] or None (default: from the horizon)
    """

    name = "exp3"
    kernel_spec = bandits.KernelSpec(select=select, init=init, on_record=on_record)
    state_width = 4
    arm_state_width = 4

    def __init__(self, horizon: int | None = None, gamma: float | None = None):
        if gamma is not None:
            gamma = self._check_float("gamma", gamma, low=0.0, high=1.0)
        super().__init__(horizon=check_horizon(horizon), gamma=gamma)

    def _pack(self):
        return [float(self.horizon or 0), -1.0 if self.gamma is None else self.gamma]

    @property
    def needs_horizon(self) -> bool:
        return self.horizon is None and self.gamma is None

