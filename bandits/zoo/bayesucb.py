"""Bayes-UCB (Kaufmann, Cappe & Garivier 2012, "On Bayesian upper confidence bounds for bandit
problems", Algorithm 1): pull the arm whose posterior quantile of level

    p_t = 1 - 1 / (t (log T)^c)

is largest.  Posteriors (those of our Thompson sampling, bandits/thompson.py):

    prior="beta":      Beta(1 + S_i, 1 + t_i - S_i)                (Beta(1, 1) prior, rewards in [0, 1];
                       S_i clipped to [0, t_i])
    prior="gaussian":  N(S_i / (t_i + 1), sigma^2 / (t_i + 1))     (N(0, sigma^2) prior, known sigma), so
                       U_i = S_i / (t_i + 1) + Phi^{-1}(p_t) sigma / sqrt(t_i + 1)

S_i: reward sum of arm i, t_i its pulls, t the pulls of the bandit so far [the library's t, as in
UCB1 and KL-UCB; the paper's round index is t + 1], T the horizon (used only when c != 0; then
bound to a testbed's horizon or a search's budget).  c = 0 by default, as in the paper's
experiments (its theory takes c >= 5).  Untried arms first.  (log T)^c is taken as 1 where
T <= e [our guard: log T < 1 would make the level exceed 1 - 1/t].

The normal quantile is computed once per selection (AS 241), so the Gaussian form is an index
policy of one multiply-add per arm.  A Beta quantile costs about a microsecond
(:func:`bandits.zoo.quantiles.beta_quantile`), so the Beta form evaluates it lazily, with the
same result as evaluating every arm: each arm keeps the quantiles of its current posterior at the
levels p_{t0} and p_{1.1 t0} (computed when it was last pulled or when t passed 1.1 t0), a lower
and an upper bound of its index for t0 <= t <= 1.1 t0 (p_t increases with t); the exact index is then
computed only for the arms whose upper bound reaches the best index found, in decreasing order of
the bounds.  Arms left out are strictly below the maximum, so the arm chosen, ties at random
included, is the one the full evaluation chooses (tests/test_bandits_zoo_index.py checks it
against scipy at every play of a run; the regret is bit-identical to the full evaluation's).
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

import bandits
from bandits.stats import COUNT, SUM
from bandits.zoo.common import BindsHorizon, best_of, check_horizon
from bandits.zoo.quantiles import beta_quantile, normal_quantile

PRIORS = ("beta", "gaussian")


@nb.njit(cache=True)
def level(t, horizon, c):
    """p_t = 1 - 1 / (t (log T)^c), (log T)^c = 1 where c = 0 or T <= e; 0 at t = 0."""
    factor = math.log(horizon) ** c if c != 0.0 and horizon > math.e else 1.0
    return 1.0 - 1.0 / (max(t, 1) * factor) if t > 0 else 0.0


@nb.njit(cache=True)
def beta_index(stats, i, p):
    """Bayes-UCB (Kaufmann et al. 2012): the p quantile of Beta(1 + S_i, 1 + t_i - S_i)."""
    n = stats[COUNT, i]
    s = min(max(stats[SUM, i], 0.0), n)
    return beta_quantile(p, 1.0 + s, 1.0 + n - s)


_LO, _HI, _T0, _KEY = 0, 1, 2, 3  # arm_state rows: the index at t0, at SPAN t0; t0; the pulls it is for
#: how far ahead an arm's upper bound reaches (its bounds are refreshed once t > SPAN t0).  Measured
#: per task-play on 60 Bernoulli arms: 5.5 us with 1.1, 11 us with 2, 56 us evaluating every arm;
#: on the KL-UCB paper's 10 arms 4.3 us with 1.1 (7 us evaluating every arm)
SPAN = 1.1


@nb.njit(cache=True)
def beta_init(params, state, arm_state, valid):
    """No arm has cached bounds yet."""
    for i in range(arm_state.shape[1]):
        arm_state[_KEY, i] = -1.0


@nb.njit(cache=True)
def beta_select(params, state, arm_state, stats, valid, t, rng, work):
    """The arm of the largest p_t quantile, untried arms first, ties at random (module docstring)."""
    count = stats[COUNT]
    k = count.shape[0]
    untried = False
    for i in range(k):
        if valid[i] and count[i] == 0.0:
            untried = True
    if untried:
        for i in range(k):
            work[i] = np.inf if count[i] == 0.0 else -np.inf
        return best_of(work, valid, rng)
    p = level(t, params[3], params[2])
    floor = -np.inf   # the largest lower bound: no arm whose upper bound is below it can win
    for i in range(k):
        work[i] = -np.inf
        if not valid[i]:
            continue
        if arm_state[_KEY, i] != count[i] or t > SPAN * arm_state[_T0, i] or t < arm_state[_T0, i]:
            arm_state[_LO, i] = beta_index(stats, i, p)
            arm_state[_HI, i] = beta_index(stats, i, level(SPAN * max(t, 1), params[3], params[2]))
            arm_state[_T0, i] = t
            arm_state[_KEY, i] = count[i]
        if arm_state[_T0, i] == t:
            work[i] = arm_state[_LO, i]  # exact now
        floor = max(floor, arm_state[_LO, i])
    best = -np.inf
    for i in range(k):
        if work[i] > best:
            best = work[i]
    threshold = max(floor, best)
    while True:  # exact indices in decreasing order of the upper bounds that reach the threshold
        j, top = -1, -np.inf
        for i in range(k):
            if valid[i] and work[i] == -np.inf and arm_state[_HI, i] >= threshold and arm_state[_HI, i] > top:
                j, top = i, arm_state[_HI, i]
        if j < 0:
            break
        work[j] = beta_index(stats, j, p)
        threshold = max(threshold, work[j])
    return best_of(work, valid, rng)  # (an arm left at -inf is strictly below the maximum)


@nb.njit(cache=True)
def prepare_gaussian(params, state, valid, t):
    """sigma Phi^{-1}(p_t), once per selection."""
    return params[1] * normal_quantile(level(t, params[3], params[2]))


@nb.njit(cache=True)
def gaussian_index(stats, i, t, params, state, z):
    """Bayes-UCB, Gaussian: S_i / (t_i + 1) + sigma Phi^{-1}(p_t) / sqrt(t_i + 1)."""
    n1 = stats[COUNT, i] + 1.0
    return stats[SUM, i] / n1 + z / math.sqrt(n1)


@bandits.register_policy
class BayesUCB(BindsHorizon, bandits.Policy):
    """Bayes-UCB with a Beta(1,1) or a N(0, sigma^2) prior (module docstring).

    Parameters
    ----------
    prior : {"beta", "gaussian"}, default "beta"
    sigma : float > 0, default 1 (the Gaussian prior's known reward s.d.)
    c : float >= 0, default 0 (the (log T)^c term)
    horizon : int or None; needed only when c != 0 (bound to the run's horizon or the search budget)
    """

    name = "bayesucb"
    kernel_spec = bandits.KernelSpec(select=beta_select, init=beta_init)
    gaussian_kernel_spec = bandits.KernelSpec(index=gaussian_index, prepare=prepare_gaussian)
    arm_state_width = 4

    def __init__(self, prior: str = "beta", sigma: float = 1.0, c: float = 0.0, horizon: int | None = None):
        prior = self._check_choice("prior", prior, PRIORS)
        sigma = self._check_float("sigma", sigma, low=0.0, low_open=True)
        c = self._check_float("c", c, low=0.0)
        super().__init__(prior=prior, sigma=sigma, c=c, horizon=check_horizon(horizon))

    def _pack(self):
        return [float(PRIORS.index(self.prior)), self.sigma, self.c, float(self.horizon or 0)]

    def instance_kernel_spec(self):
        return self.gaussian_kernel_spec if self.prior == "gaussian" else self.kernel_spec

    @property
    def bounded_rewards(self) -> bool:
        """The Beta posterior is for rewards in [0, 1]."""
        return self.prior == "beta"

    @property
    def needs_horizon(self) -> bool:
        return self.horizon is None and self.c != 0.0

