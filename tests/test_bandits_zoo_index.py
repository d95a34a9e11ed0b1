"""The zoo's index policies (bandits/zoo) against hand-computed values, with their boundary cases:
t_i = 1, zero variance, log(t / t_i) <= 0 (MOSS, KL-UCB+)."""
import math

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import beta as beta_law
from scipy.stats import norm

from bandits import make_policy
from bandits.zoo.quantiles import beta_cdf, beta_quantile, normal_quantile
from tests.bandit_helpers import select_once, stats_from

# The common example: t = 7 plays; arm 0: rewards 1, 0, 1, 1 (t_0 = 4, w = 0.75, Q = 3, biased
# variance 3/4 - 0.75^2 = 0.1875); arm 1: one reward 0.5 (t_1 = 1); arm 2: 0.3, 0.3 (zero variance).
PULLS = [[1, 0, 1, 1], [0.5], [0.3, 0.3]]
LN7 = 1.9459101490553132


def test_ucb1tuned_hand_values():
    # V_i = var_i + sqrt(2 ln t / t_i):
    #   arm 0: 0.1875 + sqrt(2 * 1.94591 / 4) = 1.17388 -> min(1/4, V) = 1/4 ->
    #          U = 0.75 + sqrt(1.94591 / 4 * 0.25) = 0.75 + 0.34874 = 1.09874
    #   arm 1 (t_i = 1): V = 0 + sqrt(2 * 1.94591) = 1.97277 -> 1/4 -> U = 0.5 + sqrt(1.94591 / 4) = 1.19748
    #   arm 2 (zero variance): V = sqrt(1.94591) = 1.39496 -> 1/4 -> U = 0.3 + sqrt(1.94591 / 8) = 0.79319
    arm, work = select_once(make_policy("ucb1tuned"), stats_from(PULLS), t=7)
    assert work == pytest.approx([1.0987397085, 1.1974794171, 0.7931924256], abs=1e-9)
    assert arm == 1


def test_ucb1tuned_variance_below_the_cap():
    # zero variance, t_i = 1000 of t = 1100: V = sqrt(2 ln 1100 / 1000) = sqrt(0.0140061) = 0.118348 < 1/4,
    # U = 0.3 + sqrt(7.003065 / 1000 * 0.118348) = 0.3 + 0.028789 = 0.328789
    stats = stats_from([[0.3] * 1000, [0.2] * 100])
    _, work = select_once(make_policy("ucb1tuned"), stats, t=1100)
    assert work[0] == pytest.approx(0.3287888050, abs=1e-9)
    # arm 1 (t_i = 100, zero variance): V = sqrt(2 ln 1100 / 100) = 0.37425 -> 1/4: 0.2 + sqrt(7.003065 / 400)
    assert work[1] == pytest.approx(0.2 + math.sqrt(math.log(1100) / 400), abs=1e-12)


def test_ucbv_hand_values():
    # b = zeta = c = 1, ln 7 = 1.94591:  U = w + sqrt(2 V ln t / t_i) + 3 ln t / t_i
    #   arm 0: 0.75 + sqrt(2 * 0.1875 * 1.94591 / 4) + 3 * 1.94591 / 4 = 0.75 + 0.42712 + 1.45943 = 2.63655
    #   arm 1 (t_i = 1, V = 0): 0.5 + 3 * 1.94591 = 6.33773
    #   arm 2 (zero variance): 0.3 + 3 * 1.94591 / 2 = 3.21887
    arm, work = select_once(make_policy("ucbv"), stats_from(PULLS), t=7)
    assert work == pytest.approx([2.6365497813, 6.3377304472, 3.2188652236], abs=1e-9)
    assert arm == 1
    # b = 2, zeta = 0.5, c = 0.25 on arm 0: 0.75 + sqrt(2 * 0.1875 * 0.5 ln 7 / 4) + 3 * 0.25 * 2 * 0.5 ln 7 / 4
    _, work = select_once(make_policy("ucbv:b=2,zeta=0.5,c=0.25"), stats_from(PULLS), t=7)
    assert work[0] == pytest.approx(0.75 + math.sqrt(0.1875 * LN7 / 4) + 0.75 * LN7 / 4, abs=1e-12)


def test_moss_known_horizon_hand_values():
    # T = 100, K = 3, t_i = 4, 1, 50 (w = 0.75, 0.5, 0.3):
    #   arm 0: 0.75 + sqrt(ln(100 / 12) / 4) = 0.75 + sqrt(2.12026 / 4) = 1.47806
    #   arm 1 (t_i = 1): 0.5 + sqrt(ln(100 / 3)) = 0.5 + 1.87258 = 2.37258
    #   arm 2: ln(100 / 150) = -0.405 <= 0 -> no bonus, U = w = 0.3
    stats = [[1, 0, 1, 1], [0.5], [0.3] * 50]  # (recorded through the policy: its per-arm ln t_i follows)
    arm, work = select_once(make_policy("moss:horizon=100"), stats, t=55)
    assert work == pytest.approx([1.4780562369, 2.3725805449, 0.3], abs=1e-9)
    assert arm == 1


def test_anytime_moss_replaces_the_horizon_by_t():
    # t = 55: arm 0: 0.75 + sqrt(ln(55 / 12) / 4) = 0.75 + sqrt(1.52243 / 4) = 1.36693;
    # arm 1: 0.5 + sqrt(ln(55 / 3)) = 2.20550; arm 2: ln(55 / 150) < 0 -> 0.3
    stats = [[1, 0, 1, 1], [0.5], [0.3] * 50]  # (recorded through the policy: its per-arm ln t_i follows)
    policy = make_policy("moss:anytime=true")
    assert not policy.needs_horizon  # (anytime needs no horizon)
    _, work = select_once(policy, stats, t=55)
    assert work == pytest.approx([1.3669332491, 2.2054972579, 0.3], abs=1e-9)


def test_moss_needs_a_horizon_and_is_bound_to_the_run():
    policy = make_policy("moss")
    assert policy.needs_horizon and policy.bind(500).horizon == 500
    with pytest.raises(ValueError, match="needs a horizon"):
        policy.init(1, 3)
    with pytest.raises(ValueError, match="horizon must be an integer >= 1, got 0"):
        make_policy("moss:horizon=0")


def kl(p, q):
    """Bernoulli KL written out independently of the library (0 log 0 = 0)."""
    out = 0.0
    if p > 0:
        out += p * math.log(p / q)
    if p < 1:
        out += (1 - p) * math.log((1 - p) / (1 - q))
    return out


def test_klucb_plus_uses_log_t_over_t_i():
    # t = 10; arm 0: 4/6 with t_0 = 6 -> 6 kl(2/3, q) = ln(10 / 6) = 0.51083;
    # arm 1: 1/3 with t_1 = 3 -> 3 kl(1/3, q) = ln(10 / 3) = 1.20397; arm 2: w = 1 (t_2 = 1) -> U = 1
    stats = [[1, 1, 1, 1, 0, 0], [1, 0, 0], [1]]  # (recorded through the policy: its per-arm ln t_i follows)
    _, work = select_once(make_policy("klucb:plus=true"), stats, t=10)
    refs = [brentq(lambda q, p=p, n=n: n * kl(p, q) - math.log(10 / n), p + 1e-12, 1 - 1e-12)
            for p, n in [(4 / 6, 6), (1 / 3, 3)]]
    assert work[:2] == pytest.approx(refs, abs=1e-8)
    assert work[2] == 1.0
    # plain KL-UCB's levels are larger (ln 10 for every arm): the plus index is below it
    _, plain = select_once(make_policy("klucb"), stats, t=10)
    assert (work[:2] < plain[:2]).all()


def test_klucb_plus_boundary_log_t_over_t_i_at_most_zero():
    # a tree node visited t = 5 times whose child has t_i = 6 pulls (reused tree): ln(5 / 6) < 0 ->
    # level 0 -> U = w (Bernoulli and Gaussian); t_i = t gives ln 1 = 0 likewise.  (The Bernoulli
    # bisection stops within 1e-9 of where its rounded kl(w, q) leaves 0: a few 1e-9 above w.)
    stats = [[1, 1, 1, 1, 0, 0], [1, 0, 0, 1, 1]]  # (recorded through the policy: its per-arm ln t_i follows)
    for spec, tol in (("klucb:plus=true", 1e-8), ("klucb:plus=true,family=gaussian", 1e-15)):
        _, work = select_once(make_policy(spec), stats, t=5)
        assert work[0] == pytest.approx(4 / 6, abs=tol) and work[1] == pytest.approx(0.6, abs=tol)
        assert work[0] >= 4 / 6 - 1e-15 and work[1] >= 0.6 - 1e-15


def test_gaussian_klucb_plus_hand_value():
    # sigma = 2, t = 20, arm of 4 pulls with mean 0.5: 0.5 + 2 sqrt(2 ln(20 / 4) / 4) = 0.5 + 2 * 0.89712 = 2.29424
    stats = [[0.2, 0.8, 0.4, 0.6]]  # (recorded through the policy: its per-arm ln t_i follows)
    _, work = select_once(make_policy("klucb:plus=true,family=gaussian,sigma=2"), stats, t=20)
    assert work[0] == pytest.approx(0.5 + 2 * math.sqrt(2 * math.log(5) / 4), abs=1e-12)


def test_bayes_ucb_beta_quantiles_in_closed_form():
    # t_i = 1: one success -> Beta(2, 1), CDF x^2, quantile sqrt(p); one failure -> Beta(1, 2),
    # CDF 1 - (1 - x)^2, quantile 1 - sqrt(1 - p).  t = 4, c = 0: p = 1 - 1/4 = 0.75 ->
    # sqrt(0.75) = 0.866025 and 1 - sqrt(0.25) = 0.5.
    arm, work = select_once(make_policy("bayesucb"), stats_from([[1], [0]]), t=4)
    assert work == pytest.approx([math.sqrt(0.75), 0.5], abs=1e-10)
    assert arm == 0
    # c = 1, T = 100: p = 1 - 1 / (4 ln 100) = 0.945713 -> sqrt(p) = 0.972478
    _, work = select_once(make_policy("bayesucb:c=1,horizon=100"), stats_from([[1], [0]]), t=4)
    assert work[0] == pytest.approx(0.9724778608, abs=1e-9)


def test_bayes_ucb_beta_quantile_matches_scipy():
    # arm 0: 2 successes of 3 -> Beta(3, 2); arm 1: 10 of 40 -> Beta(11, 31); t = 43, p = 1 - 1/43
    stats = stats_from([[1, 1, 0], [1] * 10 + [0] * 30])
    _, work = select_once(make_policy("bayesucb"), stats, t=43)
    assert work == pytest.approx([beta_law.ppf(1 - 1 / 43, 3, 2), beta_law.ppf(1 - 1 / 43, 11, 31)], abs=1e-10)


def test_bayes_ucb_gaussian_hand_value():
    # 3 pulls 0.2, 0.5, 0.8 (S = 1.5), sigma = 1: posterior N(1.5 / 4, 1 / 4); t = 10, p = 0.9,
    # Phi^{-1}(0.9) = 1.2815516 -> U = 0.375 + 1.2815516 * 0.5 = 1.0157758
    _, work = select_once(make_policy("bayesucb:prior=gaussian"), stats_from([[0.2, 0.5, 0.8]]), t=10)
    assert work[0] == pytest.approx(0.375 + 0.5 * 1.2815515655446004, abs=1e-12)
    # sigma = 2 doubles the posterior s.d.
    _, work = select_once(make_policy("bayesucb:prior=gaussian,sigma=2"), stats_from([[0.2, 0.5, 0.8]]), t=10)
    assert work[0] == pytest.approx(0.375 + 1.0 * 1.2815515655446004, abs=1e-12)


def test_quantile_functions_against_scipy():
    gen = np.random.default_rng(0)
    for p in (1e-12, 1e-5, 0.02, 0.3, 0.5, 0.77, 0.975, 1 - 1e-9):
        assert normal_quantile(p) == pytest.approx(norm.ppf(p), rel=1e-14, abs=1e-14)
    assert normal_quantile(0.0) == -math.inf and normal_quantile(1.0) == math.inf
    for _ in range(300):
        a, b = 1 + gen.integers(0, 3000) + gen.random(), 1 + gen.integers(0, 3000) + gen.random()
        p, x = 1 - 1 / gen.integers(2, 20_000), gen.random()
        assert beta_quantile(p, a, b) == pytest.approx(beta_law.ppf(p, a, b), abs=1e-10)
        assert beta_cdf(x, a, b) == pytest.approx(beta_law.cdf(x, a, b), abs=1e-12)


def test_bayes_ucb_horizon_only_needed_with_c():
    assert not make_policy("bayesucb").needs_horizon
    assert make_policy("bayesucb:c=1").needs_horizon
    assert make_policy("bayesucb:c=1").bind(1000).horizon == 1000


@pytest.mark.parametrize("spec,message", [
    ("ucbv:b=0", "b must be > 0"), ("ucbv:zeta=-1", "zeta must be > 0"), ("ucbv:c=-0.5", "c must be >= 0"),
    ("moss:anytime=maybe", "anytime must be true or false"), ("klucb:plus=2", "plus must be true or false"),
    ("bayesucb:prior=poisson", "prior must be one of"), ("bayesucb:c=-1", "c must be >= 0"),
    ("bayesucb:sigma=0", "sigma must be > 0"), ("ucb1tuned:c=1", "unknown parameter 'c' for policy 'ucb1tuned'"),
])
def test_bad_parameters_name_the_parameter_and_its_range(spec, message):
    with pytest.raises(ValueError, match=message):
        make_policy(spec)


def test_bayes_ucb_lazy_beta_evaluation_chooses_what_evaluating_every_arm_chooses():
    # The Beta form computes few quantiles per play (cached bounds at p_{t0} and p_{1.1 t0}); at every
    # play of a long run its arm must be an argmax of the p_t quantiles of all arms, computed here
    # with scipy (a unique argmax: exactly that arm).  The KL-UCB paper's 10 arms, 4000 plays.
    from scipy.special import betaincinv

    means = np.array([0.1, 0.05, 0.05, 0.05, 0.02, 0.02, 0.02, 0.01, 0.01, 0.01])
    gen = np.random.default_rng(5)
    for spec, horizon in (("bayesucb", None), ("bayesucb:c=1,horizon=4000", 4000)):
        policy = make_policy(spec)
        batch = policy.init(1, means.size)
        stream = np.random.default_rng(1)
        checked = 0
        for t in range(4000):
            arm = int(policy.select(batch, stream)[0])
            n, s = batch.stats[0, 0], batch.stats[0, 1]
            if (n > 0).all():
                factor = math.log(horizon) if horizon else 1.0
                q = betaincinv(1 + s, 1 + n - s, 1 - 1 / (t * factor))
                top = np.flatnonzero(q >= q.max() - 1e-10)
                assert arm in top, (t, arm, top, q)
                checked += 1
            policy.update(batch, np.array([arm]), np.array([float(gen.random() < means[arm])]))
        assert checked > 3900
