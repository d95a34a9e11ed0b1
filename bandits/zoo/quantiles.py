"""Compiled quantile functions for Bayes-UCB: the standard normal and the Beta distribution.

    normal_quantile(p)        Phi^{-1}(p), Wichura's algorithm AS 241 (PPND16, 1988), relative
                              error about 1e-16; -inf / +inf at p = 0 / 1
    beta_cdf(x, a, b)         regularized incomplete beta I_x(a, b), by the continued fraction of
                              Numerical Recipes (Press et al., 3rd ed., section 6.4, modified Lentz),
                              with the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) for fast convergence
    beta_quantile(p, a, b)    x with I_x(a, b) = p: Halley steps kept inside a bisection bracket,
                              to about 1e-12 in x
"""
from __future__ import annotations

import math

import numba as nb


@nb.njit(cache=True)
def normal_quantile(p):
    """Phi^{-1}(p) (AS 241)."""
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return math.inf
    q = p - 0.5
    if abs(q) <= 0.425:
        r = 0.180625 - q * q
        num = (((((((2509.0809287301226727 * r + 33430.575583588128105) * r + 67265.770927008700853) * r
                   + 45921.953931549871457) * r + 13731.693765509461125) * r + 1971.5909503065514427) * r
                + 133.14166789178437745) * r + 3.387132872796366608)
        den = (((((((5226.495278852545925 * r + 28729.085735721942674) * r + 39307.89580009271061) * r
                   + 21213.794301586595867) * r + 5394.1960214247511077) * r + 687.1870074920579083) * r
                + 42.313330701600911252) * r + 1.0)
        return q * num / den
    r = p if q < 0.0 else 1.0 - p
    r = math.sqrt(-math.log(r))
    if r <= 5.0:
        r -= 1.6
        num = (((((((7.7454501427834140764e-4 * r + 0.0227238449892691845833) * r + 0.24178072517745061177) * r
                   + 1.27045825245236838258) * r + 3.64784832476320460504) * r + 5.7694972214606914055) * r
                + 4.6303378461565452959) * r + 1.42343711074968357734)
        den = (((((((1.05075007164441684324e-9 * r + 5.475938084995344946e-4) * r + 0.0151986665636164571966) * r
                   + 0.14810397642748007459) * r + 0.68976733498510000455) * r + 1.6763848301838038494) * r
                + 2.05319162663775882187) * r + 1.0)
    else:
        r -= 5.0
        num = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r + 0.0012426609473880784386) * r
                   + 0.026532189526576123093) * r + 0.29656057182850489123) * r + 1.7848265399172913358) * r
                + 5.4637849111641143699) * r + 6.6579046435011037772)
        den = (((((((2.04426310338993978564e-15 * r + 1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r
                   + 7.868691311456132591e-4) * r + 0.0148753612908506148525) * r + 0.13692988092273580531) * r
                + 0.59983220655588793769) * r + 1.0)
    x = num / den
    return -x if q < 0.0 else x


@nb.njit(cache=True)
def _beta_cf(x, a, b):
    """Continued fraction of I_x(a, b) (Numerical Recipes betacf), modified Lentz."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = tiny if abs(d) < tiny else d
    d = 1.0 / d
    h = d
    for m in range(1, 10_000):
        m2 = 2.0 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = tiny if abs(d) < tiny else d
        c = 1.0 + aa / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


@nb.njit(cache=True)
def _log_beta(a, b):
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


@nb.njit(cache=True)
def beta_cdf(x, a, b):
    """I_x(a, b) for a, b > 0 (0 at x <= 0, 1 at x >= 1)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(a * math.log(x) + b * math.log1p(-x) - _log_beta(a, b))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_cf(x, a, b) / a
    return 1.0 - front * _beta_cf(1.0 - x, b, a) / b


@nb.njit(cache=True)
def beta_quantile(p, a, b):
    """x in [0, 1] with I_x(a, b) = p, to about 1e-12 (a, b > 0).

    Halley steps (the density and its derivative are closed forms) from the normal approximation,
    kept inside a bisection bracket (a step that leaves it bisects instead); once the Newton step
    is below 1e-9 the next point is returned (its error is of the order of that step squared at
    worst), so a typical quantile costs 3 or 4 evaluations of I_x.
    """
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    lo, hi = 0.0, 1.0
    lb = _log_beta(a, b)
    mean = a / (a + b)
    sd = math.sqrt(a * b / ((a + b) * (a + b) * (a + b + 1.0)))
    x = min(max(mean + normal_quantile(p) * sd, 1e-6 * mean), 1.0 - 1e-6 * (1.0 - mean))
    for _ in range(200):
        f = beta_cdf(x, a, b) - p
        if f < 0.0:
            lo = x
        else:
            hi = x
        if f == 0.0 or hi - lo < 1e-12:
            return x
        dens = math.exp((a - 1.0) * math.log(x) + (b - 1.0) * math.log1p(-x) - lb)
        newton = f / dens if dens > 0.0 else math.inf
        curve = (a - 1.0) / x - (b - 1.0) / (1.0 - x)   # f'' / f'
        denom = 1.0 - 0.5 * newton * curve
        nxt = x - (newton / denom if 0.5 < denom < 2.0 else newton)   # Halley where it is sane
        if not (lo < nxt < hi):
            nxt, newton = 0.5 * (lo + hi), math.inf
        if abs(newton) < 1e-9:
            return nxt
        x = nxt
    return x
