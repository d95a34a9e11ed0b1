"""Every index policy's mean regret equals an independent numpy re-implementation of its formula.

Scenarios of Garivier & Cappe (2011), "The KL-UCB algorithm for bounded stochastic bandits and
beyond", section 6: a two-armed Bernoulli bandit (0.9, 0.8), and their 10-arm scenario (means
0.1, 0.05 x 3, 0.02 x 3, 0.01 x 3).  The library runs the policy on the Bernoulli testbed with
these means (``testbeds.run_testbed``: its compiled kernels, counter-based rewards); the reference
below writes each formula again in numpy, vectorised over the runs, with numpy's own random
numbers.  The two estimates of the mean pseudo-regret are independent, so at every checkpoint
they must agree within 4 standard errors of their difference, sqrt(se_lib^2 + se_ref^2).  And KL-UCB,
KL-UCB+, Bayes-UCB and Thompson sampling end below UCB1 (their known ordering on these scenarios).

The issue's size (2000 runs, horizon 10 000, checkpoints 1000, 5000, 10 000) takes many minutes
here (the Bernoulli KL-UCB and Bayes-UCB indices cost about a microsecond per arm): it is the test
marked slow (``pytest --slow``).  The default run is the same test at 300 runs, horizon 2000.
"""
import math

import numpy as np
import pytest
from scipy.special import betaincinv

from testbeds.runner import run_testbed
from testbeds.testbed import BernoulliTestbed

SCENARIOS = {"two_arms": (0.9, 0.8),
             "klucb_10_arms": (0.1, 0.05, 0.05, 0.05, 0.02, 0.02, 0.02, 0.01, 0.01, 0.01)}
SIZES = {"fast": (300, 2000, (200, 1000, 2000)),
         "full": (2000, 10_000, (1000, 5000, 10_000))}
BELOW_UCB1 = ("klucb", "klucb:plus=true", "bayesucb", "thompson")


# -- the formulas again, in numpy: n pulls, s reward sums, q sums of squares, (runs, K); t plays so far

def kl(p, q):
    """Bernoulli Kullback-Leibler divergence, elementwise (0 log 0 = 0)."""
    q = np.clip(q, 1e-15, 1 - 1e-15)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(p > 0, p * np.log(p / q), 0.0)
        b = np.where(p < 1, (1 - p) * np.log((1 - p) / (1 - q)), 0.0)
    return a + b


def kl_upper(p, level):
    """max{q in [p, 1] : kl(p, q) <= level}: 10 bisection steps, then Newton from the upper end of the
    bracket (kl(p, .) is convex and increasing on [p, 1], so Newton from the right stays right)."""
    lo, hi = p.copy(), np.ones_like(p)
    for _ in range(10):
        mid = 0.5 * (lo + hi)
        below = kl(p, mid) <= level
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    q = hi
    for _ in range(8):
        f = kl(p, q) - level
        slope = (q - p) / np.maximum(q * (1 - q), 1e-300)
        step = np.where((f > 0) & (slope > 0), f / np.where(slope > 0, slope, 1.0), 0.0)
        q = np.maximum(q - step, p)
    return np.where(kl(p, np.ones_like(p)) <= level, 1.0, q)


def ucb1(n, s, q, t, k, T):
    return s / n + np.sqrt(2 * math.log(t) / n)


def ucb1tuned(n, s, q, t, k, T):
    w = s / n
    v = q / n - w * w + np.sqrt(2 * math.log(t) / n)
    return w + np.sqrt(math.log(t) / n * np.minimum(0.25, np.maximum(v, 0)))


def ucbv(n, s, q, t, k, T):  # b = zeta = c = 1
    w = s / n
    v = np.maximum(q / n - w * w, 0)
    return w + np.sqrt(2 * v * math.log(t) / n) + 3 * math.log(t) / n


def moss(n, s, q, t, k, T):
    return s / n + np.sqrt(np.maximum(0, np.log(T / (k * n))) / n)


def moss_anytime(n, s, q, t, k, T):
    return s / n + np.sqrt(np.maximum(0, np.log(t / (k * n))) / n)


def klucb(n, s, q, t, k, T):
    return kl_upper(s / n, math.log(t) / n)


def klucb_plus(n, s, q, t, k, T):
    return kl_upper(s / n, np.maximum(0, np.log(t / n)) / n)


def bayesucb(n, s, q, t, k, T):
    return betaincinv(1 + s, 1 + n - s, 1 - 1 / t)


INDEX = {"ucb1": ucb1, "ucb1tuned": ucb1tuned, "ucbv": ucbv, "moss": moss, "moss:anytime=true": moss_anytime,
         "klucb": klucb, "klucb:plus=true": klucb_plus, "bayesucb": bayesucb}


def argmax_random(u, gen):
    """Row-wise argmax, exact ties uniformly at random."""
    top = u == u.max(axis=1, keepdims=True)
    return np.argmax(top * gen.random(u.shape), axis=1)


def simulate(spec, means, runs, horizon, checks, seed):
    """(mean, standard error) of the pseudo-regret over ``runs`` runs at each checkpoint."""
    gen = np.random.default_rng(seed)
    mu = np.asarray(means)
    k, gaps, rows = mu.size, mu.max() - mu, np.arange(runs)
    n, s, q = np.zeros((runs, k)), np.zeros((runs, k)), np.zeros((runs, k))
    gamma, xi, window = 0.99, 0.6, 500          # ducb:gamma=0.99 and swucb:window=500 (xi = 0.6, b = 1)
    dn, ds = np.zeros((runs, k)), np.zeros((runs, k))            # discounted / windowed pulls and sums
    ring_arm, ring_x = np.full((runs, window), -1), np.zeros((runs, window))
    regret, out = np.zeros(runs), []
    for t in range(horizon):
        if spec.startswith("ducb") or spec.startswith("swucb"):
            with np.errstate(divide="ignore", invalid="ignore"):
                if spec.startswith("ducb"):
                    u = ds / dn + 2 * np.sqrt(xi * np.log(np.maximum(dn.sum(1, keepdims=True), 1)) / dn)
                else:
                    u = ds / dn + np.sqrt(xi * math.log(max(min(t, window), 1)) / dn)
            arm = argmax_random(np.where(dn == 0, np.inf, u), gen)
        elif t < k:
            arm = np.full(runs, t)  # every arm once (the library: untried arms first)
        else:
            arm = argmax_random(INDEX[spec](n, s, q, t, k, horizon), gen)
        x = (gen.random(runs) < mu[arm]).astype(float)
        n[rows, arm] += 1
        s[rows, arm] += x
        q[rows, arm] += x * x
        if spec.startswith("ducb"):
            dn *= gamma
            ds *= gamma
            dn[rows, arm] += 1
            ds[rows, arm] += x
        elif spec.startswith("swucb"):
            slot = t % window
            old = ring_arm[:, slot]
            leaving = old >= 0
            dn[rows[leaving], old[leaving]] -= 1
            ds[rows[leaving], old[leaving]] -= ring_x[leaving, slot]
            ring_arm[:, slot], ring_x[:, slot] = arm, x
            dn[rows, arm] += 1
            ds[rows, arm] += x
        regret += gaps[arm]
        if t + 1 in checks:
            out.append((regret.mean(), regret.std(ddof=1) / math.sqrt(runs)))
    return out


SPECS = list(INDEX) + ["ducb:gamma=0.99", "swucb:window=500"]


def check_scenario(scenario, size):
    runs, horizon, checks = SIZES[size]
    means = SCENARIOS[scenario]
    testbed = BernoulliTestbed(n_tasks=runs, n_arms=len(means), means=means, seed=7)
    result = run_testbed(SPECS + ["thompson"], testbed, horizon, seed=3, progress=False)
    final = {}
    for p, spec in enumerate(SPECS + ["thompson"]):
        lib = result.curves["pseudo_regret"][p]
        lib_se = result.curves["pseudo_regret_se"][p]
        final[spec] = lib[-1]
        if spec == "thompson":
            continue
        ref = simulate(spec, means, runs, horizon, checks, seed=11)
        for check, (mean, se) in zip(checks, ref):
            bound = 4 * math.hypot(lib_se[check - 1], se)
            assert abs(lib[check - 1] - mean) <= bound, (spec, check, lib[check - 1], mean, bound)
    for spec in BELOW_UCB1:
        assert final[spec] < final["ucb1"], (spec, final[spec], final["ucb1"])
    return final


@pytest.mark.slow  # (a testbed loop compiled for each index policy: a minute on a fresh clone)
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_index_policies_equal_their_numpy_formulas(scenario):
    check_scenario(scenario, "fast")


@pytest.mark.slow
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_index_policies_equal_their_numpy_formulas_full_size(scenario):
    final = check_scenario(scenario, "full")
    print(scenario, {k: round(float(v), 2) for k, v in final.items()})
