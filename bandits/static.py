"""A policy's kernels compiled *into* a caller's loop, named by a text key (the testbed runner).

:class:`bandits.kernels.PolicyKernels` passes a policy to compiled code as function values: one
loop serves every policy.  A loop whose body is little more than the policy (the bandit testbed:
one selection, one reward, one record per play) runs faster with the policy's code compiled into
it, where numba and LLVM can fuse it with the loop (no call, no reference counting of the array
arguments: measured 1.5-2.5x on the paper's testbed).  Such a loop is a closure over the policy's
key (:attr:`bandits.registry.policy_key`); these three functions resolve the key at compile time
to the policy's own functions (the same source the function values are compiled from)::

    static_init(key, params, state, arm_state, valid)
    static_select(key, params, state, arm_state, stats, valid, t, rng, work) -> arm
    static_record(key, params, state, arm_state, stats, arm, reward)   (statistics, then on_record)

numba caches the closure on disk under the key (a text, the same in every process).
"""
from __future__ import annotations

import numba as nb
from numba.core import types
from numba.extending import overload

from bandits.stats import record

__all__ = ["static_init", "static_select", "static_record", "register_static"]

#: key -> dict(init=, select=, on_record=) of njit functions (None: none); filled by bandits.registry
_STATIC: dict[str, dict] = {}


def register_static(key: str, init, select, on_record, hands_down: bool = False) -> None:
    """Make ``key`` resolve to these njit functions (``select`` required; None for no init / on_record);
    ``hands_down``: the policy's flag (:func:`bandits.kernels.handed_down`)."""
    _STATIC[key] = {"init": init, "select": select, "on_record": on_record, "hands_down": bool(hands_down)}


def static_hands_down(key: str) -> bool:
    """The ``hands_down`` flag of the policy registered under ``key``."""
    return _STATIC[key].get("hands_down", False)


def _functions(key):
    if not isinstance(key, types.StringLiteral):
        raise nb.core.errors.TypingError(f"the policy key must be a compile-time string, got {key}")
    return _STATIC[key.literal_value]


def static_init(key, params, state, arm_state, valid):  # pragma: no cover - compiled only
    raise NotImplementedError


def static_select(key, params, state, arm_state, stats, valid, t, rng, work):  # pragma: no cover
    raise NotImplementedError


def static_record(key, params, state, arm_state, stats, arm, reward):  # pragma: no cover
    raise NotImplementedError


@overload(static_init, prefer_literal=True, inline="always")
def _static_init(key, params, state, arm_state, valid):
    fn = _functions(key)["init"]
    if fn is None:
        return lambda key, params, state, arm_state, valid: None
    return lambda key, params, state, arm_state, valid: fn(params, state, arm_state, valid)


@overload(static_select, prefer_literal=True, inline="always")
def _static_select(key, params, state, arm_state, stats, valid, t, rng, work):
    fn = _functions(key)["select"]
    return lambda key, params, state, arm_state, stats, valid, t, rng, work: fn(
        params, state, arm_state, stats, valid, t, rng, work)


@overload(static_record, prefer_literal=True, inline="always")
def _static_record(key, params, state, arm_state, stats, arm, reward):
    fn = _functions(key)["on_record"]
    if fn is None:
        def impl(key, params, state, arm_state, stats, arm, reward):
            record(stats, arm, reward)
        return impl

    def impl_record(key, params, state, arm_state, stats, arm, reward):
        record(stats, arm, reward)
        fn(params, state, arm_state, stats, arm, reward)
    return impl_record
