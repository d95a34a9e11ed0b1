"""KL-UCB, Thompson sampling, epsilon-greedy; spec strings, errors and determinism for all policies."""
import math

import numpy as np
import pytest
from scipy.optimize import brentq

from bandits import KLUCB, UCB1, EpsilonGreedy, ThompsonSampling, make_policy, policy_names
from bandits.klucb import bernoulli_index
from tests.bandit_helpers import select_once, stats_from

ALL_SPECS = ["ucb1", "ucb1:c=2", "iucb:horizon=300", "iucb:episodic=true", "miucb:horizon=300",
             "miucb:r=none,episodic=true", "miucb:r=T/t,episodic=true", "klucb", "klucb:family=gaussian",
             "thompson", "thompson:prior=gaussian", "egreedy:epsilon=0.1", "greedy", "egreedy:q0=0"]


def kl(p, q):
    """Bernoulli KL written out independently of the library (0 log 0 = 0)."""
    out = 0.0
    if p > 0:
        out += p * math.log(p / q)
    if p < 1:
        out += (1 - p) * math.log((1 - p) / (1 - q))
    return out


@pytest.mark.parametrize("p,level", [(0.0, 0.5), (0.3, 0.1), (0.5, 0.02), (0.9, 0.3), (0.99, 1e-3), (0.2, 2.0)])
def test_klucb_bernoulli_index_matches_brent(p, level):
    # U = the root q in (p, 1) of kl(p, q) = level, found here with scipy's brentq
    if kl(p, 1 - 1e-15) <= level:
        ref = 1.0
    else:
        ref = brentq(lambda q: kl(p, q) - level, p + 1e-15 if p < 1 else p, 1 - 1e-15, xtol=1e-13)
    assert bernoulli_index(p, level) == pytest.approx(ref, abs=1e-9)


def test_klucb_bernoulli_selects_by_index():
    # t = 10 plays, c = 0: level_i = ln(10) / t_i.  Arm 0: 4/6, arm 1: 1/3, arm 2: 1/1.
    stats = stats_from([[1, 1, 1, 1, 0, 0], [1, 0, 0], [1]])
    arm, work = select_once(KLUCB(), stats, t=10)
    refs = [brentq(lambda q, p=p, n=n: n * kl(p, q) - math.log(10), p + 1e-12, 1 - 1e-12) if p < 1 else 1.0
            for p, n in [(4 / 6, 6), (1 / 3, 3), (1.0, 1)]]
    assert work == pytest.approx(refs, abs=1e-8)
    assert arm == 2


def test_gaussian_klucb_equals_ucb1_sqrt2():
    # sigma = 1, c = 0: U_i = w_i + sqrt(2 ln t / t_i), which is UCB1 with c = sqrt(2): same arms.
    gen = np.random.default_rng(1)
    ucb, kl_g = UCB1(), KLUCB(family="gaussian")
    b1, b2 = ucb.init(50, 8), kl_g.init(50, 8)
    means = gen.normal(size=(50, 8))
    for step in range(300):
        a1 = ucb.select(b1, step)
        a2 = kl_g.select(b2, step)
        assert np.array_equal(a1, a2)
        r = means[np.arange(50), a1] + gen.normal(size=50)
        ucb.update(b1, a1, r)
        kl_g.update(b2, a2, r)


def draws(policy, pulls, n=20000):
    """Posterior draws: one valid arm, so the score left in `work` is the draw itself."""
    return np.array([select_once(policy, pulls, t=len(pulls[0]), seed=s)[1][0] for s in range(n)])


def test_thompson_gaussian_posterior():
    # N(0,1) prior, sigma = 1, t_i = 3 pulls summing to S_i = 1.5: posterior N(1.5/4, 1/4):
    # mean 0.375, standard deviation 1/sqrt(4) = 0.5 (not 1/t_i = 0.333).  Standard error of the
    # mean of 20 000 draws: 0.5/141 = 0.0035; of the s.d.: 0.5/200 = 0.0025.
    x = draws(ThompsonSampling(prior="gaussian"), [[0.2, 0.5, 0.8]])
    assert x.mean() == pytest.approx(0.375, abs=0.015)
    assert x.std() == pytest.approx(0.5, abs=0.012)


def test_thompson_beta_posterior():
    # Beta(1,1) prior, 3 successes of 4: Beta(4, 2): mean 4/6 = 0.6667, variance 4*2/(36*7) = 0.031746
    x = draws(ThompsonSampling(), [[1, 1, 1, 0]])
    assert x.mean() == pytest.approx(4 / 6, abs=0.006)
    assert x.var() == pytest.approx(8 / 252, abs=0.0015)


def test_epsilon_greedy_exploration_rate():
    # epsilon = 0.3 over 3 arms with arm 0 best: arm 0 is chosen with prob 0.7 + 0.3/3 = 0.8
    stats = stats_from([[1.0], [0.0], [0.0]])
    picks = np.array([select_once(EpsilonGreedy(0.3), stats, t=3, seed=s)[0] for s in range(6000)])
    assert (picks == 0).mean() == pytest.approx(0.8, abs=0.02)


def test_greedy_with_q0_keeps_zero_estimate_for_untried():
    # Sutton & Barto's greedy with Q1 = 0: a tried arm with mean 0.5 beats untried arms (Q = 0)
    stats = stats_from([[], [0.5], []])
    assert select_once(make_policy("egreedy:epsilon=0,q0=0"), stats, t=1)[0] == 1
    assert select_once(make_policy("greedy"), stats, t=1)[0] in (0, 2)  # untried first


@pytest.mark.parametrize("spec", ALL_SPECS)
def test_same_seed_same_arms_and_spec_round_trip(spec):
    policy = make_policy(spec)
    assert make_policy(policy.spec) == policy

    def trajectory():
        batch = policy.init(4, 6)
        out = []
        for step in range(120):
            arms = policy.select(batch, step)
            rewards = ((arms * 7 + step) % 5) / 4.0  # deterministic rewards in [0, 1]
            policy.update(batch, arms, rewards)
            out.append(arms)
        return np.array(out)

    assert np.array_equal(trajectory(), trajectory())


def test_unknown_policy_and_parameter_errors():
    with pytest.raises(ValueError, match="unknown policy 'ucb2'.*valid policies: ucb1"):
        make_policy("ucb2")
    with pytest.raises(ValueError, match="unknown parameter 'k' for policy 'ucb1'; valid parameters: c"):
        make_policy("ucb1:k=3")
    with pytest.raises(ValueError, match="c must be a number"):
        make_policy("ucb1:c=abc")
    with pytest.raises(ValueError, match="c must be >= 0"):
        make_policy("ucb1:c=-1")
    with pytest.raises(ValueError, match="epsilon must be <= 1"):
        make_policy("egreedy:epsilon=2")
    with pytest.raises(ValueError, match="episodic must be true or false"):
        make_policy("miucb:episodic=maybe")
    with pytest.raises(ValueError, match="family must be one of"):
        make_policy("klucb:family=poisson")
    assert set(policy_names()) >= {"ucb1", "iucb", "miucb", "klucb", "thompson", "egreedy", "greedy"}


def test_batch_input_errors():
    policy = UCB1()
    with pytest.raises(ValueError, match="n_bandits must be an integer >= 1, got 0"):
        policy.init(0, 3)
    with pytest.raises(ValueError, match="n_arms must be an integer >= 1, got -2"):
        policy.init(2, -2)
    batch = policy.init(2, 3)
    with pytest.raises(ValueError, match=r"rewards must be finite numbers; rewards\[1\] = nan"):
        policy.update(batch, np.array([0, 1]), np.array([0.5, np.nan]))
    with pytest.raises(ValueError, match=r"arms must lie in 0..2"):
        policy.update(batch, np.array([0, 3]), np.array([0.5, 0.5]))
    with pytest.raises(ValueError, match=r"rewards must have shape \(2,\)"):
        policy.update(batch, np.array([0, 1]), np.array([0.5]))
    assert batch.counts.sum() == 0  # nothing was recorded by the rejected updates
    with pytest.raises(ValueError, match="mask must leave at least one valid arm"):
        policy.init(2, 3, mask=np.array([[True, False, False], [False, False, False]]))
    with pytest.raises(ValueError, match="rng must be"):
        policy.select(batch, "seed")
