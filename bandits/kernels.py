"""The compiled dispatcher: one entry point per operation, switching on the policy's ``kind``.

Row functions act on one bandit, the shape both callers share:

    init_row(kind, params, state, arm_state, valid)
    select_row(kind, params, state, arm_state, stats, valid, t, rng, work) -> arm
    record_row(kind, params, state, arm_state, stats, arm, reward)

    params     (P,) float64     the policy's parameters (Policy.params)
    state      (S,) float64     the policy's state for this bandit
    arm_state  (K, A) float64   the policy's per-arm state
    stats      (K, NSTAT) float64   per-arm statistics (bandits.stats)
    valid      (K,) bool        valid arms
    t          int              pulls of this bandit so far (a tree node: its visit count)
    rng        (4,) uint64      stream state (bandits.rng), advanced in place
    work       (K,) float64     scratch space for scores

``record_row`` updates the statistics (bandits.stats.record) and then the policy's own state.  A
search tree calls these with a node's children rows; a testbed calls them for every task, or
through the batch loops below.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from bandits import egreedy, improved_ucb, klucb, modified_improved_ucb, thompson, ucb1
from bandits.stats import record

__all__ = ["init_row", "select_row", "record_row", "init_batch", "select_batch", "record_batch"]

UCB1, IUCB, MIUCB, KLUCB, THOMPSON, EGREEDY = (
    ucb1.KIND, improved_ucb.KIND, modified_improved_ucb.KIND, klucb.KIND, thompson.KIND, egreedy.KIND)


@nb.njit(cache=True, inline="always")
def init_row(kind, params, state, arm_state, valid):
    """Initial policy state of one bandit."""
    if kind == IUCB:
        improved_ucb.init(params, state, arm_state, valid)
    elif kind == MIUCB:
        modified_improved_ucb.init(params, state, arm_state, valid)
    elif kind == THOMPSON:
        thompson.init(params, state, arm_state, valid)


@nb.njit(cache=True, inline="always")
def select_row(kind, params, state, arm_state, stats, valid, t, rng, work):
    """Arm index (0..K-1) that the policy pulls next in this bandit."""
    if kind == UCB1:
        return ucb1.select(params, state, arm_state, stats, valid, t, rng, work)
    elif kind == IUCB:
        return improved_ucb.select(params, state, arm_state, stats, valid, t, rng, work)
    elif kind == MIUCB:
        return modified_improved_ucb.select(params, state, arm_state, stats, valid, t, rng, work)
    elif kind == KLUCB:
        return klucb.select(params, state, arm_state, stats, valid, t, rng, work)
    elif kind == THOMPSON:
        return thompson.select(params, state, arm_state, stats, valid, t, rng, work)
    elif kind == EGREEDY:
        return egreedy.select(params, state, arm_state, stats, valid, t, rng, work)
    return -1


@nb.njit(cache=True, inline="always")
def record_row(kind, params, state, arm_state, stats, arm, reward):
    """Record a pull of ``arm`` with ``reward``: shared statistics, then the policy's own state."""
    record(stats, arm, reward)
    if kind == IUCB:
        improved_ucb.on_record(params, state, arm_state, arm, reward)
    elif kind == THOMPSON:
        thompson.on_record(params, arm_state, stats, arm)


@nb.njit(cache=True)
def init_batch(kind, params, state, arm_state, valid):
    for b in range(state.shape[0]):
        init_row(kind, params, state[b], arm_state[b], valid[b])


@nb.njit(cache=True)
def select_batch(kind, params, state, arm_state, stats, valid, t, rng, out):
    work = np.empty(stats.shape[1])
    for b in range(stats.shape[0]):
        out[b] = select_row(kind, params, state[b], arm_state[b], stats[b], valid[b], t[b], rng, work)


@nb.njit(cache=True)
def record_batch(kind, params, state, arm_state, stats, t, arms, rewards):
    for b in range(stats.shape[0]):
        record_row(kind, params, state[b], arm_state[b], stats[b], arms[b], rewards[b])
        t[b] += 1
