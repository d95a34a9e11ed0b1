"""Thompson sampling (Thompson, 1933; Agrawal & Goyal, 2012): pull the arm whose posterior draw is largest.

    prior="beta":     theta_i ~ Beta(1 + S_i, 1 + t_i - S_i)   (Beta(1,1) prior, rewards in [0, 1];
                      fractional rewards enter as fractional successes; S_i is clipped to
                      [0, t_i] if rewards stray outside [0, 1])
    prior="gaussian": theta_i ~ N(S_i / (t_i + 1), sigma^2 / (t_i + 1))
                      (the conjugate posterior for rewards N(mu_i, sigma^2) and a N(0, sigma^2)
                      prior on mu_i, i.e. the standard N(0, 1) prior when sigma = 1; its standard
                      deviation is sigma / sqrt(t_i + 1), not 1 / t_i)

S_i: reward sum of arm i, t_i: its pulls.  Every valid arm draws, untried ones from the prior.
"""
from __future__ import annotations

import math

import numba as nb

from bandits._choice import argmax_random, gated
from bandits.policy import Policy
from bandits.registry import KernelSpec, register_policy
from bandits.rng import beta, normal
from bandits.stats import COUNT, SUM

PRIORS = ("beta", "gaussian")


# arm_state rows (field-major, (2, K)): the posterior of each arm, updated when the arm is pulled
_LOC, _SCALE = 0, 1  # gaussian: mean S/(t+1) and s.d. sigma/sqrt(t+1); beta: a = 1+S and b = 1+t-S


@nb.njit(cache=True, inline="always")
def _posterior(params, arm_state, arm, n, s):
    if params[0] == 1.0:
        arm_state[_LOC, arm] = s / (n + 1.0)
        arm_state[_SCALE, arm] = params[1] / math.sqrt(n + 1.0)
    else:
        s = min(max(s, 0.0), n)  # the Beta posterior needs 0 <= S_i <= t_i
        arm_state[_LOC, arm] = 1.0 + s
        arm_state[_SCALE, arm] = 1.0 + n - s


@nb.njit(cache=True, inline="always")
def init(params, state, arm_state, valid):
    """Every arm starts at its prior: N(0, sigma^2) or Beta(1, 1)."""
    for i in range(arm_state.shape[1]):
        _posterior(params, arm_state, i, 0.0, 0.0)


@nb.njit(cache=True, inline="always")
def on_record(params, state, arm_state, stats, arm, reward):
    """The pulled arm's posterior from its updated statistics (module docstring)."""
    _posterior(params, arm_state, arm, stats[COUNT, arm], stats[SUM, arm])


@nb.njit(cache=True, inline="always")
def select(params, state, arm_state, stats, valid, t, rng, work):
    """params = [prior code (0 beta, 1 gaussian), sigma]; one posterior draw per valid arm."""
    loc, scale = arm_state[_LOC], arm_state[_SCALE]
    if params[0] == 1.0:
        for i in range(loc.shape[0]):
            draw = loc[i] + scale[i] * normal(rng) if valid[i] else 0.0
            work[i] = gated(draw, 1.0, valid[i])
    else:
        for i in range(loc.shape[0]):
            draw = beta(rng, loc[i], scale[i]) if valid[i] else 0.0
            work[i] = gated(draw, 1.0, valid[i])
    return argmax_random(work, rng)


@register_policy
class ThompsonSampling(Policy):
    """Thompson sampling with a Beta(1,1) or a N(0,1) prior (module docstring for the posteriors).

    Parameters
    ----------
    prior : {"beta", "gaussian"}, default "beta"
    sigma : float, default 1.0
        Known reward standard deviation for the Gaussian prior (> 0).
    """

    name = "thompson"
    kernel_spec = KernelSpec(select=select, init=init, on_record=on_record)
    arm_state_width = 2

    def __init__(self, prior: str = "beta", sigma: float = 1.0):
        prior = self._check_choice("prior", prior, PRIORS)
        sigma = self._check_float("sigma", sigma, low=0.0, low_open=True)
        super().__init__(prior=prior, sigma=sigma)

    def _pack(self):
        return [float(PRIORS.index(self.prior)), self.sigma]

    @property
    def bounded_rewards(self) -> bool:
        """The Beta posterior is for rewards in [0, 1]."""
        return self.prior == "beta"
