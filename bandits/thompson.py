"""Thompson sampling (Thompson, 1933; Agrawal & Goyal, 2012): pull the arm whose posterior draw is largest.

    prior="beta":     theta_i ~ Beta(1 + S_i, 1 + t_i - S_i)   (Beta(1,1) prior, rewards in [0, 1];
                      fractional rewards enter as fractional successes; S_i is clipped to
                      [0, t_i] if rewards stray outside [0, 1])
    prior="gaussian": theta_i ~ N(S_i / (t_i + 1), sigma^2 / (t_i + 1))
                      (N(0, 1) prior on the mean with known reward s.d. sigma = 1; the posterior
                      standard deviation is sigma / sqrt(t_i + 1), not 1 / t_i)

S_i: reward sum of arm i, t_i: its pulls.  Every valid arm draws, untried ones from the prior.
"""
from __future__ import annotations

import math

import numba as nb

from bandits._choice import argmax_random, gated
from bandits.policy import Policy
from bandits.rng import beta, normal
from bandits.stats import COUNT, SUM

KIND = 4
PRIORS = ("beta", "gaussian")


@nb.njit(cache=True, inline="always")
def select(params, state, arm_state, stats, valid, t, rng, work):
    """params = [prior code (0 beta, 1 gaussian), sigma]."""
    gaussian = params[0] == 1.0
    sigma = params[1]
    for i in range(stats.shape[0]):
        if not valid[i]:
            work[i] = gated(0.0, 1.0, False)
            continue
        n, s = stats[i, COUNT], stats[i, SUM]
        if gaussian:
            work[i] = s / (n + 1.0) + sigma / math.sqrt(n + 1.0) * normal(rng)
        else:
            s = min(max(s, 0.0), n)  # the Beta posterior needs 0 <= S_i <= t_i
            work[i] = beta(rng, 1.0 + s, 1.0 + n - s)
    return argmax_random(work, rng)


class ThompsonSampling(Policy):
    """Thompson sampling with a Beta(1,1) or a N(0,1) prior (module docstring for the posteriors).

    Parameters
    ----------
    prior : {"beta", "gaussian"}, default "beta"
    sigma : float, default 1.0
        Known reward standard deviation for the Gaussian prior (> 0).
    """

    name = "thompson"
    kind = KIND

    def __init__(self, prior: str = "beta", sigma: float = 1.0):
        prior = self._check_choice("prior", prior, PRIORS)
        sigma = self._check_float("sigma", sigma, low=0.0, low_open=True)
        super().__init__(prior=prior, sigma=sigma)

    def _pack(self):
        return [float(PRIORS.index(self.prior)), self.sigma]
