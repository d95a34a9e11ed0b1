"""Compiled helpers shared by the selection kernels: untried arms first, argmax with random ties.

Index policies (:mod:`bandits.index`) write one score per arm into a scratch vector, +inf for an
untried valid arm and -inf for an invalid one, keeping the running maximum; then :func:`pick_max`
returns the best arm with exact ties broken uniformly at random.  So "untried arms first, chosen
uniformly at random, and ties at random" is one rule, written once; :func:`gated` is the same rule
for the policies that score every arm themselves (Thompson sampling, epsilon-greedy).
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

from bandits.rng import randint
from bandits.stats import ISQRT, MEAN

@nb.njit(cache=True, inline="always")
def gated(score, count, valid):
    """+inf for an untried valid arm, -inf for an invalid arm, else ``score``."""
    s = np.inf if count == 0.0 else score
    return s if valid else -np.inf


@intrinsic
def fmax(typingctx, a, b):
    """max(a, b) of two float64 that are never NaN, as LLVM's ``maxnum`` with the no-NaN flag.

    A loop that keeps ``best = fmax(best, score)`` compiles to SIMD code (a vector maximum and one
    horizontal reduction at the end); written as ``best = s if s > best else best`` it stays a
    scalar compare-and-select chain, because numba cannot give that select the no-NaN flag LLVM
    needs to reorder the comparisons.  Scores are never NaN here: :func:`gated` turns untried arms
    into +inf before 0 * inf could arise, and rewards are checked finite by ``Policy.update``.
    """
    sig = types.float64(types.float64, types.float64)

    def codegen(context, builder, signature, args):
        double = ir.DoubleType()
        fn = builder.module.declare_intrinsic("llvm.maxnum", [double], ir.FunctionType(double, [double, double]))
        return builder.call(fn, args, fastmath=("nnan", "nsz"))

    return sig, codegen


@nb.njit(cache=True, inline="always")
def pick_max(work, best, rng):
    """Index of an entry of ``work`` equal to ``best`` (its maximum), ties broken uniformly at random.

    A branch-free pass counts the ties (SIMD code); a scan stops at the first maximum.  Only a tie
    costs a random draw and a scan to the chosen one.  Index policies compute ``best`` while they
    write their scores (one fused pass).
    """
    ties = 0
    for i in range(work.shape[0]):
        ties += work[i] == best
    first = 0
    while work[first] != best:
        first += 1
    if ties <= 1:
        return first
    j = randint(rng, ties)
    for i in range(first, work.shape[0]):
        if work[i] == best:
            if j == 0:
                return i
            j -= 1
    return first  # pragma: no cover (j < ties)


@nb.njit(cache=True, inline="always")
def mean_plus_bonus(stats, i, k, p):
    """U_i = w_i + k * t_i^(-p/2), p in {0, 1/2, 1}, for a tried arm i (stats: an (NSTAT, K) view).

    The index shape shared by UCB1 (k = c sqrt(ln t), p = 1), Gaussian KL-UCB
    (k = sigma sqrt(2 (log t + c log log t)), p = 1) and modified improved UCB (p = 0, 1/2, 1);
    t_i^(-1/2) is the cached ISQRT row, so p = 1 costs one multiply-add per arm.
    """
    isq = stats[ISQRT, i]
    scale = isq if p == 1.0 else (1.0 if p == 0.0 else math.sqrt(isq))
    return stats[MEAN, i] + k * scale


@nb.njit(cache=True)
def argmax_random(work, rng):
    """Index of the largest entry of ``work``, exact ties broken uniformly at random.

    Invalid arms must be gated to -inf and at least one arm must be valid (every caller guarantees it).
    """
    best = -np.inf
    for i in range(work.shape[0]):
        best = fmax(best, work[i])
    return pick_max(work, best, rng)


@nb.njit(cache=True)
def n_valid(valid):
    """Number of valid arms."""
    k = 0
    for i in range(valid.shape[0]):
        if valid[i]:
            k += 1
    return k
