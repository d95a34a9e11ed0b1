"""Successive rejects (Audibert, Bubeck & Munos 2010, "Best arm identification in multi-armed
bandits", section 3): fixed-budget best-arm identification with budget n and K arms.

    logbar(K) = 1/2 + sum_{i=2}^{K} 1/i
    n_k = ceil( (n - K) / (logbar(K) (K + 1 - k)) ),  k = 1 .. K-1   (n_0 = 0)
    phase k: bring every surviving arm to n_k pulls (in index order), then reject the survivor of
             the lowest empirical mean (ties at random)
    after phase K-1 one arm survives: it is the recommendation, and is played for the rest.

The phases use at most n pulls (n_1 K + n_2 (K-1) + ... <= n).  [Our guards: n_k is at least 1,
so a budget n < 2K still samples every arm; pulls beyond the budget (a tree node visited more
often) play the survivor.]  The rejections compare the policy's own samples (arm state rows:
pulls, reward sum, active), so a reused tree's older statistics do not enter.  K = the valid arms
at init; arms masked later (a search's proven children) are skipped and keep their place.

A rejection is made when the next pull is asked for (:func:`advance`, from ``select``), so a
budget the phases use exactly ends with its last rejection still to make: ``Policy.recommend``
makes it (the same rule, on copies of the state, ties from the stream it is given) and returns
the survivor; before the end, the surviving arm of the best mean (:func:`common.best_surviving`:
ties at random, never the lowest index).

``horizon`` is the budget n (bound to a testbed's horizon or a search's iteration budget).
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

import bandits
from bandits.stats import COUNT, MEAN
from bandits.zoo.common import BudgetElimination, best_surviving, count_valid, drop_lowest

_COUNT, _SUM, _ACTIVE = 0, 1, 2   # arm_state rows
_PHASE, _K = 0, 1                 # state columns


@nb.njit(cache=True)
def log_bar(k):
    """logbar(K) = 1/2 + sum_{i=2}^{K} 1/i."""
    out = 0.5
    for i in range(2, k + 1):
        out += 1.0 / i
    return out


@nb.njit(cache=True)
def phase_length(phase, budget, k):
    """n_k = max(1, ceil((n - K) / (logbar(K) (K + 1 - k)))) for phase k = 1 .. K-1."""
    return max(1.0, math.ceil((budget - k) / (log_bar(k) * (k + 1 - phase))))


@nb.njit(cache=True)
def init(params, state, arm_state, valid):
    """Every valid arm active, phase 1; params = [budget n]."""
    state[_PHASE] = 1.0
    state[_K] = count_valid(valid)
    for i in range(arm_state.shape[1]):
        arm_state[_COUNT, i] = 0.0
        arm_state[_SUM, i] = 0.0
        arm_state[_ACTIVE, i] = 1.0 if valid[i] else 0.0


@nb.njit(cache=True)
def advance(params, state, arm_state, valid, rng, work):
    """Close every phase whose pulls are all in (reject the eligible arm of the lowest mean of its
    own samples, ties at random); returns the arm the phase schedule asks for next (the first
    surviving arm in index order short of n_k pulls), or -1 when the schedule is over (phase K-1
    closed: one survivor) or no surviving arm is eligible."""
    k = int(state[_K])
    active = arm_state[_ACTIVE]
    while state[_PHASE] <= k - 1:
        target = phase_length(int(state[_PHASE]), params[0], k)
        eligible = 0
        for i in range(active.shape[0]):
            if active[i] != 0.0 and valid[i]:
                eligible += 1
                if arm_state[_COUNT, i] < target:
                    return i
        if eligible == 0:
            return -1
        if eligible > 1:
            for i in range(active.shape[0]):
                work[i] = arm_state[_SUM, i] / arm_state[_COUNT, i] if arm_state[_COUNT, i] > 0.0 else 0.0
            drop_lowest(work, active, valid, rng)
        state[_PHASE] += 1.0
    return -1


@nb.njit(cache=True)
def select(params, state, arm_state, stats, valid, t, rng, work):
    """The arm the phase schedule asks for (:func:`advance`); after it, the survivor
    (:func:`common.best_surviving`)."""
    arm = advance(params, state, arm_state, valid, rng, work)
    if arm >= 0:
        return arm
    return best_surviving(arm_state[_ACTIVE], valid, stats[MEAN], stats[COUNT], rng, work)


@nb.njit(cache=True)
def recommend_rows(params, state, arm_state, stats, valid, rng, out):
    """out[b]: the arm bandit b recommends (state, arm_state: (B, S), (B, A, K) copies, changed
    here; stats (B, NSTAT, K); valid (B, K)): :func:`advance` closes the phases complete (a budget
    used exactly ends with its last rejection still to make), then the survivor, or before the
    end the surviving arm of the best mean, ties at random from ``rng``."""
    work = np.empty(valid.shape[1])
    for b in range(valid.shape[0]):
        advance(params, state[b], arm_state[b], valid[b], rng, work)
        out[b] = best_surviving(arm_state[b, _ACTIVE], valid[b], stats[b, MEAN], stats[b, COUNT], rng, work)


@nb.njit(cache=True)
def on_record(params, state, arm_state, stats, arm, reward):
    """The policy's own pull count and reward sum of the arm."""
    arm_state[_COUNT, arm] += 1.0
    arm_state[_SUM, arm] += reward


@bandits.register_policy
class SuccessiveRejects(BudgetElimination, bandits.Policy):
    """Successive rejects (module docstring).

    Parameters
    ----------
    horizon : int or None, the budget n (bound to the run's horizon or the search budget)
    """

    name = "sr"
    kernel_spec = bandits.KernelSpec(select=select, init=init, on_record=on_record)
    state_width = 2
    arm_state_width = 3

    _recommend_rows = staticmethod(recommend_rows)

    def diagnostics(self, batch):
        return {"phases_done": batch.state[:, _PHASE].copy() - 1.0}
