"""Borrowed arrays: the loop's arrays without reference counting, for the length of one compiled call.

numba counts a reference for every binding of an array (an atomic add on the array's meminfo, the
``NRT_incref`` / ``NRT_decref`` calls), and each function the loop inlines binds its arguments anew:
the tree and the scratch are records of a dozen arrays each, so every step of a descent bound and
released some thirty references, each an atomic instruction, and with threads on one tree the
atomics of all threads hit the same meminfo words (a shared cache line ping-ponged between cores).

:func:`borrowed` returns the same arrays (same data, shape and strides) with no meminfo: numba's
reference calls return at once on a null meminfo, so the counting costs a call and a test. The
arrays stay valid for as long as the caller holds the originals: the compiled entry points
(:mod:`treepolicies.mcts.loops`, :mod:`testbeds.runner`) borrow their arguments on entry and return
only numbers, so nothing borrowed outlives the call. Never return a borrowed array or store it
where it outlives its owner.

numba's dead-code pass drops a write through an array that may alias no argument of the function
(``numba.core.ir_utils.find_potential_aliases``); an intrinsic's result aliases nothing unless
declared, so this module declares ``borrowed(x)`` an alias of ``x`` (tests/test_borrow.py fails
without it, as the tree-parallel descent's pending counts were lost).

Measured (2-core machine, loaded; the loop's iterations per second before and after): Connect Four
plain UCT 2.1-2.5x, 9x9 Go 1.75x (docs/results/speed.md).

``borrowed(x)``: an array gives the array borrowed; a tuple or named tuple gives the same tuple type
with each array member borrowed (other members as they are, their references counted); anything
else is returned as it is.
"""
from __future__ import annotations

from numba import types
from numba.core import cgutils, ir_utils
from numba.extending import intrinsic

__all__ = ["borrowed"]


def _borrow_array(context, builder, ty, value):
    ary = context.make_array(ty)(context, builder, value=value)
    out = context.make_array(ty)(context, builder)
    for field in ("nitems", "itemsize", "data", "shape", "strides"):
        setattr(out, field, getattr(ary, field))
    out.meminfo = cgutils.get_null_value(out.meminfo.type)
    out.parent = cgutils.get_null_value(out.parent.type)
    return out._getvalue()


def _borrow(context, builder, ty, value):
    if isinstance(ty, types.Array):
        return _borrow_array(context, builder, ty, value)
    if isinstance(ty, types.BaseTuple):
        members = [_borrow(context, builder, t, builder.extract_value(value, i)) for i, t in enumerate(ty)]
        return context.make_tuple(builder, ty, members)
    context.nrt.incref(builder, ty, value)  # (returned as a new reference: counted like any other)
    return value


@intrinsic
def borrowed(typingctx, x):
    """``x`` with its arrays borrowed (module docstring); same type."""
    def codegen(context, builder, sig, args):
        return _borrow(context, builder, sig.args[0], args[0])
    return x(x), codegen


def _aliases(lhs, args, alias_map, arg_aliases):
    """numba's dead-code pass keeps a write through an array only if the array may alias an argument
    of the function (numba.core.ir_utils.find_potential_aliases): ``borrowed(x)`` aliases ``x``."""
    ir_utils._add_alias(lhs, args[0].name, alias_map, arg_aliases)


ir_utils.alias_func_extensions[("borrowed", __name__)] = _aliases
