"""Explicit, compiled random numbers: no global state anywhere.

Two kinds of randomness, both pure functions of what is passed in:

* A *stream*: xoshiro256** (Blackman & Vigna, 2018) whose state is a ``uint64[4]`` array that the
  caller owns and passes to every draw.  ``stream_state(seed, a, b)`` derives independent streams
  from a seed and up to two stream ids (e.g. task index, player) with SplitMix64, so that the
  stream of task ``i`` is the same whatever order or process runs it.
* *Counter-based* draws: ``counter_normal(seed, i, a, j)`` is a fixed function of its four integer
  arguments (SplitMix64 hashing, then the ziggurat).  The bandit testbeds use it for common random
  numbers: the reward of the j-th pull of arm a in task i does not depend on which policy pulls it.
  ``counter_key(seed, i, a)`` hashes the first three once, for ``keyed_normal(key, j)``.

All functions are numba-compiled and callable from Python and from other compiled code.
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

__all__ = [
    "Stream", "make_stream", "stream_state", "next_u64", "uniform", "normal", "randint",
    "gamma", "beta", "counter_uniform", "counter_normal", "counter_key", "keyed_uniform", "keyed_normal",
]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_TWO_M53 = 1.0 / 9007199254740992.0  # 2**-53


@nb.njit(cache=True, inline="always")
def _mix64(z):
    """SplitMix64 finaliser (Steele, Lea & Flood 2014): a bijective 64-bit hash."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True, _nrt=False)
def _key(seed, a, b):
    return _mix64(np.uint64(seed) + _GOLDEN * (_mix64(np.uint64(a) + _GOLDEN) ^ _mix64(np.uint64(b) * _M2 + _M1)))


@nb.njit(cache=True)
def stream_state(seed, a, b):
    """State of the stream for ``(seed, a, b)``: four SplitMix64 outputs of the mixed key.

    seed, a, b: non-negative integers.  Returns a fresh ``uint64[4]`` array (never all zero).
    """
    s = np.empty(4, dtype=np.uint64)
    x = _key(seed, a, b)
    for k in range(4):
        x = x + _GOLDEN
        s[k] = _mix64(x)
    if s[0] == 0 and s[1] == 0 and s[2] == 0 and s[3] == 0:  # pragma: no cover (probability 2**-256)
        s[0] = np.uint64(1)
    return s


@nb.njit(cache=True, inline="always")
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@nb.njit(cache=True, inline="always")
def next_u64(s):
    """Next 64-bit output of xoshiro256** and advance the state ``s`` (uint64[4]) in place."""
    result = _rotl(s[1] * np.uint64(5), 7) * np.uint64(9)
    t = s[1] << np.uint64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@nb.njit(cache=True, inline="always")
def uniform(s):
    """Uniform double in [0, 1) with 53 random bits."""
    return float(next_u64(s) >> np.uint64(11)) * _TWO_M53


@nb.njit(cache=True, inline="always")
def randint(s, n):
    """Uniform integer in 0 .. n-1 (n >= 1), by Lemire's multiply-shift on 32 random bits.

    The bias is below n / 2**32, negligible for the branching factors used here (n < 2**16).
    """
    r = next_u64(s) >> np.uint64(32)
    return np.int64((r * np.uint64(n)) >> np.uint64(32))


def _ziggurat_tables(n=128, r=3.442619855899, v=9.91256303526217e-3):
    """Layer edges x[0..n] and ratios x[i+1]/x[i] of the 128-layer normal ziggurat (Doornik 2005)."""
    x = np.zeros(n + 1)
    f = math.exp(-0.5 * r * r)
    x[0] = v / f
    x[1] = r
    for i in range(2, n):
        x[i] = math.sqrt(-2.0 * math.log(v / x[i - 1] + f))
        f = math.exp(-0.5 * x[i] * x[i])
    ratio = x[1:] / x[:-1]
    return x, ratio


_ZIG_X, _ZIG_RATIO = _ziggurat_tables()
_ZIG_R = 3.442619855899


@nb.njit(cache=True, _nrt=False)
def _normal_tail(s, negative):
    while True:
        x = math.log(1.0 - uniform(s)) / _ZIG_R
        y = math.log(1.0 - uniform(s))
        if -2.0 * y >= x * x:
            return x - _ZIG_R if negative else _ZIG_R - x


@nb.njit(cache=True, inline="always")
def _zig_layer(bits):
    """Layer (low 7 bits) and uniform u in [-1, 1) (high 53 bits) of one 64-bit draw."""
    return np.int64(bits & np.uint64(0x7F)), 2.0 * (float(bits >> np.uint64(11)) * _TWO_M53) - 1.0


@nb.njit(cache=True, _nrt=False)
def _zig_slow(bits, s):
    """The rare branches of one ziggurat attempt from ``bits``; (accepted, value), extra draws from s."""
    xs = _ZIG_X
    i, u = _zig_layer(bits)
    if i == 0:
        return True, _normal_tail(s, u < 0.0)
    x = u * xs[i]
    f0 = math.exp(-0.5 * (xs[i] * xs[i] - x * x))
    f1 = math.exp(-0.5 * (xs[i + 1] * xs[i + 1] - x * x))
    return f1 + uniform(s) * (f0 - f1) < 1.0, x


@nb.njit(cache=True, inline="always")
def normal(s):
    """Standard normal by the ziggurat method (Marsaglia & Tsang 2000; Doornik's ZIGNOR, 2005).

    One 64-bit draw gives the layer (7 bits) and a uniform u in [-1, 1) (53 bits); about 98.8% of
    draws return u * x[layer] at once, the rest go through an exact rejection step.
    """
    while True:
        bits = next_u64(s)
        i, u = _zig_layer(bits)
        if abs(u) < _ZIG_RATIO[i]:
            return u * _ZIG_X[i]
        accepted, x = _zig_slow(bits, s)
        if accepted:
            return x


@nb.njit(cache=True, _nrt=False)
def gamma(s, shape):
    """Gamma(shape, 1) by Marsaglia & Tsang (2000); shape < 1 via Gamma(shape+1) * U**(1/shape)."""
    if shape < 1.0:
        u = 1.0 - uniform(s)
        return gamma(s, shape + 1.0) * u ** (1.0 / shape)
    d = shape - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = normal(s)
        v = 1.0 + c * x
        if v <= 0.0:
            continue
        v = v * v * v
        u = 1.0 - uniform(s)
        if math.log(u) < 0.5 * x * x + d - d * v + d * math.log(v):
            return d * v


@nb.njit(cache=True, _nrt=False)
def beta(s, a, b):
    """Beta(a, b) as X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b)."""
    x = gamma(s, a)
    y = gamma(s, b)
    return x / (x + y)


@nb.njit(cache=True, _nrt=False)
def counter_key(seed, i, a):
    """The part of a counter-based draw's hash that depends on (seed, i, a) only.

    ``counter_uniform(seed, i, a, j) == keyed_uniform(counter_key(seed, i, a), j)`` and likewise
    for the normal: a caller drawing many j for the same (seed, i, a), such as the testbed runner
    (one key per task and arm), hashes the key once.
    """
    return _key(seed, i, a)


@nb.njit(cache=True, inline="always")
def _counter_hash(key, j):
    return _mix64(np.uint64(key) ^ _mix64(np.uint64(j) * _GOLDEN + _M2))


@nb.njit(cache=True, inline="always")
def keyed_uniform(key, j):
    """Uniform in (0, 1), a fixed function of ``key`` (from :func:`counter_key`) and j >= 0."""
    return (float(_counter_hash(key, j) >> np.uint64(11)) + 0.5) * _TWO_M53


@nb.njit(cache=True, inline="always")
def keyed_normal(key, j):
    """Standard normal, a fixed function of ``key`` (from :func:`counter_key`) and j >= 0.

    The hash is the first draw of the ziggurat (:func:`normal`); in the rare case it is not
    accepted at once, the draw goes on with the stream seeded by that hash, so the value is still a
    pure function of the arguments and exactly N(0, 1).
    """
    h = _counter_hash(key, j)
    layer, u = _zig_layer(h)
    if abs(u) < _ZIG_RATIO[layer]:
        return u * _ZIG_X[layer]
    return _keyed_normal_tail(h)


@nb.njit(cache=True)
def _keyed_normal_tail(h):
    s = stream_state(h, np.uint64(0), np.uint64(0))
    accepted, x = _zig_slow(h, s)
    return x if accepted else normal(s)


@nb.njit(cache=True, _nrt=False)
def counter_uniform(seed, i, a, j):
    """Uniform in (0, 1), a fixed function of the four non-negative integers (no state)."""
    return keyed_uniform(_key(seed, i, a), j)


@nb.njit(cache=True)  # (keeps numba's runtime: its rare tail draw seeds a stream, an allocation)
def counter_normal(seed, i, a, j):
    """Standard normal, a fixed function of (seed, i, a, j): :func:`keyed_normal` of the hashed key."""
    return keyed_normal(_key(seed, i, a), j)


class Stream:
    """A random stream owned by the caller: wraps the ``uint64[4]`` state that compiled code advances.

    ``Stream(seed, a=0, b=0)`` gives the stream for ``(seed, a, b)``; the same arguments give the
    same numbers.  ``Stream.state`` is the array to pass to compiled functions.
    """

    __slots__ = ("state",)

    def __init__(self, seed: int = 0, a: int = 0, b: int = 0):
        for name, value in (("seed", seed), ("a", a), ("b", b)):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
                raise ValueError(f"{name} must be a non-negative integer, got {value!r}")
        self.state = stream_state(np.uint64(seed), np.uint64(a), np.uint64(b))

    def spawn(self) -> "Stream":
        """An independent child stream seeded from this one's next output (advances this one)."""
        child = Stream.__new__(Stream)
        child.state = stream_state(np.uint64(next_u64(self.state)), np.uint64(0), np.uint64(0))
        return child

    def random(self) -> float:
        return uniform(self.state)


def make_stream(rng) -> Stream:
    """A :class:`Stream` from an int seed, a ``numpy.random.Generator`` or a Stream (returned as is).

    An int gives a fresh stream each call (the same int, the same numbers); a Generator is advanced
    by one draw, so successive calls give different streams.
    """
    if isinstance(rng, Stream):
        return rng
    if isinstance(rng, np.random.Generator):
        return Stream(int(rng.integers(0, 2**63 - 1)))
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_)):
        return Stream(int(rng))
    raise ValueError(f"rng must be an int seed, a numpy.random.Generator or a bandits.rng.Stream, got {type(rng).__name__}")
