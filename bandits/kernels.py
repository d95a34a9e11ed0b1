"""The compiled dispatcher: one entry point per operation, for every policy ``kind``.

Row functions act on one bandit, the shape both callers share:

    init_row(kind, params, state, arm_state, valid)
    select_row(kind, params, state, arm_state, stats, valid, t, rng, work) -> arm
    record_row(kind, params, state, arm_state, stats, arm, reward)

    params     (P,) float64     the policy's parameters (Policy.params)
    state      (S,) float64     the policy's state for this bandit
    arm_state  (A, K) float64   the policy's per-arm state (a row per field)
    stats      (NSTAT, K) float64   per-arm statistics, a row per statistic (bandits.stats)
    valid      (K,) bool        valid arms
    t          int              pulls of this bandit so far (a tree node: its visit count)
    rng        (4,) uint64      stream state (bandits.rng), advanced in place
    work       (K,) float64     scratch space for scores

``record_row`` updates the statistics (bandits.stats.record) and then the policy's own state
(its module's ``on_record``, if it has one).  Each policy module (``MODULES``, indexed by
``kind``) defines ``select`` and optionally ``init`` and ``on_record`` with these signatures.

The same code serves two kinds of caller:

* ``kind`` known only at run time (a search tree, a call from Python): a chain of ``if kind ==``
  branches picks the module.
* ``kind`` a compile-time constant (``numba.literally``, or a closure constant): ``select`` and
  ``init`` go straight to the module's function (a numba overload on the literal kind), so the
  other policies' code is never compiled in, and the compiler folds ``record_row``'s branches.
  A hot loop compiled for one policy (the testbed runner, :mod:`testbeds.runner`) is thereby as
  tight as one written for that policy alone; through the run-time chain, which leaves the
  compiler a loop with every policy in it, UCB1 on the paper's testbed ran 1.5x slower.

(``on_record`` stays a plain chain: as an inlined overload it made numba drop a later write in the
tree's backup loop, numba 0.68.)
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba.core import types
from numba.extending import overload

from bandits import egreedy, improved_ucb, klucb, modified_improved_ucb, thompson, ucb1
from bandits.stats import record

__all__ = ["init_row", "select_row", "record_row", "init_batch", "select_batch", "record_batch", "MODULES"]

#: Policy modules by kind (module.KIND is its index).
MODULES = (ucb1, improved_ucb, modified_improved_ucb, klucb, thompson, egreedy)
assert all(m.KIND == i for i, m in enumerate(MODULES))

UCB1, IUCB, MIUCB, KLUCB, THOMPSON, EGREEDY = (m.KIND for m in MODULES)


def _literal_module(kind):
    """The policy module for a compile-time constant ``kind`` (its numba type), else None."""
    if isinstance(kind, types.IntegerLiteral):
        if not 0 <= kind.literal_value < len(MODULES):
            raise nb.core.errors.TypingError(f"kind must lie in 0..{len(MODULES) - 1}, got {kind.literal_value}")
        return MODULES[kind.literal_value]
    return None


def _inline_if_literal(expr, caller_info, callee_info):
    """numba inlining rule for the overloads below: inline the direct call of a compile-time kind
    (so the hot loop is one piece); call the run-time chain (compiled once, not copied into every
    caller: it holds every policy's code)."""
    return isinstance(caller_info.typemap[expr.args[0].name], types.IntegerLiteral)


def _init(kind, params, state, arm_state, valid):  # pragma: no cover - compiled only (overload below)
    raise NotImplementedError


def _select(kind, params, state, arm_state, stats, valid, t, rng, work):  # pragma: no cover
    raise NotImplementedError


@overload(_init, prefer_literal=True, inline=_inline_if_literal)
def _init_impl(kind, params, state, arm_state, valid):
    module = _literal_module(kind)
    if module is not None:
        if not hasattr(module, "init"):
            return lambda kind, params, state, arm_state, valid: None
        fn = module.init
        return lambda kind, params, state, arm_state, valid: fn(params, state, arm_state, valid)

    def chain(kind, params, state, arm_state, valid):
        if kind == IUCB:
            improved_ucb.init(params, state, arm_state, valid)
        elif kind == MIUCB:
            modified_improved_ucb.init(params, state, arm_state, valid)
        elif kind == THOMPSON:
            thompson.init(params, state, arm_state, valid)
    return chain


@overload(_select, prefer_literal=True, inline=_inline_if_literal)
def _select_impl(kind, params, state, arm_state, stats, valid, t, rng, work):
    module = _literal_module(kind)
    if module is not None:
        fn = module.select
        return lambda kind, params, state, arm_state, stats, valid, t, rng, work: fn(
            params, state, arm_state, stats, valid, t, rng, work)

    def chain(kind, params, state, arm_state, stats, valid, t, rng, work):
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
    return chain


@nb.njit(cache=True, inline="always")
def init_row(kind, params, state, arm_state, valid):
    """Initial policy state of one bandit."""
    _init(kind, params, state, arm_state, valid)


@nb.njit(cache=True, inline="always")
def select_row(kind, params, state, arm_state, stats, valid, t, rng, work):
    """Arm index (0..K-1) that the policy pulls next in this bandit."""
    return _select(kind, params, state, arm_state, stats, valid, t, rng, work)


@nb.njit(cache=True, inline="always")
def record_row(kind, params, state, arm_state, stats, arm, reward):
    """Record a pull of ``arm`` with ``reward``: shared statistics, then the policy's own state."""
    record(stats, arm, reward)
    if kind == IUCB:
        improved_ucb.on_record(params, state, arm_state, stats, arm, reward)
    elif kind == THOMPSON:
        thompson.on_record(params, state, arm_state, stats, arm, reward)


@nb.njit(cache=True)
def init_batch(kind, params, state, arm_state, valid):
    for b in range(state.shape[0]):
        init_row(kind, params, state[b], arm_state[b], valid[b])


@nb.njit(cache=True)
def select_batch(kind, params, state, arm_state, stats, valid, t, rng, out):
    work = np.empty(stats.shape[2])
    for b in range(stats.shape[0]):
        out[b] = select_row(kind, params, state[b], arm_state[b], stats[b], valid[b], t[b], rng, work)


@nb.njit(cache=True)
def record_batch(kind, params, state, arm_state, stats, t, arms, rewards):
    for b in range(stats.shape[0]):
        record_row(kind, params, state[b], arm_state[b], stats[b], arms[b], rewards[b])
        t[b] += 1
