"""Exp3-IX (Neu 2015, "Explore no more: improved high-probability regret bounds for
non-stochastic bandits", Algorithm 1 and Theorem 1), for rewards in [0, 1] (losses 1 - x).

    p_i = exp(-eta Lhat_i) / sum_j exp(-eta Lhat_j)           over the K valid arms
    after reward x for arm I:  Lhat_I += (1 - x) / (p_I + gamma)   (implicit exploration: gamma)

    eta = sqrt(2 ln K / (K T)),  gamma = eta / 2                  (Theorem 1, horizon T)

``eta`` given fixes it (gamma = eta / 2); otherwise it comes from ``horizon`` (bound to a
testbed's horizon or a search's budget when unset).  K = 1: eta = 0, the one arm.  Arm state:
rows [Lhat_i, p_i of the last selection, the weight cache (2 rows, bandits.zoo.common.exp_weights:
one exp per play instead of one per arm)]; state [eta, the cache's shift and scale].
"""
from __future__ import annotations

import math

import numba as nb

import bandits
from bandits.zoo.common import BindsHorizon, check_horizon, count_valid, draw_from, exp_weights, reset_exp_weights

_LOSS, _P, _CACHE = 0, 1, 2   # arm_state rows (2 and 3: the weight cache, common.exp_weights)
_ETA, _REF = 0, 1              # state columns (1 and 2: the cache's shift and scale)


@nb.njit(cache=True)
def learning_rate(k, horizon):
    """eta = sqrt(2 ln K / (K T))."""
    return math.sqrt(2.0 * math.log(k) / (k * horizon))


@nb.njit(cache=True)
def init(params, state, arm_state, valid):
    """Lhat = 0; params = [horizon T, eta (< 0: from T)]."""
    for i in range(arm_state.shape[1]):
        arm_state[_LOSS, i] = 0.0
        arm_state[_P, i] = 0.0
    reset_exp_weights(arm_state[_CACHE:_CACHE + 2], state, _REF)


@nb.njit(cache=True)
def select(params, state, arm_state, stats, valid, t, rng, work):
    """A draw from p (module docstring); p and eta kept for on_record."""
    k = count_valid(valid)
    eta = params[1] if params[1] >= 0.0 else learning_rate(k, params[0])
    total = exp_weights(arm_state[_LOSS], -eta, valid, arm_state[_CACHE:_CACHE + 2], state, _REF, work)
    for i in range(valid.shape[0]):
        arm_state[_P, i] = work[i] / total
    state[_ETA] = eta
    return draw_from(arm_state[_P], valid, 1.0, rng)


@nb.njit(cache=True)
def on_record(params, state, arm_state, stats, arm, reward):
    """Lhat_I += (1 - x) / (p_I + eta / 2)."""
    denom = arm_state[_P, arm] + 0.5 * state[_ETA]
    if denom > 0.0:
        arm_state[_LOSS, arm] += (1.0 - reward) / denom


@bandits.register_policy
class Exp3IX(BindsHorizon, bandits.Policy):
    """Exp3-IX (module docstring).

    Parameters
    ----------
    horizon : int or None, the T of eta's formula (bound to the run's horizon or search budget)
    eta : float > 0 or None (default: from the horizon); gamma = eta / 2
    """

    name = "exp3ix"
    kernel_spec = bandits.KernelSpec(select=select, init=init, on_record=on_record)
    state_width = 3
    arm_state_width = 4

    def __init__(self, horizon: int | None = None, eta: float | None = None):
        if eta is not None:
            eta = self._check_float("eta", eta, low=0.0, low_open=True)
        super().__init__(horizon=check_horizon(horizon), eta=eta)

    def _pack(self):
        return [float(self.horizon or 0), -1.0 if self.eta is None else self.eta]

    @property
    def needs_horizon(self) -> bool:
        return self.horizon is None and self.eta is None

