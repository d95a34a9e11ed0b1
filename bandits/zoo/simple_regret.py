"""The simple-regret samplers of SR+CR (Tolpin & Shimony 2012, "MCTS based on simple regret",
AAAI, section 3): bandit policies for the root of a search, whose job is to recommend one arm
(low *simple* regret), not to collect reward (low cumulative regret, UCB1's aim).

``halfgreedy`` (their epsilon-greedy sampling with epsilon = 1/2)::

    untried arms first (ties at random); then with probability epsilon the arm of the best
    empirical mean w_i (ties at random), otherwise one of the other K - 1 valid arms uniformly

``ucbsqrt`` (their UCB_sqrt)::

    b_i = w_i + sqrt(c sqrt(n) / n_i)          n: pulls of the bandit, n_i: of arm i; untried first

Its exploration term grows as n^(1/4) where UCB1's grows as sqrt(ln n), so the good arms are
sampled more evenly: simple regret falls faster, cumulative regret does not.  Tolpin & Shimony
give epsilon = 1/2 and leave c to tuning (their experiments tried several); our default c = 1.

SR+CR, their two-stage scheme, is one of these at the root and UCB1 below it:
``search(game, "ucb1", root_policy="ucbsqrt")`` (player spec ``ucb1:root_policy=halfgreedy``).
Both are written through the public plugin interface (:func:`bandits.stateful_policy`,
:func:`bandits.index_policy`), as a user's policy is.
"""
from __future__ import annotations

import math

import numba as nb

import bandits
from bandits.rng import randint, uniform
from bandits.stats import COUNT, ISQRT, MEAN


@nb.njit(cache=True)
def halfgreedy_select(params, state, arm_state, stats, valid, t, rng, work):
    """params = [epsilon]: an untried arm (ties at random); else the best mean with probability
    epsilon, otherwise a uniformly random other valid arm (module docstring)."""
    k = stats.shape[1]
    untried, n_valid = 0, 0
    for i in range(k):
        if valid[i]:
            n_valid += 1
            if stats[COUNT, i] == 0.0:
                untried += 1
    if untried > 0:
        j = randint(rng, untried)
        for i in range(k):
            if valid[i] and stats[COUNT, i] == 0.0:
                if j == 0:
                    return i
                j -= 1
    best, arm, ties = -math.inf, -1, 0
    for i in range(k):
        if valid[i]:
            m = stats[MEAN, i]
            if arm < 0 or m > best:
                best, arm, ties = m, i, 1
            elif m == best:
                ties += 1
                if randint(rng, ties) == 0:
                    arm = i
    if n_valid < 2 or uniform(rng) < params[0]:
        return arm
    j = randint(rng, n_valid - 1)
    for i in range(k):
        if valid[i] and i != arm:
            if j == 0:
                return i
            j -= 1
    return arm  # pragma: no cover (n_valid >= 2)


HalfGreedy = bandits.stateful_policy(
    "halfgreedy", select=halfgreedy_select,
    epsilon=bandits.Param(0.5, low=0.0, high=1.0, doc="probability of pulling the empirical best arm"),
    doc="Tolpin & Shimony's epsilon-greedy sampling for simple regret (SR+CR, AAAI 2012): the best mean "
        "with probability epsilon (1/2), otherwise one of the other arms uniformly; untried arms first")


@nb.njit(cache=True)
def ucbsqrt_prepare(params, state, valid, t):
    """sqrt(c sqrt(n)); params = [c]."""
    return (math.sqrt(params[0] * math.sqrt(max(t, 0.0))),)


@bandits.index_policy("ucbsqrt", prepare=ucbsqrt_prepare,
                      c=bandits.Param(1.0, low=0.0, doc="exploration constant c of sqrt(c sqrt(n) / n_i)"))
@nb.njit(cache=True)
def ucbsqrt(stats, i, t, params, state, prepared):
    """UCB_sqrt (Tolpin & Shimony 2012): w_i + sqrt(c sqrt(n) / n_i) = w_i + sqrt(c sqrt(n)) / sqrt(n_i)."""
    return stats[MEAN, i] + prepared[0] * stats[ISQRT, i]
