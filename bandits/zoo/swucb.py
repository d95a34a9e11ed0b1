"""Sliding-window UCB (Garivier & Moulines 2011, "On upper-confidence bound policies for
switching bandit problems", section 4) for non-stationary rewards.

Only the last ``window`` = tau plays count:

    N_t(tau, i) = sum_{s = t-tau+1}^{t} 1{I_s = i},   X_t(tau, i) = their mean reward
    U_i = X_t(tau, i) + b sqrt(xi log(min(t, tau)) / N_t(tau, i))

xi > 0 (the paper's experiments: 0.6), b the reward bound.  An arm not pulled within the window
(N = 0) has the index +inf; ties at random.

The window is a ring buffer of the last tau (arm, reward) pairs in the per-bandit state, so the
state width is 2 tau + 1 floats (a tree holds that per node: keep the window small there); arm
state rows [N_t(tau, i), window reward sum].
"""
from __future__ import annotations

import math

import numba as nb

import bandits
from bandits.zoo.common import best_of

_N, _S = 0, 1   # arm_state rows
_POS = 0        # state: [next slot, arms of the window..., rewards of the window...]


@nb.njit(cache=True)
def init(params, state, arm_state, valid):
    """An empty window (slots hold arm -1); params = [window tau, xi, b]."""
    tau = int(params[0])
    state[_POS] = 0.0
    for j in range(tau):
        state[1 + j] = -1.0
        state[1 + tau + j] = 0.0
    for i in range(arm_state.shape[1]):
        arm_state[_N, i] = 0.0
        arm_state[_S, i] = 0.0


@nb.njit(cache=True)
def select(params, state, arm_state, stats, valid, t, rng, work):
    """The arm of the largest U_i (module docstring)."""
    k = params[2] * math.sqrt(params[1] * math.log(max(min(float(t), params[0]), 1.0)))
    for i in range(valid.shape[0]):
        n = arm_state[_N, i]
        work[i] = math.inf if n == 0.0 else arm_state[_S, i] / n + k / math.sqrt(n)
    return best_of(work, valid, rng)


@nb.njit(cache=True)
def on_record(params, state, arm_state, stats, arm, reward):
    """The play enters the window; the one tau plays old leaves it."""
    tau = int(params[0])
    pos = int(state[_POS])
    old = int(state[1 + pos])
    if old >= 0:
        arm_state[_N, old] -= 1.0
        arm_state[_S, old] -= state[1 + tau + pos]
        if arm_state[_N, old] == 0.0:
            arm_state[_S, old] = 0.0  # (no rounding residue on an empty arm)
    state[1 + pos] = arm
    state[1 + tau + pos] = reward
    arm_state[_N, arm] += 1.0
    arm_state[_S, arm] += reward
    state[_POS] = (pos + 1) % tau


@bandits.register_policy
class SlidingWindowUCB(bandits.Policy):
    """Sliding-window UCB (module docstring).

    Parameters
    ----------
    window : int >= 1, default 1000 (tau)
    xi : float > 0, default 0.6
    b : float > 0, default 1
    """

    name = "swucb"
    kernel_spec = bandits.KernelSpec(select=select, init=init, on_record=on_record)
    state_width = 1          # (class default; an instance holds 1 + 2 window)
    arm_state_width = 2

    def __init__(self, window: int = 1000, xi: float = 0.6, b: float = 1.0):
        window = self._check_float("window", window, low=1.0)
        if not window.is_integer():
            raise ValueError(f"window must be an integer >= 1, got {window!r}")
        xi = self._check_float("xi", xi, low=0.0, low_open=True)
        b = self._check_float("b", b, low=0.0, low_open=True)
        super().__init__(window=int(window), xi=xi, b=b)
        self.state_width = 1 + 2 * int(window)

    def _pack(self):
        return [float(self.window), self.xi, self.b]
