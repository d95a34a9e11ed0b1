"""bandits.borrow: the loop's arrays without reference counting, writes kept."""
from typing import NamedTuple

import numba as nb
import numpy as np
from numba.extending import overload

from bandits.borrow import borrowed


class Pair(NamedTuple):
    a: np.ndarray
    b: np.ndarray


def _bump(p, i):  # pragma: no cover - compiled only
    raise NotImplementedError


@overload(_bump, inline="always")  # (inlined after typing, as the loop's steps are)
def _bump_impl(p, i):
    def impl(p, i):
        p.b[i] += 1  # p.b is a temporary that dies here: only the alias of p keeps the write
    return impl


@nb.njit
def _through_borrowed(p, n):
    q = borrowed(p)
    for i in range(n):
        _bump(q, i % 3)
    return q.a[0]


@nb.njit
def _same_memory(x):
    y = borrowed(x)
    y[1] = 7.0
    return y.shape[0], y.strides[0], y[2]


def test_a_borrowed_array_is_the_same_memory():
    x = np.array([1.0, 2.0, 3.0])
    assert _same_memory(x) == (3, 8, 3.0)
    assert x.tolist() == [1.0, 7.0, 3.0]


def test_writes_through_a_borrowed_record_inside_an_inlined_function_land():
    # numba's dead-code pass drops a write through an array that aliases no argument; without the
    # alias declared for borrowed() the 7 increments below vanished (as the tree-parallel descent's
    # pending counts did): b = [3, 2, 2] for i % 3 over i = 0..6
    p = Pair(np.array([5.0]), np.zeros(3, np.int32))
    assert _through_borrowed(p, 7) == 5.0
    assert p.b.tolist() == [3, 2, 2]
