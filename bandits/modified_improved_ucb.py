"""Modified improved UCB (Liu & Tsuruoka, 2015), the node policy of Mi-UCT; docs/algorithms.md.

Algorithmic modification [OURS reconstruction]: no arm is eliminated; every play takes the arm with
the highest upper bound (untried arms first, ties at random)::

    U_i = w_i + sqrt(r_i * log(T Delta^2) / (2 n))

Delta starts at 1 and is halved when t reaches ``deltaUpdate``; then
n = ceil(2 log(T Delta^2) / Delta^2) and deltaUpdate = t + armCount * n.  Delta is never halved once
T (Delta/2)^2 < e [OURS guard].  At the start: n = ceil(2 log T), deltaUpdate = armCount * n
(with T = 2 this is Mi-UCT's n = 2, deltaUpdate = 2 * armCount).

Confidence-bound modification, r_i [PAPER, exact form not recoverable], parameter ``r``:

    "none"       r_i = 1          (greedy once every arm is tried: the paper's plateau)
    "sqrt(T/t)"  r_i = sqrt(T/t_i)   DEFAULT, the seed text read literally
    "T/t"        r_i = T / t_i
    "sqrt(T)/t"  r_i = sqrt(T) / t_i
    "n/t"        r_i = n / t_i

Written once for all five as U_i = w_i + sqrt(L * rho) * t_i^(-p/2) with L = log(T Delta^2)/(2n),
(rho, p) = (1, 0), (sqrt T, 1/2), (T, 1), (sqrt T, 1), (n, 1).

Episodic [PAPER]: T starts at 2 and becomes T^2 when t reaches T; then Delta = 1, armCount = number
of valid arms (re-read), n and deltaUpdate are recomputed; the arm statistics are kept [OURS].

Node initialisation, two choices the paper's text leaves open (docs/algorithms.md, "Mi-UCT"), each a parameter
whose default is the behaviour above [OURS]:

    t0        the first episode's T (episodic only): T_0 = t0, then T_{l+1} = T_l^2.  Default 2
              (the paper's T_0 = 2), so episodes end at plays 2, 4, 16, 256, 65 536.
    deadline  what deltaUpdate counts: "arms" (default) deltaUpdate = t + armCount * n, every arm
              brought to n plays before Delta is halved (improved UCB's round); "plays"
              deltaUpdate = t + n, Delta halved after n plays of the node in all.
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

from bandits._choice import mean_plus_bonus, n_valid
from bandits.improved_ucb import round_size
from bandits.policy import Policy
from bandits.registry import KernelSpec, register_policy

R_CHOICES = ("none", "sqrt(T/t)", "T/t", "sqrt(T)/t", "n/t")
DEADLINES = ("arms", "plays")

# state columns
_T, _DELTA, _N, _DEADLINE, _ARMCOUNT, _HALVINGS, _EPISODES = range(7)
_E = math.e


@nb.njit(cache=True, inline="always")
def init(params, state, arm_state, valid):
    """params = [r code (index in R_CHOICES), episodic flag, horizon T, t0, deadline code
    (0 "arms", 1 "plays")]."""
    horizon = params[3] if params[1] != 0.0 else params[2]
    k = n_valid(valid)
    state[_T] = horizon
    state[_DELTA] = 1.0
    state[_N] = round_size(horizon, 1.0)
    state[_ARMCOUNT] = k
    state[_DEADLINE] = (1.0 if params[4] != 0.0 else k) * state[_N]
    state[_HALVINGS] = 0.0
    state[_EPISODES] = 1.0


@nb.njit(cache=True, inline="always")
def advance(params, state, valid, t):
    """Bring the schedule (episode, Delta, n, deltaUpdate) up to play count t."""
    if params[1] != 0.0 and t >= state[_T]:
        horizon = state[_T]
        while t >= horizon:
            horizon = horizon * horizon
        state[_T] = horizon
        state[_DELTA] = 1.0
        state[_ARMCOUNT] = n_valid(valid)
        state[_N] = round_size(horizon, 1.0)
        state[_DEADLINE] = t + (1.0 if params[4] != 0.0 else state[_ARMCOUNT]) * state[_N]
        state[_EPISODES] += 1.0
    while t >= state[_DEADLINE]:
        half = 0.5 * state[_DELTA]
        if state[_T] * half * half < _E:
            break
        state[_DELTA] = half
        state[_N] = round_size(state[_T], half)
        state[_DEADLINE] = t + (1.0 if params[4] != 0.0 else state[_ARMCOUNT]) * state[_N]
        state[_HALVINGS] += 1.0


@nb.njit(cache=True, inline="always")
def prepare(params, state, valid, t):
    """Advance the schedule to t; returns (k, p) of the bonus k * t_i^(-p/2) (module docstring)."""
    advance(params, state, valid, t)
    horizon, delta, n = state[_T], state[_DELTA], state[_N]
    big_l = math.log(horizon * delta * delta) / (2.0 * n)
    code = params[0]
    if code == 0.0:
        rho, p = 1.0, 0.0
    elif code == 1.0:
        rho, p = math.sqrt(horizon), 0.5
    elif code == 2.0:
        rho, p = horizon, 1.0
    elif code == 3.0:
        rho, p = math.sqrt(horizon), 1.0
    else:
        rho, p = n, 1.0
    # bonus_i = sqrt(L rho) * t_i^(-p/2)
    return math.sqrt(big_l * rho), p


@nb.njit(cache=True, inline="always")
def index(stats, i, t, params, state, bonus):
    """U_i = w_i + k t_i^(-p/2) with (k, p) = bonus from :func:`prepare` (an index policy, bandits.index)."""
    return mean_plus_bonus(stats, i, bonus[0], bonus[1])


@register_policy
class ModifiedImprovedUCB(Policy):
    """Modified improved UCB (Liu & Tsuruoka, 2015); episodic it is Mi-UCT's node policy.

    Parameters
    ----------
    r : {"none", "sqrt(T/t)", "T/t", "sqrt(T)/t", "n/t"}, default "sqrt(T/t)"
        Reading of the factor r_i in U_i = w_i + sqrt(r_i log(T Delta^2) / (2n)) (module docstring).
    episodic : bool, default False
        Episodes T = 2, 4, 16, 256, ... (statistics kept).  Mi-UCT uses ``episodic=True``.
    horizon : int or None
        Known horizon T when not episodic; None means "bind later" (a testbed's horizon, a search's
        iteration budget).
    t0 : int >= 2 or None
        Episodic only: the first episode's T (None: 2, the paper's T_0).  Module docstring.
    deadline : {"arms", "plays"} or None
        deltaUpdate = t + armCount * n ("arms", the default when None) or t + n ("plays").

    Diagnostics: ``delta`` (current Delta), ``halvings``, ``episodes``.
    """

    name = "miucb"
    kernel_spec = KernelSpec(index=index, prepare=prepare, init=init)
    state_width = 7

    def __init__(self, r: str = "sqrt(T/t)", episodic: bool = False, horizon: int | None = None,
                 t0: int | None = None, deadline: str | None = None):
        r = self._check_choice("r", r, R_CHOICES)
        episodic = self._check_bool("episodic", episodic)
        if deadline is not None:
            deadline = self._check_choice("deadline", deadline, DEADLINES)
        if t0 is not None:
            if (isinstance(t0, bool) or not isinstance(t0, (int, float, np.integer, np.floating))
                    or not float(t0).is_integer() or not 2 <= t0 <= 2 ** 31):
                raise ValueError(f"t0 must be an integer in 2..{2 ** 31}, got {t0!r}")
            if not episodic:
                raise ValueError("t0 (the first episode's T) needs episodic=true")
            t0 = int(t0)
        if horizon is not None and episodic:
            raise ValueError("give either horizon (known T) or episodic=true, not both")
        if horizon is not None:
            if (isinstance(horizon, bool) or not isinstance(horizon, (int, float, np.integer, np.floating))
                    or not float(horizon).is_integer() or horizon < 2):
                raise ValueError(f"horizon must be an integer >= 2, got {horizon!r}")
            horizon = int(horizon)
        super().__init__(r=r, episodic=episodic, horizon=horizon, t0=t0, deadline=deadline)

    def _pack(self):
        return [float(R_CHOICES.index(self.r)), 1.0 if self.episodic else 0.0, float(self.horizon or 0),
                float(self.t0 or 2), float(DEADLINES.index(self.deadline or "arms"))]

    @property
    def needs_horizon(self) -> bool:
        return self.horizon is None and not self.episodic

    def bind(self, horizon: int) -> "ModifiedImprovedUCB":
        return self.replace(horizon=max(2, int(horizon))) if self.needs_horizon else self

    def diagnostics(self, batch):
        return {"delta": batch.state[:, _DELTA].copy(), "halvings": batch.state[:, _HALVINGS].copy(),
                "episodes": batch.state[:, _EPISODES].copy()}
