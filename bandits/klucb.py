"""KL-UCB (Garivier & Cappe, 2011; Cappe et al., 2013).

    U_i = max { q : t_i * d(w_i, q) <= log t + c log log t }       (untried arms first)

d is the Kullback-Leibler divergence of the reward family:
  Bernoulli  d(p, q) = p log(p/q) + (1-p) log((1-p)/(1-q)); U_i found by Newton's method from
             the right on [w_i, 1] to about 1e-12 (w_i clipped to [0, 1]), and only for the arms
             that can win (bandits.lazy: each arm keeps bounds of its index valid while t grows by
             10%; the arm chosen is the one evaluating every arm chooses);
  Gaussian   d(p, q) = (p - q)^2 / (2 sigma^2), closed form U_i = w_i + sigma sqrt(2 (log t + c log log t) / t_i).
The c log log t term is used only where log t > 1 (t > e), so that it is defined and non-negative
[our choice; the theory needs c >= 3 for its bound, practice uses c = 0].

KL-UCB+ (``plus=true``; Garivier & Cappe 2011, section 5; Garivier, Menard & Stoltz 2016): log(t / t_i)
in place of log t,

    U_i = max { q : t_i * d(w_i, q) <= max(0, log(t / t_i) + c log log t) }

so an arm pulled t_i >= t times (log(t / t_i) <= 0) has the index w_i (Bernoulli: w_i; Gaussian: w_i).
KL-UCB+ keeps ln t_i as per-arm state (``arm_state[0]``, set by ``on_record`` at each pull:
bandits.index), so a selection takes no logarithm per arm.
"""
from __future__ import annotations

import math

import numba as nb

from bandits._choice import mean_plus_bonus
from bandits.index import record_log_count
from bandits.lazy import WIDTH as LAZY_WIDTH
from bandits.lazy import lazy_init, lazy_select, register_index
from bandits.policy import Policy
from bandits.registry import KernelSpec, register_policy
from bandits.stats import COUNT, ISQRT, MEAN

FAMILIES = ("bernoulli", "gaussian")
TOLERANCE = 1e-12  # (Newton: the last step taken is below 1e-13)


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
    """max q in [p, 1] with d(p, q) <= level, by Newton's method from the right, to about 1e-12.

    q -> d(p, q) is convex and increasing on [p, 1), so Newton steps from any q_0 above the root
    decrease monotonically to it (quadratically once close), never past it but for rounding.  Two
    upper bounds of the root, the smaller taken as q_0: Pinsker's d(p, q) >= 2 (q - p)^2 gives
    p + sqrt(level / 2); d(p, q) >= -H(p) - (1 - p) log(1 - q) (H the entropy) gives
    1 - exp(-(level + H(p)) / (1 - p)), the good one near 1.
    """
    p = min(max(p, 0.0), 1.0)
    if p >= 1.0:
        return 1.0
    if level <= 0.0:
        return p
    if bernoulli_kl(p, 1.0) <= level:
        return 1.0
    entropy = -(p * math.log(p) if p > 0.0 else 0.0) - (1.0 - p) * math.log(1.0 - p)
    q = min(p + math.sqrt(0.5 * level), -math.expm1(-(level + entropy) / (1.0 - p)), 1.0 - 1e-15)
    for _ in range(100):
        f = bernoulli_kl(p, q) - level
        if f <= 0.0:
            break
        step = f * q * (1.0 - q) / (q - p)
        q -= step
        if step < 1e-13:
            break
    return max(q, p)


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


@nb.njit(cache=True)
def bernoulli_at(stats, i, t, params):
    """U_i(t) = max{q in [w_i, 1] : t_i d(w_i, q) <= log t + c log log t}, nondecreasing in t."""
    return bernoulli_index(stats[MEAN, i], exploration_level(t, params[2]) / stats[COUNT, i])


register_index("bandits.klucb.bernoulli_at", bernoulli_at)


@nb.njit(cache=True)
def bernoulli(params, state, arm_state, stats, valid, t, rng, work):
    """Bernoulli KL-UCB's selection: the index rule of every index policy, evaluated lazily
    (bandits.lazy; the arm the full evaluation picks)."""
    return lazy_select("bandits.klucb.bernoulli_at", params, state, arm_state, stats, valid, t, rng, work)


@nb.njit(cache=True, inline="always")
def gaussian(stats, i, t, params, state, level):
    """U_i = w_i + sigma sqrt(2 level / t_i) (an index policy, bandits.index)."""
    return mean_plus_bonus(stats, i, params[1] * math.sqrt(2.0 * level), 1.0)


@nb.njit(cache=True)
def bernoulli_plus_at(stats, i, t, params):
    """KL-UCB+: U_i(t) = max{q in [w_i, 1] : t_i d(w_i, q) <= max(0, log(t / t_i) + c log log t)}."""
    n = stats[COUNT, i]
    return bernoulli_index(stats[MEAN, i], max(0.0, exploration_level(t, params[2]) - math.log(n)) / n)


register_index("bandits.klucb.bernoulli_plus_at", bernoulli_plus_at)


@nb.njit(cache=True)
def bernoulli_plus(params, state, arm_state, stats, valid, t, rng, work):
    """Bernoulli KL-UCB+'s selection, evaluated lazily as :func:`bernoulli`'s."""
    return lazy_select("bandits.klucb.bernoulli_plus_at", params, state, arm_state, stats, valid, t, rng, work)


@nb.njit(cache=True, inline="always")
def gaussian_plus(stats, i, t, params, state, level, arm_state):
    """KL-UCB+, Gaussian: U_i = w_i + sigma sqrt(2 max(0, level - log t_i) / t_i)
    (arm_state[0, i] = log t_i)."""
    return stats[MEAN, i] + params[1] * stats[ISQRT, i] * math.sqrt(2.0 * max(0.0, level - arm_state[0, i]))


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
    kernel_spec = KernelSpec(select=bernoulli, init=lazy_init)
    gaussian_kernel_spec = KernelSpec(index=gaussian, prepare=prepare)
    plus_kernel_specs = {"bernoulli": KernelSpec(select=bernoulli_plus, init=lazy_init),
                         "gaussian": KernelSpec(index=gaussian_plus, prepare=prepare, on_record=record_log_count)}
    #: the Bernoulli forms' lazy bounds (bandits.lazy); Gaussian KL-UCB+ keeps log t_i in row 0
    arm_state_width = LAZY_WIDTH

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
