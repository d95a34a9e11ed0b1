"""A policy's compiled kernels as first-class function values, and the row and batch entry points.

A policy is three kernels of fixed signatures (one bandit, i.e. one row of a testbed or one node of
a search tree)::

    init(params, state, arm_state, valid)                              fresh policy state
    select(params, state, arm_state, stats, valid, t, rng, work) -> arm
    on_record(params, state, arm_state, stats, arm, reward)            after stats are recorded

    params     (P,) float64        the policy's parameters (Policy.params), C-contiguous
    state      (S,) float64        the policy's state for this bandit, C-contiguous
    arm_state  (A, K) float64      the policy's per-arm state (a row per field; any layout)
    stats      (NSTAT, K) float64  per-arm statistics, a row per statistic (bandits.stats; any layout)
    valid      (K,) bool           valid arms, C-contiguous
    t          int64               pulls of this bandit so far (a tree node: its visit count)
    rng        (4,) uint64         stream state (bandits.rng), advanced in place
    work       (K,) float64        scratch space (index policies leave their scores here)

:class:`PolicyKernels` holds them as :class:`Kernel` values, which numba types as first-class
functions of these signatures (``numba.types.FunctionType``).  So every loop that runs a policy
(the testbed runner, the search tree) takes the policy as an *argument*: the loop is compiled once
per machine and cached on disk, whatever the policy; a new policy compiles only its own kernels;
and a call through the function value costs about the same as a direct call (one indirect call per
selection, measured: UCB1 on the paper's testbed, benchmarks/startup.py).

``record_row`` is the one function that records a pull: the shared statistics
(:func:`bandits.stats.record`), then the policy's ``on_record`` when it has one.

The row entry points take the policy as ``pk``: a :class:`PolicyKernels` (called through the
function values: one compiled caller for every policy), or the policy's key from
:func:`bandits.registry.policy_key` as a compile-time string (the policy's code compiled into the
caller, :mod:`bandits.static`: a caller specialised for one policy, e.g. a search loop built for
one game and one policy, where a selection over a few children costs a third of a call).
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numba as nb
import numpy as np
from numba import types
from numba.core.types.function_type import WrapperAddressProtocol
from numba.experimental.function_type import _get_wrapper_address
from numba.extending import overload, typeof_impl

from bandits.static import static_init, static_record, static_select
from bandits.stats import record

__all__ = ["INIT_SIG", "SELECT_SIG", "RECORD_SIG", "Kernel", "PolicyKernels", "handed_down", "init_row", "select_row",
           "record_row", "init_batch", "select_batch", "record_batch"]

_F1 = types.float64[::1]
_F2 = types.float64[:, :]
_B1 = types.boolean[::1]
_U1 = types.uint64[::1]

#: init(params, state, arm_state, valid) -> None
INIT_SIG = types.none(_F1, _F1, _F2, _B1)
#: select(params, state, arm_state, stats, valid, t, rng, work) -> arm
SELECT_SIG = types.int64(_F1, _F1, _F2, _F2, _B1, types.int64, _U1, _F1)
#: on_record(params, state, arm_state, stats, arm, reward) -> None
RECORD_SIG = types.none(_F1, _F1, _F2, _F2, types.int64, types.float64)


class Kernel(WrapperAddressProtocol):
    """A compiled function of a fixed signature, passed to compiled code as a first-class function.

    fn: a numba ``njit`` function (compiled here for ``sig``, or loaded from numba's disk cache).
    The value is the address of its C wrapper; numba types it as ``FunctionType(sig)``, so a loop
    taking it is compiled for the signature, not for the function.
    """

    def __init__(self, fn, sig):
        fn.compile(sig)
        self.fn, self.sig = fn, sig
        self._address = _get_wrapper_address(fn, sig)
        self.numba_type = types.FunctionType(sig)

    def __wrapper_address__(self) -> int:
        return self._address

    def signature(self):
        return self.sig

    def __repr__(self) -> str:
        return f"Kernel({getattr(self.fn, '__name__', self.fn)!r})"


class PolicyKernels(NamedTuple):
    """A policy's kernels (module docstring); ``has_init`` / ``has_record`` skip the no-op ones;
    ``hands_down``: the policy reads what its parent's policy handed down (:func:`handed_down`)."""

    init: Any
    select: Any
    on_record: Any
    has_init: bool
    has_record: bool
    hands_down: bool = False


# numba types an argument on every call from Python; building a FunctionType (and the named tuple
# around three of them) each time cost about 30 us per call, a third of a Python-driven search
# iteration, so both types are made once and looked up.
_PK_TYPES: dict[int, tuple] = {}


@typeof_impl.register(Kernel)
def _typeof_kernel(val, c):
    return val.numba_type


@typeof_impl.register(PolicyKernels)
def _typeof_policy_kernels(val, c):
    hit = _PK_TYPES.get(id(val))
    if hit is None or hit[0] is not val:
        nbtype = types.NamedTuple([val.init.numba_type, val.select.numba_type, val.on_record.numba_type,
                                   types.boolean, types.boolean, types.boolean], PolicyKernels)
        hit = _PK_TYPES[id(val)] = (val, nbtype)
    return hit[1]


def handed_down(pk):  # pragma: no cover - compiled only (overload below)
    """True when the policy ``pk`` declares ``hands_down`` (a Policy class attribute): a tree then
    writes, before the policy selects at a node other than the root, the node's own per-arm state
    row 0 (what its parent's policy wrote for it, e.g. SHOT's budget of the child) to the node's
    state[0] (treepolicies.mcts.tree._select_in); the policy's init sets state[0] for the root."""
    raise NotImplementedError


@overload(handed_down, prefer_literal=True, inline="always")
def _handed_down_impl(pk):
    if isinstance(pk, types.StringLiteral):
        from bandits.static import static_hands_down

        flag = static_hands_down(pk.literal_value)
        return lambda pk: flag
    return lambda pk: pk.hands_down


def _init(pk, params, state, arm_state, valid):  # pragma: no cover - compiled only (overloads below)
    raise NotImplementedError


def _select(pk, params, state, arm_state, stats, valid, t, rng, work):  # pragma: no cover
    raise NotImplementedError


def _on_record(pk, params, state, arm_state, stats, arm, reward):  # pragma: no cover
    raise NotImplementedError


@overload(_init, prefer_literal=True, inline="always")
def _init_impl(pk, params, state, arm_state, valid):
    if isinstance(pk, types.StringLiteral):
        return lambda pk, params, state, arm_state, valid: static_init(pk, params, state, arm_state, valid)

    def through_value(pk, params, state, arm_state, valid):
        if pk.has_init:
            pk.init(params, state, arm_state, valid)
    return through_value


@overload(_select, prefer_literal=True, inline="always")
def _select_impl(pk, params, state, arm_state, stats, valid, t, rng, work):
    if isinstance(pk, types.StringLiteral):
        return lambda pk, params, state, arm_state, stats, valid, t, rng, work: static_select(
            pk, params, state, arm_state, stats, valid, np.int64(t), rng, work)
    return lambda pk, params, state, arm_state, stats, valid, t, rng, work: pk.select(
        params, state, arm_state, stats, valid, np.int64(t), rng, work)


# (not inline="always": an IR-inlined overload here made numba 0.68 drop the write that follows the
# tree's backup loop, the root's own count; as a called function LLVM still inlines it)
@overload(_on_record, prefer_literal=True)
def _on_record_impl(pk, params, state, arm_state, stats, arm, reward):
    if isinstance(pk, types.StringLiteral):
        return lambda pk, params, state, arm_state, stats, arm, reward: static_record(
            pk, params, state, arm_state, stats, arm, reward)

    def through_value(pk, params, state, arm_state, stats, arm, reward):
        record(stats, arm, reward)
        if pk.has_record:
            pk.on_record(params, state, arm_state, stats, np.int64(arm), np.float64(reward))
    return through_value


@nb.njit(cache=True, inline="always")
def init_row(pk, params, state, arm_state, valid):
    """Initial policy state of one bandit."""
    _init(pk, params, state, arm_state, valid)


@nb.njit(cache=True, inline="always")
def select_row(pk, params, state, arm_state, stats, valid, t, rng, work):
    """Arm index (0..K-1) that the policy pulls next in this bandit (t: any number, passed as int64)."""
    return _select(pk, params, state, arm_state, stats, valid, t, rng, work)


@nb.njit(cache=True, inline="always")
def record_row(pk, params, state, arm_state, stats, arm, reward):
    """Record a pull of ``arm`` with ``reward``: shared statistics, then the policy's own state."""
    _on_record(pk, params, state, arm_state, stats, arm, reward)


@nb.njit(cache=True)
def init_batch(pk, params, state, arm_state, valid):
    """init_row for every bandit of a batch (state (B, S), arm_state (B, A, K), valid (B, K))."""
    for b in range(state.shape[0]):
        init_row(pk, params, state[b], arm_state[b], valid[b])


@nb.njit(cache=True)
def select_batch(pk, params, state, arm_state, stats, valid, t, rng, out):
    """out[b] = select_row(...) of bandit b (stats (B, NSTAT, K), t (B,)); a bad arm raises."""
    work = np.empty(stats.shape[2])
    for b in range(stats.shape[0]):
        arm = select_row(pk, params, state[b], arm_state[b], stats[b], valid[b], t[b], rng, work)
        if arm < 0 or arm >= stats.shape[2]:
            raise ValueError("the policy's select kernel returned an arm outside 0..K-1")
        out[b] = arm


@nb.njit(cache=True)
def record_batch(pk, params, state, arm_state, stats, t, arms, rewards):
    """record_row for every bandit of a batch, and t[b] += 1."""
    for b in range(stats.shape[0]):
        record_row(pk, params, state[b], arm_state[b], stats[b], arms[b], rewards[b])
        t[b] += 1
