"""Improved UCB (Auer & Ortner, "UCB revisited", 2010) and its episodic form.

Known horizon T, docs/algorithms.md, "Improved UCB" ([A&O] unless marked [OURS])::

    Delta_0 = 1 ; B_0 = all arms ; M = floor(0.5 * log2(T / e))
    round m = 0..M:
        n_m = ceil(2 log(T Delta_m^2) / Delta_m^2)
        |B_m| > 1: bring every arm of B_m to n_m pulls, in index order        [OURS order]
        |B_m| = 1: play that arm
        c_m = sqrt(log(T Delta_m^2) / (2 n_m))
        B_{m+1} = {i in B_m : w_i + c_m >= max_{j in B_m} (w_j - c_m)} ; Delta_{m+1} = Delta_m / 2
    after round M with |B| > 1: play the survivors round-robin (counted)    [OURS]
    M < 0 (T < e: no round, log(T) < 1 never used): round-robin            [OURS]

Episodic [PAPER]: boundaries T_0 = 2, T_{l+1} = T_l^2 as absolute play counts; episode l covers plays
T_{l-1}+1 .. T_l and runs the algorithm with horizon T_l, restarted from scratch (its own episode
statistics discarded) at each boundary [OURS].

The policy keeps its own per-arm episode statistics (arm_state rows: pulls, reward sum, active),
so restarting an episode never touches the shared statistics that a search tree backs up.
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

from bandits.policy import Policy
from bandits.registry import KernelSpec, register_policy

# state columns
_T, _M_CUR, _M_LAST, _DELTA, _N, _FALLBACK, _EPISODES = range(7)
# arm_state rows (field-major, (3, K))
_EP_COUNT, _EP_SUM, _IS_ACTIVE = 0, 1, 2
_E = math.e


@nb.njit(cache=True)
def round_size(horizon, delta):
    """n_m = ceil(2 log(T Delta^2) / Delta^2) (Auer & Ortner, 2010)."""
    return math.ceil(2.0 * math.log(horizon * delta * delta) / (delta * delta))


@nb.njit(cache=True)
def last_round(horizon):
    """M = floor(0.5 log2(T / e)); negative when T < 4e leaves no complete round."""
    return math.floor(0.5 * math.log2(horizon / _E))


@nb.njit(cache=True)
def _start_episode(state, arm_state, horizon):
    state[_T] = horizon
    state[_M_CUR] = 0.0
    state[_M_LAST] = last_round(horizon)
    state[_DELTA] = 1.0
    state[_N] = round_size(horizon, 1.0) if state[_M_LAST] >= 0 else 0.0
    for i in range(arm_state.shape[1]):
        arm_state[_EP_COUNT, i] = 0.0
        arm_state[_EP_SUM, i] = 0.0
        arm_state[_IS_ACTIVE, i] = 1.0
    state[_EPISODES] += 1.0


@nb.njit(cache=True, inline="always")
def init(params, state, arm_state, valid):
    """params = [horizon T (0 if episodic), episodic flag]."""
    state[_FALLBACK] = 0.0
    state[_EPISODES] = 0.0
    _start_episode(state, arm_state, 2.0 if params[1] != 0.0 else params[0])


@nb.njit(cache=True, inline="always")
def _eligible(arm_state, valid, i):
    """Arm i is in B_m (never eliminated this episode) and valid at this call."""
    return arm_state[_IS_ACTIVE, i] != 0.0 and valid[i]


@nb.njit(cache=True)
def _eliminate(state, arm_state, valid):
    """B_{m+1} = {i in B_m : w_i + c_m >= max_j (w_j - c_m)} over the eligible arms."""
    horizon, delta, n = state[_T], state[_DELTA], state[_N]
    c = math.sqrt(math.log(horizon * delta * delta) / (2.0 * n))
    best_lower = -math.inf
    for i in range(arm_state.shape[1]):
        if _eligible(arm_state, valid, i):
            best_lower = max(best_lower, arm_state[_EP_SUM, i] / arm_state[_EP_COUNT, i] - c)
    for i in range(arm_state.shape[1]):
        if _eligible(arm_state, valid, i) and arm_state[_EP_SUM, i] / arm_state[_EP_COUNT, i] + c < best_lower:
            arm_state[_IS_ACTIVE, i] = 0.0


@nb.njit(cache=True, inline="always")
def select(params, state, arm_state, stats, valid, t, rng, work):
    """The arm the round schedule asks for at play t+1 (t plays done); deterministic.

    Only eligible arms (active and valid now) are played, counted or compared: an arm masked out
    for a while (a search's proven child, a testbed's padding) keeps its place in B_m.
    """
    if params[1] != 0.0 and t >= state[_T]:
        horizon = state[_T]
        while t >= horizon:
            horizon = horizon * horizon
        _start_episode(state, arm_state, horizon)
    k = arm_state.shape[1]
    while state[_M_CUR] <= state[_M_LAST]:
        n = state[_N]
        for i in range(k):  # the round: eligible arms in index order, each brought to n_m
            if _eligible(arm_state, valid, i) and arm_state[_EP_COUNT, i] < n:
                return i
        if _count_eligible(arm_state, valid) == 0:
            return _least_played(arm_state, valid, False)[0]
        _eliminate(state, arm_state, valid)  # the round is complete
        state[_DELTA] *= 0.5
        state[_M_CUR] += 1.0
        if state[_M_CUR] <= state[_M_LAST]:
            state[_N] = round_size(state[_T], state[_DELTA])
    # after the last round: round-robin over the survivors (counted when there are several)
    arm, eligible = _least_played(arm_state, valid, True)
    if eligible == 0:
        return _least_played(arm_state, valid, False)[0]
    if eligible > 1 and state[_M_LAST] >= 0.0:
        state[_FALLBACK] += 1.0
    return arm


@nb.njit(cache=True)
def _count_eligible(arm_state, valid):
    count = 0
    for i in range(arm_state.shape[1]):
        count += 1 if _eligible(arm_state, valid, i) else 0
    return count


@nb.njit(cache=True)
def _least_played(arm_state, valid, survivors_only):
    """(arm, candidates): the arm with the fewest episode pulls (lowest index first) among the
    eligible arms, or among all valid arms (when every survivor is masked out now, e.g. proven by a
    search's solver), and how many candidates there were."""
    best, best_count, candidates = -1, math.inf, 0
    for i in range(arm_state.shape[1]):
        if _eligible(arm_state, valid, i) if survivors_only else valid[i]:
            candidates += 1
            if arm_state[_EP_COUNT, i] < best_count:
                best, best_count = i, arm_state[_EP_COUNT, i]
    return best, candidates


@nb.njit(cache=True, inline="always")
def on_record(params, state, arm_state, stats, arm, reward):
    """The pulled arm's episode statistics (after the shared ones are recorded)."""
    arm_state[_EP_COUNT, arm] += 1.0
    arm_state[_EP_SUM, arm] += reward


@register_policy
class ImprovedUCB(Policy):
    """Improved UCB of Auer & Ortner (2010), with known horizon or episodic (docs/algorithms.md, "Improved UCB").

    Parameters
    ----------
    horizon : int or None
        Known horizon T (>= 1).  None with ``episodic=False`` means "bind later": a testbed binds its
        horizon and a search its iteration budget (:meth:`bind`).
    episodic : bool, default False
        Run in episodes T_0 = 2, T_{l+1} = T_l^2 (Liu & Tsuruoka, 2015), restarting at each.

    Diagnostics: ``fallback_plays``, plays made round-robin after the last round with several
    survivors; ``episodes``, episodes started.
    """

    name = "iucb"
    kernel_spec = KernelSpec(select=select, init=init, on_record=on_record)
    state_width = 7
    arm_state_width = 3

    def __init__(self, horizon: int | None = None, episodic: bool = False):
        episodic = self._check_bool("episodic", episodic)
        if horizon is not None and episodic:
            raise ValueError("give either horizon (known T) or episodic=true, not both")
        if horizon is not None:
            if (isinstance(horizon, bool) or not isinstance(horizon, (int, float, np.integer, np.floating))
                    or not float(horizon).is_integer() or horizon < 1):
                raise ValueError(f"horizon must be an integer >= 1, got {horizon!r}")
            horizon = int(horizon)
        super().__init__(horizon=horizon, episodic=episodic)

    def _pack(self):
        return [float(self.horizon or 0), 1.0 if self.episodic else 0.0]

    @property
    def needs_horizon(self) -> bool:
        return self.horizon is None and not self.episodic

    def bind(self, horizon: int) -> "ImprovedUCB":
        return self.replace(horizon=horizon) if self.needs_horizon else self

    def diagnostics(self, batch):
        return {"fallback_plays": batch.state[:, _FALLBACK].copy(),
                "episodes": batch.state[:, _EPISODES].copy()}
