"""MOSS (Audibert & Bubeck 2009, "Minimax policies for adversarial and stochastic bandits") and
anytime MOSS (Degenne & Perchet 2016, "Anytime optimal algorithms in stochastic multi-armed bandits").

    known horizon T:  U_i = w_i + sqrt(max(0, ln(T / (K t_i))) / t_i)
    anytime:          U_i = w_i + sqrt(max(0, ln(t / (K t_i))) / t_i)       (T replaced by t)

w_i: mean reward of arm i, t_i its pulls, K the number of valid arms, t the pulls of the bandit so
far.  Untried arms first, ties at random.  An arm with t_i >= T / K (resp. t / K) gets no bonus:
its index is its mean.  [Degenne & Perchet's MOSS-anytime carries a factor (1 + alpha) / 2 under
the root; this is their alpha = 1.]

``horizon`` unset (known-horizon MOSS) is bound to a testbed's horizon or a search's iteration
budget.  Index form, with s = 1 / sqrt(t_i):  L = ln(T / K) once per selection, then
U_i = w_i + s sqrt(max(0, L - ln t_i)), where ln t_i is the policy's per-arm state (``arm_state[0]``),
worked out once per pull of arm i by ``on_record`` (a log per arm per selection cost 3x UCB1).
"""
from __future__ import annotations

import math

import numba as nb

import bandits
from bandits.index import record_log_count
from bandits.stats import ISQRT, MEAN
from bandits.zoo.common import BindsHorizon, check_horizon, count_valid


@nb.njit(cache=True)
def prepare(params, state, valid, t):
    """L = ln(T / K) (anytime: ln(t / K)); params = [horizon T, anytime flag].  With a known horizon
    L changes only with K: kept in state [K, L]."""
    k = max(count_valid(valid), 1)
    if params[1] != 0.0:
        return math.log(max(t, 1) / k)
    if state[0] != k:
        state[0] = k
        state[1] = math.log(params[0] / k)
    return state[1]


@nb.njit(cache=True)
def index(stats, i, t, params, state, level, arm_state):
    """MOSS (Audibert & Bubeck 2009): w_i + sqrt(max(0, ln(T / (K t_i))) / t_i); level = ln(T / K),
    arm_state[0, i] = ln t_i."""
    return stats[MEAN, i] + stats[ISQRT, i] * math.sqrt(max(0.0, level - arm_state[0, i]))


@bandits.register_policy
class MOSS(BindsHorizon, bandits.Policy):
    """MOSS with a known horizon, or anytime MOSS (module docstring).

    Parameters
    ----------
    horizon : int or None
        Known horizon T (>= 1); None binds it later to a testbed's horizon or a search's budget.
        Not used (and not needed) with ``anytime=true``.
    anytime : bool, default False
        Degenne & Perchet's anytime form: T replaced by the current t.
    """

    name = "moss"
    kernel_spec = bandits.KernelSpec(index=index, prepare=prepare, on_record=record_log_count)
    state_width = 2
    arm_state_width = 1

    def __init__(self, horizon: int | None = None, anytime: bool = False):
        anytime = self._check_bool("anytime", anytime)
        super().__init__(horizon=check_horizon(horizon), anytime=anytime)

    def _pack(self):
        return [float(self.horizon or 0), 1.0 if self.anytime else 0.0]

    @property
    def needs_horizon(self) -> bool:
        return self.horizon is None and not self.anytime

