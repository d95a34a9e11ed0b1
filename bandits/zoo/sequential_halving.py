"""Sequential halving (Karnin, Koren & Somekh 2013, "Almost optimal exploration in multi-armed
bandits", Algorithm 1): fixed-budget best-arm identification with budget T and K arms.

    R = ceil(log2 K) rounds; S_0 = all arms
    round r: sample every arm of S_r  t_r = floor(T / (|S_r| R))  times (in index order)
             S_{r+1} = the ceil(|S_r| / 2) arms of S_r with the highest mean of their round-r samples
             (ties at random)
    after round R-1 one arm survives: the recommendation, played for the rest of the budget.

The rounds use at most T pulls.  [Our guards: t_r is at least 1, so a budget below K R still
halves; pulls beyond the schedule play the survivor.]  Arm state rows: round pulls, round reward
sum, active.  K = the valid arms at init; arms masked later are skipped.

``horizon`` is the budget T (bound to a testbed's horizon or a search's iteration budget);
``Policy.recommend`` returns the survivor (the best surviving mean before the end).
"""
from __future__ import annotations

import math

import numba as nb

import bandits
from bandits.stats import MEAN
from bandits.zoo.common import BudgetElimination, count_valid, drop_lowest, first_active

_COUNT, _SUM, _ACTIVE = 0, 1, 2       # arm_state rows
_ROUND, _ROUNDS, _TARGET, _SIZE = range(4)   # state columns


@nb.njit(cache=True)
def rounds(k):
    """R = ceil(log2 K) (0 for one arm)."""
    return math.ceil(math.log2(k)) if k > 1 else 0


@nb.njit(cache=True)
def round_budget(budget, size, n_rounds):
    """t_r = max(1, floor(T / (|S_r| R)))."""
    return max(1.0, math.floor(budget / (size * n_rounds)))


@nb.njit(cache=True)
def init(params, state, arm_state, valid):
    """Round 0 with every valid arm; params = [budget T]."""
    k = count_valid(valid)
    state[_ROUND] = 0.0
    state[_ROUNDS] = rounds(k)
    state[_SIZE] = k
    state[_TARGET] = round_budget(params[0], k, state[_ROUNDS]) if k > 1 else 0.0
    for i in range(arm_state.shape[1]):
        arm_state[_COUNT, i] = 0.0
        arm_state[_SUM, i] = 0.0
        arm_state[_ACTIVE, i] = 1.0 if valid[i] else 0.0


@nb.njit(cache=True)
def select(params, state, arm_state, stats, valid, t, rng, work):
    """The arm the round schedule asks for (module docstring)."""
    active = arm_state[_ACTIVE]
    while state[_ROUND] < state[_ROUNDS]:
        eligible = 0
        for i in range(active.shape[0]):
            if active[i] != 0.0 and valid[i]:
                eligible += 1
                if arm_state[_COUNT, i] < state[_TARGET]:
                    return i
        if eligible == 0:
            break
        for i in range(active.shape[0]):
            work[i] = arm_state[_SUM, i] / arm_state[_COUNT, i] if arm_state[_COUNT, i] > 0.0 else 0.0
        keep = math.ceil(state[_SIZE] / 2.0)
        size = state[_SIZE]
        while size > keep and eligible > 1:
            drop_lowest(work, active, valid, rng)
            size -= 1.0
            eligible -= 1
        for i in range(active.shape[0]):
            arm_state[_COUNT, i] = 0.0
            arm_state[_SUM, i] = 0.0
        state[_SIZE] = keep
        state[_ROUND] += 1.0
        state[_TARGET] = round_budget(params[0], keep, state[_ROUNDS])
    for i in range(active.shape[0]):
        work[i] = stats[MEAN, i]  # the survivor, or the best surviving mean
    return first_active(active, valid, work)


@nb.njit(cache=True)
def on_record(params, state, arm_state, stats, arm, reward):
    """The arm's pulls and reward sum in this round."""
    arm_state[_COUNT, arm] += 1.0
    arm_state[_SUM, arm] += reward


@bandits.register_policy
class SequentialHalving(BudgetElimination, bandits.Policy):
    """Sequential halving (module docstring).

    Parameters
    ----------
    horizon : int or None, the budget T (bound to the run's horizon or the search budget)
    """

    name = "seqhalving"
    kernel_spec = bandits.KernelSpec(select=select, init=init, on_record=on_record)
    state_width = 4
    arm_state_width = 3

    _active_row = _ACTIVE
