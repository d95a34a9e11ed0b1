"""The games' hot kernels are compiled without numba's reference counting.

A compiled function that takes an array binds it to a variable, and numba counts a reference on
that binding (a call of ``NRT_incref`` / ``NRT_decref`` each: an atomic add on an owned array)
that its pruning pass often cannot remove (a loop with an early return is enough).  Called a few
times a ply (the move check, the point draw, the stone placement), those calls took about 60 %
of a random 9x9 Go playout's time (``perf`` on the compiled loop of benchmarks/playout_speed.py:
the atomic adds of ``NRT_incref`` and ``NRT_decref``).  So the kernels that allocate nothing are
compiled with ``_nrt=False`` (docs/architecture.md, the third rule that keeps the loop fast).
These tests compile a fresh copy of each kernel with its own options and read the LLVM IR numba
makes of it.
"""
from __future__ import annotations

import re

import numba as nb
import numpy as np
import pytest

from bandits.rng import stream_state
from treepolicies.games import board as bd
from treepolicies.games import go, nogo
from treepolicies.games.go import Go
from treepolicies.games.nogo import NoGo
from treepolicies.mcts import playout_policies as pp


def _cases():
    s, t = Go(5).state, NoGo(5).state
    r = stream_state(1, 0, 0)
    stats, params, plies, buf = np.zeros(64), np.ones(3), np.zeros(8, np.int64), np.zeros(8)
    p = int(bd.point_of(s, 6))
    return [(bd.go_playable, (s, p, 1)), (bd.place, (s, p, 1)), (bd.random_point, (s, r, 1, False, False, None)),
            (go.go_move_check, (s, 6)), (go.go_move_draw, (s, r)), (go.go_play, (s, 6)),
            (nogo.nogo_move_check, (t, 6)), (nogo.nogo_play, (t, 6)),
            (pp.lgrf1_propose, (stats, params, 25, plies, 1, 0, r, buf, 0)),
            (pp.mast_accept, (stats, params, 25, plies, 1, 0, 3, r, buf, 0))]


def _own_ir(fn, args, **options) -> str:
    """The LLVM IR of ``fn``'s own body (not its Python wrapper) in a fresh, uncached compilation
    of its Python function with its options (updated by ``options``) for the types of ``args``."""
    opts = {k: v for k, v in fn.targetoptions.items() if k not in ("cache", "nopython")}
    opts.update(options)
    fresh = nb.njit(**opts)(fn.py_func)
    sig = tuple(nb.typeof(a) for a in args)
    fresh.compile(sig)
    ir = fresh.inspect_llvm(fresh.signatures[0])
    name = fn.py_func.__name__
    own = []
    for part in ir.split("\ndefine ")[1:]:
        symbol = re.search(r"@([\w.$]+)\(", part.split("\n")[0]).group(1)
        if f"{len(name)}{name}" in symbol and not symbol.startswith(("cpython.", "cfunc.")):
            own.append(part)
    assert own, f"no IR function named {name}"
    return "\n".join(own)


_NAMES = [fn.py_func.__name__ for fn, _ in _cases()]  # (the cases built once for the test ids)


@pytest.mark.parametrize("case", range(len(_NAMES)), ids=_NAMES)
def test_a_hot_kernel_counts_no_references(case):
    fn, args = _cases()[case]
    assert fn.targetoptions.get("_nrt") is False
    ir = _own_ir(fn, args)
    assert "@NRT_incref" not in ir and "@NRT_decref" not in ir


def test_the_check_sees_the_counting_numba_adds_by_default():
    # the same kernel with numba's default (reference counting on) counts: go_playable binds
    # `state` and returns from inside its loop over the neighbours, which the pruning pass leaves
    fn, args = _cases()[0]
    ir = _own_ir(fn, args, _nrt=True)
    assert "call void @NRT_incref" in ir and "call void @NRT_decref" in ir
