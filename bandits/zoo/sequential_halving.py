"""Sequential halving (Karnin, Koren & Somekh 2013, "Almost optimal exploration in multi-armed
bandits", Algorithm 1): fixed-budget best-arm identification with budget T and K arms.

    R = ceil(log2 K) rounds; S_0 = all arms
    round r: sample every arm of S_r  t_r = floor(T / (|S_r| R))  times (in index order)
             S_{r+1} = the ceil(|S_r| / 2) arms of S_r with the highest mean of their round-r samples
             (ties at random)
    after round R-1 one arm survives: the recommendation, played for the rest of the budget.

The rounds use at most T pulls (exactly T when |S_r| R divides T in every round, e.g. K = 20,
T = 3600: 5 rounds of 720).  [Our guards: t_r is at least 1, so a budget below K R still halves;
pulls beyond the schedule play the survivor.]  Arm state rows: round pulls, round reward sum,
active.  K = the valid arms at init; arms masked later are skipped.

A halving is made when the next pull is asked for (:func:`advance`, from ``select``), so a budget
the rounds use exactly ends with round R-1's samples in and its halving still to make:
``Policy.recommend`` makes it (the same rule, on copies of the state, ties from the stream it is
given) and returns the survivor; before the end, the surviving arm of the best mean
(:func:`common.best_surviving`: ties at random, never the lowest index).

``horizon`` is the budget T (bound to a testbed's horizon or a search's iteration budget).
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

import bandits
from bandits.stats import COUNT, MEAN
from bandits.zoo.common import BudgetElimination, best_surviving, count_valid, drop_lowest

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
def advance(params, state, arm_state, valid, rng, work):
    """Close every round whose samples are all in (S_{r+1}: the ceil(|S_r| / 2) arms of the highest
    round-r means, the others dropped one at a time, ties at random); returns the arm the round
    schedule asks for next (the first of S_r in index order short of t_r samples), or -1 when the
    schedule is over (its last round closed: one survivor) or no arm of S_r is left eligible."""
    active = arm_state[_ACTIVE]
    while state[_ROUND] < state[_ROUNDS]:
        eligible = 0
        for i in range(active.shape[0]):
            if active[i] != 0.0 and valid[i]:
                eligible += 1
                if arm_state[_COUNT, i] < state[_TARGET]:
                    return i
        if eligible == 0:
            return -1
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
    return -1


@nb.njit(cache=True)
def select(params, state, arm_state, stats, valid, t, rng, work):
    """The arm the round schedule asks for (:func:`advance`); after it, the survivor
    (:func:`common.best_surviving`, by the mean of all its plays)."""
    arm = advance(params, state, arm_state, valid, rng, work)
    if arm >= 0:
        return arm
    return best_surviving(arm_state[_ACTIVE], valid, stats[MEAN], stats[COUNT], rng, work)


@nb.njit(cache=True)
def recommend_rows(params, state, arm_state, stats, valid, rng, out):
    """out[b]: the arm bandit b recommends (state, arm_state: (B, S), (B, A, K) copies, changed
    here; stats (B, NSTAT, K); valid (B, K)): :func:`advance` closes the rounds complete (a budget
    used exactly ends with its last halving still to make), then the survivor, or before the end
    the surviving arm of the best mean, ties at random from ``rng``."""
    work = np.empty(valid.shape[1])
    for b in range(valid.shape[0]):
        advance(params, state[b], arm_state[b], valid[b], rng, work)
        out[b] = best_surviving(arm_state[b, _ACTIVE], valid[b], stats[b, MEAN], stats[b, COUNT], rng, work)


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

    _recommend_rows = staticmethod(recommend_rows)
