"""KL-UCB (Garivier & Cappe, 2011; Cappe et al., 2013).

    U_i = max { q : t_i * d(w_i, q) <= log t + c log log t }       (untried arms first)

d is the Kullback-Leibler divergence of the reward family:
  Bernoulli  d(p, q) = p log(p/q) + (1-p) log((1-p)/(1-q)); U_i found by bisection on [w_i, 1]
             to 1e-9 (w_i clipped to [0, 1]);
  Gaussian   d(p, q) = (p - q)^2 / (2 sigma^2), closed form U_i = w_i + sigma sqrt(2 (log t + c log log t) / t_i).
The c log log t term is used only where log t > 1 (t > e), so that it is defined and non-negative
[our choice; the theory needs c >= 3 for its bound, practice uses c = 0].

KL-UCB+ (``plus=true``; Garivier & Cappe 2011, section 5; Garivier, Menard & Stoltz 2016): log(t / t_i)
in place of log t,

    U_i = max { q : t_i * d(w_i, q) <= max(0, log(t / t_i) + c log log t) }

so an arm pulled t_i >= t times (log(t / t_i) <= 0) has the index w_i (Bernoulli: w_i; Gaussian: w_i).
"""
from __future__ import annotations

import math

import numba as nb

from bandits._choice import mean_plus_bonus
from bandits.policy import Policy
from bandits.registry import KernelSpec, register_policy
from bandits.stats import COUNT, ISQRT, MEAN

FAMILIES = ("bernoulli", "gaussian")
TOLERANCE = 1e-9


@nb.njit(cache=True)
def bernoulli_kl(p, q):
    """d(p, q) for Bernoulli laws, with 0 log 0 = 0; q is kept inside (0, 1)."""
    eps = 1e-15
    q = min(max(q, eps), 1.0 - eps)
    out = 0.0
    if p > 0.0:
        out += p * math.log(p / q)
    if p < 1.0:
        out += (1.0 - p) * math.log((1.0 - p) / (1.0 - q))
    return out


@nb.njit(cache=True)
def bernoulli_index(p, level):
    """max q in [p, 1] with d(p, q) <= level, by bisection to TOLERANCE."""
    p = min(max(p, 0.0), 1.0)
    lo, hi = p, 1.0
    if bernoulli_kl(p, hi) <= level:
        return 1.0
    while hi - lo > TOLERANCE:
        mid = 0.5 * (lo + hi)
        if bernoulli_kl(p, mid) <= level:
            lo = mid
        else:
            hi = mid
    return lo


@nb.njit(cache=True)
def exploration_level(t, c):
    """log t + c log log t (the log log term only where log t > 1)."""
    lt = math.log(max(t, 1))
    if c != 0.0 and lt > 1.0:
        lt += c * math.log(lt)
    return lt


@nb.njit(cache=True, inline="always")
def prepare(params, state, valid, t):
    """log t + c log log t, once per selection; params = [family code, sigma, c]."""
    return exploration_level(t, params[2])


@nb.njit(cache=True, inline="always")
def bernoulli(stats, i, t, params, state, level):
    """U_i = max{q in [w_i, 1] : t_i d(w_i, q) <= level} (an index policy, bandits.index)."""
    return bernoulli_index(stats[MEAN, i], level / stats[COUNT, i])


@nb.njit(cache=True, inline="always")
def gaussian(stats, i, t, params, state, level):
    """U_i = w_i + sigma sqrt(2 level / t_i) (an index policy, bandits.index)."""
    return mean_plus_bonus(stats, i, params[1] * math.sqrt(2.0 * level), 1.0)


@nb.njit(cache=True, inline="always")
def bernoulli_plus(stats, i, t, params, state, level):
    """KL-UCB+: U_i = max{q in [w_i, 1] : t_i d(w_i, q) <= max(0, level - log t_i)}."""
    n = stats[COUNT, i]
    return bernoulli_index(stats[MEAN, i], max(0.0, level - math.log(n)) / n)


@nb.njit(cache=True, inline="always")
def gaussian_plus(stats, i, t, params, state, level):
    """KL-UCB+, Gaussian: U_i = w_i + sigma sqrt(2 max(0, level - log t_i) / t_i)."""
    isq = stats[ISQRT, i]
    return stats[MEAN, i] + params[1] * isq * math.sqrt(2.0 * max(0.0, level + 2.0 * math.log(isq)))


@register_policy
class KLUCB(Policy):
    """KL-UCB: U_i = max{q : t_i d(w_i, q) <= log t + c log log t}.

    Parameters
    ----------
    family : {"bernoulli", "gaussian"}, default "bernoulli"
        Reward family whose KL divergence d is used (rewards in [0, 1] for Bernoulli).
    sigma : float, default 1.0
        Reward standard deviation of the Gaussian family (> 0).
    c : float, default 0.0
        Weight of the log log t term (>= 0).
    plus : bool, default False
        KL-UCB+: log(t / t_i) in place of log t (module docstring).
    """

    name = "klucb"
    kernel_spec = KernelSpec(index=bernoulli, prepare=prepare)
    gaussian_kernel_spec = KernelSpec(index=gaussian, prepare=prepare)
    plus_kernel_specs = {"bernoulli": KernelSpec(index=bernoulli_plus, prepare=prepare),
                         "gaussian": KernelSpec(index=gaussian_plus, prepare=prepare)}

    def __init__(self, family: str = "bernoulli", sigma: float = 1.0, c: float = 0.0, plus: bool = False):
        family = self._check_choice("family", family, FAMILIES)
        sigma = self._check_float("sigma", sigma, low=0.0, low_open=True)
        c = self._check_float("c", c, low=0.0)
        plus = self._check_bool("plus", plus)
        super().__init__(family=family, sigma=sigma, c=c, plus=plus)

    def _pack(self):
        return [float(FAMILIES.index(self.family)), self.sigma, self.c]

    @property
    def bounded_rewards(self) -> bool:
        """The Bernoulli family is for rewards in [0, 1]."""
        return self.family == "bernoulli"

    def instance_kernel_spec(self):
        if self.plus:
            return self.plus_kernel_specs[self.family]
        # the Gaussian index is one multiply-add per arm: its own loop, without the Bernoulli bisection
        return self.gaussian_kernel_spec if self.family == "gaussian" else self.kernel_spec
