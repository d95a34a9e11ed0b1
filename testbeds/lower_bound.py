"""The Lai & Robbins (1985) asymptotic lower bound on the regret of a consistent policy.

For fixed arm means mu_i with best mu* (Lai & Robbins 1985; Burnetas & Katehakis 1996),

    liminf_{t -> inf} E[R(t)] / ln t >= C = sum_{i : mu_i < mu*} (mu* - mu_i) / kl(mu_i, mu*)

with kl the Kullback-Leibler divergence of the reward family:
    Bernoulli  kl(p, q) = p ln(p/q) + (1-p) ln((1-p)/(1-q))
    Gaussian   kl(p, q) = (p - q)^2 / (2 sigma^2), so each term is 2 sigma^2 / (mu* - mu_i).

An asymptotic statement (a liminf), not a finite-time bound: at finite horizons the best policies
can be below C ln t.  Measured on the KL-UCB paper's 10-arm scenario (means 0.1, 0.05 x 3,
0.02 x 3, 0.01 x 3; C = 17.445, C ln 10^4 = 160.68), pseudo-regret at 10^4 plays over 2000 tasks:
KL-UCB 0.70 C ln t, KL-UCB+ 0.44 C ln t, Bayes-UCB 0.62 C ln t, Thompson 0.51 C ln t, UCB1 3.12
C ln t (95% intervals about +-0.005 C ln t), measured with

    banditree testbed --env bernoulli --means 0.1,0.05,0.05,0.05,0.02,0.02,0.02,0.01,0.01,0.01 \
        --tasks 2000 --horizon 10000 --seed 0 --policy klucb --policy klucb:plus=true \
        --policy bayesucb --policy ucb1 --policy thompson --out results/lai-robbins

(``pseudo_regret`` at step 10000 of ``summary.csv``, divided by C ln 10^4; at 10^3 plays KL-UCB is
at 0.36 C ln t).  So the bound is drawn on regret plots (and as a level on regret / ln t plots),
never asserted at a finite horizon.
"""
from __future__ import annotations


import numpy as np

__all__ = ["lai_robbins_constant", "constant_for"]


def _kl_bernoulli(p: float, q: float) -> float:
    """d(p, q) of Bernoulli laws: KL-UCB's own function (bandits.klucb.bernoulli_kl), one formula."""
    from bandits.klucb import bernoulli_kl

    return float(bernoulli_kl(float(p), float(q)))


def lai_robbins_constant(means, family: str = "bernoulli", sigma: float = 1.0) -> float:
    """C of the module docstring for the arm means ``means`` (``family`` "bernoulli" or "gaussian").

    Infinite when a suboptimal Bernoulli arm is beyond reach (mu* = 1: kl(mu_i, 1) is infinite, C
    counts 0 for that arm; mu* > mu_i always has a finite kl otherwise)."""
    mu = np.asarray(means, dtype=float)
    if mu.ndim != 1 or mu.size == 0 or not np.all(np.isfinite(mu)):
        raise ValueError(f"means must be a non-empty list of finite numbers, got {means!r}")
    best = float(mu.max())
    total = 0.0
    for m in mu:
        gap = best - float(m)
        if gap <= 0:
            continue
        if family == "bernoulli":
            if not 0.0 <= m <= 1.0 or best > 1.0:
                raise ValueError(f"Bernoulli means must lie in [0, 1], got {means!r}")
            if best >= 1.0:
                continue  # kl(m, 1) = inf: the term is 0
            total += gap / _kl_bernoulli(float(m), best)
        elif family == "gaussian":
            total += 2.0 * sigma * sigma / gap
        else:
            raise ValueError(f"family must be 'bernoulli' or 'gaussian', got {family!r}")
    return total


def constant_for(config: dict) -> float | None:
    """C for a results configuration whose testbed has one fixed set of means for every task
    (``config["testbed"]["arm_means"]``, Bernoulli or Gaussian), else None."""
    testbed = (config or {}).get("testbed", {})
    means = testbed.get("arm_means")
    if means is None or testbed.get("env") not in ("bernoulli", "gaussian"):
        return None
    return lai_robbins_constant(means, testbed["env"], float(testbed.get("reward_sd", 1.0)))
