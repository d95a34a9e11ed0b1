"""CPU atomics and a spinlock for compiled code running in several threads (tree parallelism).

numba has no CPU atomics of its own, so these are LLVM instructions emitted through
``numba.extending.intrinsic`` (llvmlite's ``atomicrmw``, ``cmpxchg``, ``load atomic``), all
sequentially consistent (``seq_cst``: a full barrier for the compiler and the CPU), on one element
of an int32 or int64 array:

    atomic_add(a, i, v) -> old      a[i] += v, returns the value before
    atomic_cas(a, i, expected, new) -> old    a[i] = new if a[i] == expected; returns the value seen
    atomic_xchg(a, i, v) -> old     a[i] = v, returns the value before
    atomic_load(a, i) -> value      a load no compiler may hoist out of a loop

A spinlock is one int32 word, 0 free and 1 held: :func:`lock` tries ``cas(0 -> 1)`` and, while the
word is held, waits reading it (test-and-test-and-set: the waiting core does not take the line
from the holder on every try; yielding
the core with ``sched_yield`` after a few hundred failed tries, so that a thread whose lock holder
was descheduled on a busy machine does not burn its time slice), :func:`unlock` writes 0 with
``xchg`` (a release).  Code between them sees every write made under the same lock before.

These functions are compiled into their callers (numba intrinsics), cached on disk with them, and
never take the GIL.
"""
from __future__ import annotations

import numba as nb
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

__all__ = ["atomic_add", "atomic_cas", "atomic_xchg", "atomic_load", "lock", "unlock", "cpu_yield"]

#: failed lock attempts before the spinning thread yields its core (sched_yield)
SPINS_BEFORE_YIELD = 200


def _element_pointer(context, builder, arrty, arr, idx):
    ary = context.make_array(arrty)(context, builder, arr)
    return cgutils.get_item_pointer(context, builder, arrty, ary, [idx], wraparound=False)


def _check(arr):
    if not isinstance(arr, types.Array) or arr.ndim != 1 or arr.dtype not in (types.int32, types.int64):
        raise nb.core.errors.TypingError(f"atomics work on 1-D int32 or int64 arrays, got {arr}")


@intrinsic
def atomic_add(typingctx, arr, idx, val):
    """a[i] += v atomically; returns the old value (module docstring)."""
    _check(arr)
    sig = arr.dtype(arr, types.intp, arr.dtype)

    def codegen(context, builder, signature, args):
        a, i, v = args
        i = context.cast(builder, i, signature.args[1], types.intp)
        ptr = _element_pointer(context, builder, signature.args[0], a, i)
        return builder.atomic_rmw("add", ptr, v, "seq_cst")
    return sig, codegen


@intrinsic
def atomic_xchg(typingctx, arr, idx, val):
    """a[i] = v atomically; returns the old value."""
    _check(arr)
    sig = arr.dtype(arr, types.intp, arr.dtype)

    def codegen(context, builder, signature, args):
        a, i, v = args
        ptr = _element_pointer(context, builder, signature.args[0], a, i)
        return builder.atomic_rmw("xchg", ptr, v, "seq_cst")
    return sig, codegen


@intrinsic
def atomic_cas(typingctx, arr, idx, expected, new):
    """a[i] = new if a[i] == expected, atomically; returns the value a[i] held (== expected: success)."""
    _check(arr)
    sig = arr.dtype(arr, types.intp, arr.dtype, arr.dtype)

    def codegen(context, builder, signature, args):
        a, i, e, n = args
        ptr = _element_pointer(context, builder, signature.args[0], a, i)
        pair = builder.cmpxchg(ptr, e, n, "seq_cst", "seq_cst")
        return builder.extract_value(pair, 0)
    return sig, codegen


@intrinsic
def atomic_load(typingctx, arr, idx):
    """a[i], read with a sequentially consistent atomic load."""
    _check(arr)
    sig = arr.dtype(arr, types.intp)

    def codegen(context, builder, signature, args):
        a, i = args
        ptr = _element_pointer(context, builder, signature.args[0], a, i)
        width = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
        return builder.load_atomic(ptr, "seq_cst", width)
    return sig, codegen


@intrinsic
def cpu_yield(typingctx):
    """Give up the core (POSIX sched_yield; a no-op return value of 0 is ignored)."""
    sig = types.int32()

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(32), [])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "sched_yield")
        return builder.call(fn, [])
    return sig, codegen


@nb.njit(cache=True, nogil=True)
def lock(locks, i):
    """Take spinlock ``locks[i]`` (int32 array; 0 free, 1 held)."""
    spins = 0
    while atomic_cas(locks, i, 0, 1) != 0:
        while atomic_load(locks, i) != 0:  # test-and-test-and-set: wait with plain reads of the cache line
            spins += 1
            if spins >= SPINS_BEFORE_YIELD:
                cpu_yield()
                spins = 0


@nb.njit(cache=True, nogil=True)
def unlock(locks, i):
    """Release spinlock ``locks[i]``."""
    atomic_xchg(locks, i, 0)
