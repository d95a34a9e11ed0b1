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


# -- constant step-size estimates (Sutton & Barto 2018, section 2.5; issue 24, item 15) -------------
def recency_weighted(rewards, alpha, q1):
    """Sutton & Barto eq. 2.6, the closed form: Q_{n+1} = (1 - alpha)^n Q_1
    + sum_i alpha (1 - alpha)^(n - i) R_i; with no Q_1 (None) the first reward is Q_2."""
    if q1 is None:
        q1, rewards = rewards[0], rewards[1:]
    n = len(rewards)
    return (1 - alpha) ** n * q1 + sum(alpha * (1 - alpha) ** (n - i) * r for i, r in enumerate(rewards, 1))


def _played(spec, k, pulls, seed=0):
    """A policy's batch of one bandit after ``pulls`` [(arm, reward)] recorded through it."""
    policy = make_policy(spec)
    batch = policy.init(1, k)
    for arm, reward in pulls:
        policy.update(batch, np.array([arm]), np.array([reward]))
    return policy, batch


@pytest.mark.parametrize("spec, q1", [("egreedy:alpha=0.1", None), ("egreedy:alpha=0.5,q0=0", 0.0),
                                      ("greedy:alpha=0.3,q0=5", 5.0), ("softmax:alpha=0.2", None)])
def test_constant_step_size_estimates_are_the_recency_weighted_average(spec, q1):
    # 40 rewards on 3 arms, recorded through the policy; its estimates (arm state) must be eq. 2.6
    # of each arm's own rewards (hand check of the first case: arm rewards 1, 0 -> Q = 1, then
    # 1 + 0.1 (0 - 1) = 0.9)
    rng = np.random.default_rng(4)
    pulls = [(int(a), float(r)) for a, r in zip(rng.integers(0, 3, 40), rng.normal(size=40))]
    policy, batch = _played(spec, 3, pulls)
    alpha = policy.alpha
    row = 2 if spec.startswith("softmax") else 0
    for arm in range(3):
        own = [r for a, r in pulls if a == arm]
        assert batch.arm_state[0, row, arm] == pytest.approx(recency_weighted(own, alpha, q1), rel=1e-12)
    _, b = _played("egreedy:alpha=0.1", 1, [(0, 1.0), (0, 0.0)])
    assert b.arm_state[0, 0, 0] == pytest.approx(0.9)


def test_greedy_with_a_constant_step_follows_the_recent_rewards():
    # arm 0: rewards 1, 1, 1, then 0, 0; arm 1: 0.5 once.  Sample means: 0.6 > 0.5, arm 0.
    # alpha = 0.5: Q_0 = 1, 1, 1, 0.5, 0.25 < 0.5: arm 1.
    pulls = [(0, 1.0)] * 3 + [(0, 0.0)] * 2 + [(1, 0.5)]
    for spec, arm in (("greedy", 0), ("greedy:alpha=0.5", 1), ("egreedy:epsilon=0,alpha=0.5", 1)):
        policy, batch = _played(spec, 2, pulls)
        assert policy.select(batch, 0).tolist() == [arm], spec


def test_softmax_with_a_constant_step_draws_the_boltzmann_distribution_of_its_estimates():
    # alpha = 0.5 (eq. 2.6): arm 0 rewards 1, 0 -> Q = 1 + 0.5 (0 - 1) = 0.5 (mean 0.5); arm 1
    # rewards 0, 0, 1 -> 0, 0, 0.5 (mean 1/3: the estimates, not the means, are drawn on); arm 2
    # reward 0.2 once -> 0.2.  tau = 0.5: P ~ exp(Q / 0.5) = e^1, e^1, e^0.4 (20 000 draws, 4 s.e.)
    pulls = [(0, 1.0), (0, 0.0), (1, 0.0), (1, 0.0), (1, 1.0), (2, 0.2)]
    policy, batch = _played("softmax:tau=0.5,alpha=0.5", 3, pulls)
    picks = np.array([policy.select(batch, s)[0] for s in range(20_000)])
    p = np.exp(np.array([0.5, 0.5, 0.2]) / 0.5)
    p /= p.sum()
    freq = np.bincount(picks, minlength=3) / picks.size
    assert (np.abs(freq - p) < 4 * np.sqrt(p * (1 - p) / picks.size)).all(), (freq, p)


@pytest.mark.parametrize("spec, match", [("egreedy:alpha=1.5", "alpha must be <= 1"),
                                         ("egreedy:alpha=-0.1", "alpha must be >= 0"),
                                         ("softmax:alpha=2", "alpha must be <= 1"),
                                         ("greedy:alpha=x", "alpha must be a number")])
def test_bad_step_sizes_are_one_line_errors(spec, match):
    with pytest.raises(ValueError, match=match):
        make_policy(spec)
    assert make_policy("egreedy:alpha=0") == make_policy("egreedy")  # 0: the sample mean


def test_a_constant_step_beats_sample_means_on_the_nonstationary_testbed():
    # Sutton & Barto's exercise 2.5 at a small size: 10 arms, walk s.d. 0.01, 300 tasks x 2000
    # plays (the full size, 10 000 plays, is in docs/nonstationary.md): with alpha = 0.1 the
    # pseudo-regret at the horizon is below that of sample means by more than 4 s.e., for
    # epsilon-greedy and softmax
    from testbeds.runner import run_testbed
    from testbeds.testbed import NonStationaryTestbed

    r = run_testbed(["egreedy", "egreedy:alpha=0.1", "softmax", "softmax:alpha=0.1"],
                    NonStationaryTestbed(n_tasks=300, seed=1), 2000, progress=False)
    final, se = r.curves["pseudo_regret"][:, -1], r.curves["pseudo_regret_se"][:, -1]
    for sample, step in ((0, 1), (2, 3)):
        assert final[step] + 4 * math.hypot(se[sample], se[step]) < final[sample], (final, se)
