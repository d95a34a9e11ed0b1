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
(:func:`bandits.zoo.quantiles.beta_quantile`), so the Beta form evaluates it lazily
(:mod:`bandits.lazy`), with the same result as evaluating every arm: each arm keeps the quantiles
of its current posterior at the levels p_{t0} and p_{1.1 t0} (computed when its statistics changed
or when t passed 1.1 t0), a lower and an upper bound of its index for t0 <= t <= 1.1 t0 (p_t
increases with t); the exact index is then computed only for the arms whose upper bound reaches
the best index found, in decreasing order of the bounds.  Arms left out are strictly below the
maximum, so the arm chosen, ties at random included, is the one the full evaluation chooses
(tests/test_bandits_zoo_index.py checks it against scipy at every play of a run; the regret is
bit-identical to the full evaluation's).
"""
from __future__ import annotations

import math

import numba as nb

import bandits
from bandits.lazy import WIDTH as LAZY_WIDTH
from bandits.lazy import lazy_init, lazy_select, register_index
from bandits.stats import COUNT, SUM
from bandits.zoo.common import BindsHorizon, check_horizon
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


@nb.njit(cache=True)
def beta_index_at(stats, i, t, params):
    """The Beta form's index of arm i at time t: the p_t quantile (for bandits.lazy)."""
    return beta_index(stats, i, level(t, params[3], params[2]))


register_index("bandits.zoo.bayesucb.beta_index_at", beta_index_at)


@nb.njit(cache=True)
def beta_select(params, state, arm_state, stats, valid, t, rng, work):
    """The arm of the largest p_t quantile, untried arms first, ties at random, evaluated lazily
    (module docstring; bandits.lazy)."""
    return lazy_select("bandits.zoo.bayesucb.beta_index_at", params, state, arm_state, stats, valid, t, rng, work)


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
    kernel_spec = bandits.KernelSpec(select=beta_select, init=lazy_init)
    gaussian_kernel_spec = bandits.KernelSpec(index=gaussian_index, prepare=prepare_gaussian)
    arm_state_width = LAZY_WIDTH

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

