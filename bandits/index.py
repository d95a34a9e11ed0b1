"""Index policies: one small function of an arm's statistics; the library does the rest.

An *index policy* gives every arm a number and pulls the arm with the largest one.  The policy
supplies only the number, ``index(stats, i, t, params, state) -> float`` for a tried arm i::

    stats   (NSTAT, K) float64   per-arm statistics (bandits.stats): stats[MEAN, i] = w_i,
                                 stats[COUNT, i] = t_i >= 1, stats[SUMSQ, i], stats[SUM, i],
                                 stats[ISQRT, i] = 1 / sqrt(t_i)
    t       int64 >= 1           pulls of the bandit so far (a tree node: its visit count)
    params  (P,) float64         the policy's parameters
    state   (S,) float64         the policy's per-bandit state (read here; see ``prepare``)

and, optionally, ``prepare(params, state, valid, t)``, called once per selection before the
indices (a schedule that moves with t, e.g. modified improved UCB's Delta), and ``init``.  What
``prepare`` returns (a number or a tuple of numbers, worked out once per selection) is passed to
an index function that takes a sixth parameter: ``index(stats, i, t, params, state, prepared)``.
An index function that takes a seventh, ``index(stats, i, t, params, state, prepared, arm_state)``,
also reads the policy's per-arm state ``arm_state`` (A, K) (``arm_state_width`` rows), which its
``on_record`` keeps up to date: a per-arm quantity that changes only when the arm is pulled is
worked out once per pull there instead of once per selection (MOSS and KL-UCB+ keep ln t_i so:
numba has no vectorised logarithm, and a log per arm per selection cost them 3x UCB1's time).  The
library supplies the rule every index policy shares, written once in :func:`index_select`:

    score_i = +inf            for an untried valid arm (untried arms first; in a search's view of
                              NVIEW rows its FIRST row: the first-play urgency, bandits.stats),
              -inf            for an invalid arm (masked out), or where the index is NaN,
              index(...)      otherwise;
    pull argmax_i score_i, exact ties broken uniformly at random (bandits._choice.pick_max).

The selection loop is generated per index function (a closure over a text key naming it, so that
numba caches it on disk under that key) with the index call compiled into it, so the loop over
the arms runs as fast as if written by hand for that policy (one SIMD pass where the index allows).
"""
from __future__ import annotations

import inspect
import math

import numba as nb
import numpy as np
from numba.core import types
from numba.extending import overload

from bandits._choice import fmax, pick_max
from bandits.compiling import track
from bandits.stats import COUNT, FIRST, ISQRT

__all__ = ["index_select", "make_select", "make_inline_select", "record_log_count"]

#: key -> ("numba", index, prepare) of njit functions (prepare may be None)
_FUNCTIONS: dict[str, tuple] = {}


def _index_call(key, stats, i, t, params, state, prepared, arm_state):  # pragma: no cover - compiled only
    raise NotImplementedError


def _prepare_call(key, params, state, valid, t):  # pragma: no cover - compiled only (overload below)
    raise NotImplementedError


def _entry(key):
    if not isinstance(key, types.StringLiteral):
        raise nb.core.errors.TypingError(f"the index key must be a compile-time string, got {key}")
    return _FUNCTIONS[key.literal_value]


def _arity(fn) -> int:
    return len(inspect.signature(getattr(fn, "py_func", fn)).parameters)


def takes_prepared(fn) -> bool:
    """True when an index function has a sixth parameter (what ``prepare`` returned)."""
    return _arity(fn) >= 6


def takes_arm_state(fn) -> bool:
    """True when an index function has a seventh parameter (the policy's per-arm state)."""
    return _arity(fn) >= 7


@overload(_index_call, prefer_literal=True, inline="always")
def _index_call_impl(key, stats, i, t, params, state, prepared, arm_state):
    _, fn, _ = _entry(key)
    if takes_arm_state(fn):
        return lambda key, stats, i, t, params, state, prepared, arm_state: fn(
            stats, i, t, params, state, prepared, arm_state)
    if takes_prepared(fn):
        return lambda key, stats, i, t, params, state, prepared, arm_state: fn(stats, i, t, params, state, prepared)
    return lambda key, stats, i, t, params, state, prepared, arm_state: fn(stats, i, t, params, state)


@overload(_prepare_call, prefer_literal=True, inline="always")
def _prepare_call_impl(key, params, state, valid, t):
    _, _, fn = _entry(key)
    if fn is None:
        return lambda key, params, state, valid, t: None
    return lambda key, params, state, valid, t: fn(params, state, valid, t)


@nb.njit(cache=True, inline="always")
def _gate(s, count, valid, first):
    """The shared rule on one arm's index s: NaN -> -inf, untried -> ``first`` (+inf, or the
    first-play urgency a search hands over in the FIRST row), masked -> -inf."""
    s = s if s == s else -np.inf
    s = first if count == 0.0 else s
    return s if valid else -np.inf


@nb.njit(cache=True, inline="always")
def first_row(stats):
    """The row holding the index of untried arms: FIRST in a search's view, else ISQRT (+inf there).

    A row number, not a row view: choosing between two views at run time cost a 7-armed selection
    a third more instructions (measured under valgrind: the loop over the arms no longer compiled
    as before), reading stats[row, i] costs nothing extra.
    """
    return FIRST if stats.shape[0] > FIRST else ISQRT


@nb.njit(cache=True, inline="always")
def _pick(valid, work, best, rng):
    """The arm of the largest gated score (ties at random); uniform among valid arms if all are -inf."""
    if best == -np.inf:
        for i in range(work.shape[0]):
            work[i] = 0.0 if valid[i] else -np.inf
        best = 0.0
    return pick_max(work, best, rng)


@nb.njit(cache=True, inline="always")
def index_select(key, params, state, arm_state, stats, valid, t, rng, work):
    """The arm maximising the index of ``key``'s policy (module docstring); scores left in ``work``."""
    prepared = _prepare_call(key, params, state, valid, t)
    count = stats[COUNT]
    row = first_row(stats)
    best = -np.inf
    for i in range(count.shape[0]):
        # every arm's index is computed (branch-free, so the loop compiles to SIMD code), then the
        # untried and the masked ones are overridden
        s = _gate(_index_call(key, stats, i, t, params, state, prepared, arm_state), count[i], valid[i],
                  stats[row, i])
        work[i] = s
        best = fmax(best, s)
    return _pick(valid, work, best, rng)


@nb.njit(cache=True)
def record_log_count(params, state, arm_state, stats, arm, reward):
    """An ``on_record`` for index functions that read ln t_i from ``arm_state[0, i]`` (module
    docstring): arm_state[0, arm] = ln t_arm after each pull (the statistics are already recorded)."""
    arm_state[0, arm] = math.log(stats[COUNT, arm])


@nb.njit(cache=True)
def _gate_scores(stats, valid, work, rng):
    """_gate and _pick over raw indices already in ``work`` (the plain-Python path)."""
    count = stats[COUNT]
    row = first_row(stats)
    best = -np.inf
    for i in range(count.shape[0]):
        s = _gate(work[i], count[i], valid[i], stats[row, i])
        work[i] = s
        best = fmax(best, s)
    return _pick(valid, work, best, rng)


def _python_scores(index, prepare, params, state, arm_state, stats, valid, t, work):
    """Raw indices of the tried arms into ``work`` by plain Python calls (untried: +inf, not called)."""
    prepared = prepare(params, state, valid, t) if prepare is not None else None
    extra = (prepared, arm_state) if takes_arm_state(index) else (prepared,) if takes_prepared(index) else ()
    for i in range(work.shape[0]):
        if stats[COUNT, i] == 0.0 or not valid[i]:
            work[i] = np.inf
        else:
            work[i] = index(stats, i, t, params, state, *extra)


def make_select(key: str, index, prepare=None, python: bool = False):
    """The select kernel (bandits.kernels.SELECT_SIG) of the index policy ``key``.

    index, prepare: Python functions, compiled here into the kernel (``python=False``; numba's
    "numpy" error model, so a division by zero gives inf or nan instead of raising; the kernel is
    cached on disk under ``key``), or run as plain Python through numba's object mode
    (``python=True``; not cached).
    """
    if python:
        @nb.njit(cache=False)
        def select_python(params, state, arm_state, stats, valid, t, rng, work):
            with nb.objmode():
                _python_scores(index, prepare, params, state, arm_state, stats, valid, int(t), work)
            return _gate_scores(stats, valid, work, rng)
        return select_python

    index = nb.njit(inline="always", error_model="numpy")(index)
    if prepare is not None:
        prepare = nb.njit(inline="always", error_model="numpy")(prepare)
    _FUNCTIONS[key] = ("numba", index, prepare)

    @nb.njit(cache=True, error_model="numpy")
    def select(params, state, arm_state, stats, valid, t, rng, work):
        return index_select(key, params, state, arm_state, stats, valid, t, rng, work)
    return track(select)


def make_inline_select(key: str):
    """The same selection as :func:`make_select` (call that first) as an ``inline="always"``
    function, for loops that compile the policy into themselves (:mod:`bandits.static`)."""
    @nb.njit(inline="always")
    def select_inline(params, state, arm_state, stats, valid, t, rng, work):
        return index_select(key, params, state, arm_state, stats, valid, t, rng, work)
    return select_inline
