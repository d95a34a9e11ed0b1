"""SHOT (Cazenave 2015, "Sequential Halving Applied to Trees", IEEE TCIAIG 7(1)) and H-MCTS (Pepels,
Cazenave, Winands & Lanctot 2014, "Minimizing Simple and Cumulative Regret in Monte-Carlo Tree
Search", CGW 2014), as a node policy of the one-descent-per-iteration search.

SHOT is sequential halving run recursively: a node given a budget b (playouts through it) with K
children and R = ceil(log2 K) (:func:`sequential_halving.rounds`) runs

    T = n + b                           (n: the node's visits before the call; T its visits after)
    S = the children, sorted by mean (index order while n <= K); untried children first, once each
    target = max(1, floor(T / (|S| R)))                  (sequential_halving.round_budget)
    round: each child i of S in order gets b_i = min(target - n_i, left) visits, *recursively*: it
           runs SHOT itself with budget b_i; in the round of |S| = 2 the first child gets
           max(b_i, left - (target - n_second)), so the budget is used exactly
    S = the better ceil(|S| / 2) of S by mean; target += max(1, floor(T / (|S| R))); until |S| = 1

(n_i: child i's visits, so a child is topped up to the round's cumulative target; ``left`` = the
budget of the call not yet spent.)  The root's budget is the search's iterations.

Here the recursion is unrolled into descents, as the search's skeleton runs one descent per
iteration: a node's state holds its current call (its target T) and where its schedule stands
(round, position, cumulative target); the child it gives b_i visits gets the call target
n_i + b_i written in its per-arm state row 0, END, which the tree hands to the child as its state[0]
when the child selects (``hands_down``, :func:`bandits.kernels.handed_down`).  A child whose handed
target differs from its own starts a new call with it; a descent goes to the child whose segment
(visits < END) is open, so every call delivers exactly its budget.

H-MCTS: a call of budget b < B runs UCT (UCB1 with constant c) instead of halving, as does every
node without a budget handed down (the parent ran UCT, or is not a SHOT node) or whose call is
spent.  ``shot`` is H-MCTS with B = 1 (halving wherever there is a budget).

Per-node state (S = 8): HANDED (written by the tree; -1 from init at the root), TARGET (T; 0 before
any call), START (n at the call's start), SIZE (|S|), CUM (the round's cumulative target), POS
(position in the round), ROUNDS (R), RID (round counter).  Per-arm state (A = 3): END (the child's
call target, handed down), ORDER (the arms by rank, a row indexed by position), SEG (the RID of the
child's segment).

[ours] Deviations the skeleton imposes: a child is expanded at its second visit, so a child given
b_i = 2 plays one playout from itself and one from its first child (SHOT plays two from its
children); a node without a handed budget, or whose call is spent, runs UCB1 (SHOT has none);
the solver's unspent budget of a proven child is not carried to the next round; ties in the sort
keep the previous order (a stable sort, as SHOT's).  B's default (100) is ours: Pepels et al. tune
the threshold per game.

Written through the public plugin interface (:func:`bandits.stateful_policy` with
``hands_down=True``), as a user's policy is.
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

import bandits
from bandits._choice import argmax_random
from bandits.stats import COUNT, MEAN
from bandits.ucb1 import index as ucb1_index, prepare as ucb1_prepare
from bandits.zoo.common import count_valid
from bandits.zoo.sequential_halving import round_budget, rounds

HANDED, TARGET, START, SIZE, CUM, POS, ROUNDS, RID = range(8)   # state
END, ORDER, SEG = 0, 1, 2                                      # arm_state rows
_HORIZON, _C, _B = 0, 1, 2                                     # params


@nb.njit(cache=True)
def shot_init(params, state, arm_state, valid):
    """No call yet; HANDED = -1 (the root: the tree overwrites it at every other node)."""
    for j in range(state.shape[0]):
        state[j] = 0.0
    state[HANDED] = -1.0
    for i in range(arm_state.shape[1]):
        arm_state[END, i] = 0.0
        arm_state[ORDER, i] = i
        arm_state[SEG, i] = -1.0


@nb.njit(cache=True)
def _uct(params, stats, valid, t, work):
    """UCB1 (bandits.ucb1's prepare and index) with c = params[_C]: untried arms first (+inf), invalid
    arms at -inf."""
    c = params[_C:_C + 1]
    k = ucb1_prepare(c, c, valid, t)
    for i in range(valid.shape[0]):
        if not valid[i]:
            work[i] = -np.inf
        elif stats[COUNT, i] == 0.0:
            work[i] = np.inf
        else:
            work[i] = ucb1_index(stats, i, t, c, c, k)
    return work


@nb.njit(cache=True)
def _sort(arm_state, stats, size):
    """ORDER[:size] sorted by mean, best first; a stable insertion sort (ties keep their order)."""
    order = arm_state[ORDER]
    for j in range(1, size):
        a = order[j]
        m = stats[MEAN, int(a)]
        i = j - 1
        while i >= 0 and stats[MEAN, int(order[i])] < m:
            order[i + 1] = order[i]
            i -= 1
        order[i + 1] = a


@nb.njit(cache=True)
def _start(params, state, arm_state, stats, valid, t, target):
    """A new call of target T = ``target``: the valid arms first in ORDER (by mean once t > K), round 0."""
    k = count_valid(valid)
    state[TARGET] = target
    state[START] = t
    state[SIZE] = k
    state[ROUNDS] = rounds(k)
    state[POS] = 0.0
    state[RID] += 1.0
    state[CUM] = round_budget(target, k, state[ROUNDS]) if k > 1 else target
    order = arm_state[ORDER]
    j = 0
    for i in range(valid.shape[0]):
        if valid[i]:
            order[j] = i
            j += 1
    for i in range(valid.shape[0]):
        if not valid[i]:
            order[j] = i
            j += 1
    if t > k:
        _sort(arm_state, stats, k)


@nb.njit(cache=True)
def _give(state, arm_state, c, visits):
    """Open child c's segment up to ``visits`` (its call target, handed down as END)."""
    arm_state[SEG, c] = state[RID]
    arm_state[END, c] = visits
    return c


@nb.njit(cache=True)
def shot_select(params, state, arm_state, stats, valid, t, rng, work):
    """The child the node's current call asks for (module docstring); UCB1 without a call of
    budget >= B."""
    n = stats[COUNT]
    handed = state[HANDED]
    if handed < 0.0:                       # the root: one call, the search's budget
        if state[TARGET] == 0.0:
            _start(params, state, arm_state, stats, valid, t, t + params[_HORIZON])
    elif handed > t and handed != state[TARGET]:
        _start(params, state, arm_state, stats, valid, t, handed)
    left = state[TARGET] - t
    if left <= 0.0 or state[TARGET] - state[START] < params[_B]:
        return argmax_random(_uct(params, stats, valid, t, work), rng)
    for i in range(valid.shape[0]):        # untried children first, one visit each (not a round's segment)
        if valid[i] and n[i] == 0.0:
            arm_state[SEG, i] = -1.0
            arm_state[END, i] = 1.0
            return i
    order = arm_state[ORDER]
    size = int(state[SIZE])
    if size <= 1:                          # one child (or the schedule over): all that is left
        c = int(order[0])
        if valid[c]:
            if arm_state[SEG, c] != state[RID] or n[c] >= arm_state[END, c]:
                return _give(state, arm_state, c, n[c] + left)
            return c
    while size > 1:
        while state[POS] < size:
            c = int(order[int(state[POS])])
            if valid[c]:
                if arm_state[SEG, c] == state[RID]:
                    if n[c] < arm_state[END, c]:
                        return c
                else:
                    want = state[CUM] - n[c]
                    if size == 2 and state[POS] == 0.0:
                        want = max(want, left - (state[CUM] - n[int(order[1])]))
                    want = min(want, left)
                    if want > 0.0:
                        return _give(state, arm_state, c, n[c] + want)
                    arm_state[SEG, c] = state[RID]
            state[POS] += 1.0
        _sort(arm_state, stats, size)      # the round is over: keep the better half
        size -= size // 2
        state[SIZE] = size
        state[POS] = 0.0
        state[RID] += 1.0
        state[CUM] += round_budget(state[TARGET], size, state[ROUNDS])
    for j in range(order.shape[0]):        # budget left after the schedule: the best valid survivor
        c = int(order[j])
        if valid[c]:
            return _give(state, arm_state, c, n[c] + left)
    return argmax_random(_uct(params, stats, valid, t, work), rng)


@nb.njit(cache=True)
def shot_recommend(params, state, arm_state, stats, valid, rng, out):
    """out[b]: SHOT's best arm: the round in progress's arms (ORDER[:SIZE]) sorted by mean, as the
    round's end would sort them (a budget used exactly ends before that sort), and the first valid
    one (arm_state: a copy, changed here)."""
    for b in range(valid.shape[0]):
        _sort(arm_state[b], stats[b], int(state[b, SIZE]))
        out[b] = 0
        for j in range(valid.shape[1]):
            c = int(arm_state[b, ORDER, j])
            if valid[b, c]:
                out[b] = c
                break


_DOC = ("budget passing: a node given b visits runs sequential halving over its children, each child "
        "topped up to the round's cumulative target floor(T / (|S| ceil(log2 K))) recursively, the last "
        "round using the budget exactly")

SHOT = bandits.stateful_policy(
    "shot", select=shot_select, init=shot_init, recommend=shot_recommend, state_width=8, arm_state_width=3,
    hands_down=True,
    horizon=bandits.Param(None, doc="the root's budget (bound to the search's iterations)"),
    c=bandits.Param(math.sqrt(2.0), low=0.0, high=1e9,
                    doc="[OURS] UCB1's c at a node without a budget handed down"),
    threshold=bandits.Param(1, low=1, high=1e12, doc="B: a call of budget below B runs UCB1 (1: SHOT everywhere)"),
    doc="SHOT (Cazenave 2015): " + _DOC)

HMCTS = bandits.stateful_policy(
    "hmcts", select=shot_select, init=shot_init, recommend=shot_recommend, state_width=8, arm_state_width=3,
    hands_down=True,
    horizon=bandits.Param(None, doc="the root's budget (bound to the search's iterations)"),
    c=bandits.Param(math.sqrt(2.0), low=0.0, high=1e9, doc="UCT's c below the threshold ([OURS] default: UCB1's sqrt 2)"),
    threshold=bandits.Param(100, low=1, high=1e12,
                            doc="B: SHOT at a node whose budget is at least B, UCT below ([OURS] default 100)"),
    doc="H-MCTS (Pepels, Cazenave, Winands & Lanctot 2014): SHOT where a node's budget is at least B, "
        "UCT below; " + _DOC)
