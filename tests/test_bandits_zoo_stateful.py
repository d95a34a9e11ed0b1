"""The zoo's stateful policies (bandits/zoo) against hand-computed values: softmax, the gradient
bandit, Exp3, Exp3-IX, discounted and sliding-window UCB, successive rejects and sequential
halving (their phase lengths and round budgets pinned from the formulas); spec round trips,
determinism and bad parameters for every zoo policy."""
import math

import numpy as np
import pytest

from bandits import make_policy
from bandits.rng import Stream
from bandits.zoo.sequential_halving import round_budget, rounds
from bandits.zoo.successive_rejects import log_bar, phase_length
from tests.bandit_helpers import select_once, stats_from

ZOO_SPECS = ["ucb1tuned", "ucbv", "ucbv:b=2,zeta=1.2,c=0.5", "moss:horizon=300", "moss:anytime=true",
             "klucb:plus=true", "klucb:plus=true,family=gaussian", "bayesucb", "bayesucb:prior=gaussian",
             "bayesucb:c=1,horizon=300", "softmax:tau=0.2", "gradient:alpha=0.2,baseline=false", "gradient",
             "exp3:horizon=300", "exp3:gamma=0.2", "exp3ix:horizon=300", "exp3ix:eta=0.1",
             "ducb:gamma=0.95", "swucb:window=25", "sr:horizon=300", "seqhalving:horizon=300"]


def test_softmax_draws_the_boltzmann_distribution():
    # means 0.2, 0.5, 0.4 and tau = 0.1: p ~ exp(2), exp(5), exp(4) = (e^-3, 1, e^-1) / 1.41767
    # = 0.035119, 0.705385, 0.259496.  20 000 draws: standard error at most 0.0035 (4 s.e. = 0.014).
    stats = stats_from([[0.2], [0.5], [0.4]])
    picks = np.array([select_once(make_policy("softmax:tau=0.1"), stats, t=3, seed=s)[0] for s in range(20_000)])
    freq = np.bincount(picks, minlength=3) / picks.size
    p = np.exp(np.array([0.2, 0.5, 0.4]) / 0.1)
    p /= p.sum()
    assert p == pytest.approx([0.035119, 0.705385, 0.259496], abs=1e-6)
    assert (np.abs(freq - p) < 4 * np.sqrt(p * (1 - p) / picks.size)).all()


def test_cached_boltzmann_weights_equal_the_direct_formula_through_value_changes_and_big_moves():
    # exp_weights (bandits/zoo/common.py) caches each arm's exp; after any sequence of value changes
    # (one arm, several, a jump of 1e4 that moves the shift, a new scale, a masked arm) the weights
    # normalised must equal softmax(scale * values) over the valid arms, computed here directly
    from bandits.zoo.common import exp_weights, reset_exp_weights

    gen = np.random.default_rng(3)
    k = 7
    cache, state, work = np.zeros((2, k)), np.zeros(2), np.zeros(k)
    reset_exp_weights(cache, state, 0)
    values = gen.normal(size=k)
    valid = np.ones(k, dtype=np.bool_)
    scale = 2.0
    for step in range(300):
        if step % 50 == 7:
            values[gen.integers(k)] += 1e4 * gen.choice([-1, 1])
        elif step % 60 == 11:
            scale = float(gen.choice([0.5, 2.0, -3.0]))
        elif step % 70 == 13:
            valid = gen.random(k) < 0.7
            valid[gen.integers(k)] = True
        else:
            values[gen.integers(k)] += gen.normal()
        total = exp_weights(values, scale, valid, cache, state, 0, work)
        x = np.where(valid, scale * values, -np.inf)
        direct = np.exp(x - x.max())
        direct /= direct.sum()
        assert np.isfinite(total) and total > 0
        np.testing.assert_allclose(work / total, direct, rtol=1e-9, atol=1e-300)
        assert (work[~valid] == 0).all()


def test_softmax_tries_untried_arms_first():
    stats = stats_from([[0.9], [], [0.1], []])
    picks = {select_once(make_policy("softmax"), stats, t=2, seed=s)[0] for s in range(200)}
    assert picks == {1, 3}


def run_forced(spec, arms, rewards, k, horizon=None):
    """(policy, batch) after select + update with the given arm and reward at each step (one bandit)."""
    policy = make_policy(spec)
    if horizon is not None:
        policy = policy.bind(horizon)
    batch = policy.init(1, k)
    stream = Stream(0)
    for a, x in zip(arms, rewards):
        policy.select(batch, stream)
        policy.update(batch, np.array([a]), np.array([float(x)]))
    return policy, batch


def test_gradient_bandit_updates_with_and_without_baseline():
    # K = 3, alpha = 0.1, H = 0 so pi = 1/3 each.
    # Baseline: R_1 = 1 on arm 0 with Rbar_1 = R_1 -> no change.  R_2 = 0 on arm 1, Rbar_2 = 1:
    #   g = 0.1 (0 - 1) = -0.1: H_1 += -0.1 (1 - 1/3) = -0.0666667; H_0, H_2 -= -0.1 / 3 -> +0.0333333
    _, batch = run_forced("gradient:alpha=0.1", [0, 1], [1.0, 0.0], 3)
    np.testing.assert_allclose(batch.arm_state[0, 0], [1 / 30, -2 / 30, 1 / 30], atol=1e-15)
    assert batch.state[0, 0] == pytest.approx(0.5)  # Rbar after two rewards
    # Without baseline: R_1 = 1 on arm 0: g = 0.1: H_0 = 0.1 * 2/3 = 0.0666667, H_1 = H_2 = -0.0333333
    _, batch = run_forced("gradient:alpha=0.1,baseline=false", [0], [1.0], 3)
    np.testing.assert_allclose(batch.arm_state[0, 0], [2 / 30, -1 / 30, -1 / 30], atol=1e-15)


def test_gradient_bandit_draws_from_the_softmax_of_its_preferences():
    # after the update above: pi = softmax(2/30, -1/30, -1/30); the next selection stores it
    policy, batch = run_forced("gradient:alpha=0.1,baseline=false", [0], [1.0], 3)
    policy.select(batch, 0)
    h = np.array([2 / 30, -1 / 30, -1 / 30])
    np.testing.assert_allclose(batch.arm_state[0, 1], np.exp(h) / np.exp(h).sum(), rtol=1e-14)


def test_exp3_gamma_probabilities_and_weight_update():
    # K = 3, T = 100: gamma = sqrt(3 ln 3 / ((e - 1) 100)) = sqrt(0.0191810) = 0.1384955.
    # p = 1/3 each at first; reward 1 on arm 0: log w_0 += gamma * 1 / (p_0 K) = gamma.
    # Then p_0 = (1 - gamma) e^gamma / (e^gamma + 2) + gamma / 3 = 0.3604298.
    policy, batch = run_forced("exp3", [0], [1.0], 3, horizon=100)
    assert batch.state[0, 0] == pytest.approx(0.1384954976, abs=1e-10)  # gamma
    assert batch.arm_state[0, 0, 0] == pytest.approx(0.1384954976, abs=1e-10)  # log w_0
    policy.select(batch, 0)
    assert batch.arm_state[0, 1, 0] == pytest.approx(0.3604298249, abs=1e-10)
    assert batch.arm_state[0, 1].sum() == pytest.approx(1.0)
    # gamma given: 0.5 -> p = (0.5 * w / sum w) + 0.5 / 3
    policy, batch = run_forced("exp3:gamma=0.5", [2], [0.4], 3)
    policy.select(batch, 0)
    w = np.exp([0.0, 0.0, 0.5 * 0.4 / (1 / 3 * 3)])
    np.testing.assert_allclose(batch.arm_state[0, 1], 0.5 * w / w.sum() + 0.5 / 3, rtol=1e-14)


def test_exp3ix_loss_estimates():
    # K = 3, T = 100: eta = sqrt(2 ln 3 / 300) = 0.0855809, gamma = eta / 2.  Reward 0.25 on arm 0:
    # loss 0.75, Lhat_0 = 0.75 / (1/3 + 0.0427904) = 1.9940245; next p_0 = e^(-eta 1.994) / (e^(...) + 2) = 0.2965466
    policy, batch = run_forced("exp3ix", [0], [0.25], 3, horizon=100)
    assert batch.arm_state[0, 0, 0] == pytest.approx(1.9940245283, abs=1e-9)
    policy.select(batch, 0)
    assert batch.arm_state[0, 1, 0] == pytest.approx(0.2965465512, abs=1e-9)


def test_discounted_ucb_keeps_the_discounted_sums_through_its_rescaling():
    # D-UCB keeps N_i / G and S_i / G with G = gamma^plays (bandits/zoo/ducb.py): after 1500 plays at
    # gamma = 0.6 (1 / G passes 1e150 every ~680 plays, so it rescaled twice) G times its rows must
    # equal the discounted sums computed directly, N_i = sum gamma^(t-s) 1{I_s = i}
    policy = make_policy("ducb:gamma=0.6")
    batch = policy.init(1, 3)
    gen = np.random.default_rng(0)
    n_direct, s_direct = np.zeros(3), np.zeros(3)
    for _ in range(1500):
        arm = int(gen.integers(3))
        x = float(gen.random())
        policy.update(batch, np.array([arm]), np.array([x]))
        n_direct *= 0.6
        s_direct *= 0.6
        n_direct[arm] += 1.0
        s_direct[arm] += x
    g = batch.state[0, 0]
    assert 1e-150 < g <= 1.0 and g > 0.6 ** 1500  # (rescaled: 0.6^1500 is far below the doubles)
    np.testing.assert_allclose(g * batch.arm_state[0, 0], n_direct, rtol=1e-12)
    np.testing.assert_allclose(g * batch.arm_state[0, 1], s_direct, rtol=1e-12)


def test_discounted_ucb_hand_values():
    # gamma = 0.5, xi = 0.6, b = 1; plays: arm 0 reward 1, arm 0 reward 0.5, arm 1 reward 0
    # (select_once records arm by arm).  N_0 = 0.25 + 0.5 = 0.75, S_0 = 0.25 * 1 + 0.5 * 0.5 = 0.5,
    # N_1 = 1, S_1 = 0; n = 1.75, ln 1.75 = 0.5596158.
    #   U_0 = 0.5 / 0.75 + 2 sqrt(0.6 * 0.5596158 / 0.75) = 0.6666667 + 1.3381967 = 2.0048634
    #   U_1 = 0 + 2 sqrt(0.6 * 0.5596158) = 1.1589151;  arm 2 untried: +inf
    arm, work = select_once(make_policy("ducb:gamma=0.5"), [[1.0, 0.5], [0.0], []], t=3)
    lg = math.log(1.75)
    assert work[:2] == pytest.approx([0.5 / 0.75 + 2 * math.sqrt(0.6 * lg / 0.75), 2 * math.sqrt(0.6 * lg)], abs=1e-12)
    assert work[0] == pytest.approx(2.0048634, abs=1e-7) and arm == 2


def test_discounted_ucb_with_gamma_one_is_ucb_with_constant_2b_sqrt_xi():
    # gamma = 1: N_i = t_i, n = t: U = w + 2 b sqrt(xi ln t / t_i), i.e. UCB1 with c = 2 sqrt(0.6)
    pulls = [[1, 0, 1], [0.5, 0.5], [0.2]]
    _, work = select_once(make_policy("ducb:gamma=1"), pulls, t=6)
    _, ref = select_once(make_policy(f"ucb1:c={2 * math.sqrt(0.6)!r}"), stats_from(pulls), t=6)
    np.testing.assert_allclose(work, ref, rtol=1e-14)


def test_sliding_window_ucb_forgets_old_plays():
    # window 3; plays arm 0: 1, 1, 0.2 then arm 1: 0.5, 0 -> the window holds arm 0's 0.2 and both
    # of arm 1's: N_0 = 1, mean 0.2; N_1 = 2, mean 0.25.  t = 5, min(t, 3) = 3, k = sqrt(0.6 ln 3) = 0.811891
    arm, work = select_once(make_policy("swucb:window=3"), [[1, 1, 0.2], [0.5, 0.0]], t=5)
    k = math.sqrt(0.6 * math.log(3))
    assert work == pytest.approx([0.2 + k, 0.25 + k / math.sqrt(2)], abs=1e-12)
    assert arm == 0
    # window 2 with arm 0 played once, then arm 1 twice: arm 0 has left the window -> +inf
    arm, work = select_once(make_policy("swucb:window=2"), [[1.0], [0.5, 0.0]], t=3)
    assert work[0] == math.inf and arm == 0
    assert make_policy("swucb:window=7").state_width == 15  # ring buffer of 7 (arm, reward) pairs + position


def test_successive_rejects_phase_lengths_pinned_for_k20_n2000():
    # logbar(20) = 1/2 + sum_{i=2}^{20} 1/i = H_20 - 1/2 = 3.0977397;
    # n_k = ceil((2000 - 20) / (3.0977397 (21 - k))), k = 1..19:
    expected = [32, 34, 36, 38, 40, 43, 46, 50, 54, 59, 64, 72, 80, 92, 107, 128, 160, 214, 320]
    assert log_bar(20) == pytest.approx(3.0977396571, abs=1e-9)
    assert [phase_length(k, 2000.0, 20) for k in range(1, 20)] == expected
    # a run on 20 arms with deterministic rewards i / 20 (arm i): phase k rejects arm k-1 after
    # n_k pulls; the survivor (arm 19) gets n_19 in the phases and the rest of the budget after.
    policy = make_policy("sr:horizon=2000")
    batch = policy.init(1, 20)
    for _ in range(2000):
        arm = policy.select(batch, 0)
        policy.update(batch, arm, arm / 20.0)
    counts = batch.counts[0]
    assert counts[:19].tolist() == expected
    assert counts[19] == 2000 - sum(expected) and sum(expected) + expected[-1] <= 2000
    assert policy.recommend(batch, 0).tolist() == [19]


def test_sequential_halving_round_budgets_pinned_for_k20_t2000():
    # R = ceil(log2 20) = 5 rounds; |S_r| = 20, 10, 5, 3, 2; t_r = floor(2000 / (|S_r| 5)) = 20, 40, 80, 133, 200
    # (pulls 400 + 400 + 400 + 399 + 400 = 1999 <= 2000).  With rewards i / 20 the survivors are the
    # top halves: arms 10..19, 15..19, 17..19, 18..19, 19; cumulative pulls: arms 0-9: 20, 10-14: 60,
    # 15-16: 140, 17: 273, 18: 473, 19: 473 + the one play left.
    assert rounds(20) == 5
    assert [round_budget(2000.0, s, 5) for s in (20, 10, 5, 3, 2)] == [20, 40, 80, 133, 200]
    policy = make_policy("seqhalving:horizon=2000")
    batch = policy.init(1, 20)
    for _ in range(2000):
        arm = policy.select(batch, 0)
        policy.update(batch, arm, arm / 20.0)
    assert batch.counts[0].tolist() == [20] * 10 + [60] * 5 + [140] * 2 + [273, 473, 474]
    assert policy.recommend(batch, 0).tolist() == [19]


# -- sequential halving's schedule from the formula, its last halving, ties (issue 24, item 14) --
def karnin_schedule(k, budget):
    """Karnin, Koren & Somekh (2013), Algorithm 1, written here from the paper: R = ceil(log2 K)
    rounds (integer arithmetic: (K - 1).bit_length()), |S_0| = K, |S_{r+1}| = ceil(|S_r| / 2),
    t_r = floor(T / (|S_r| R)); returns [(|S_r|, t_r)] per round."""
    n_rounds = (k - 1).bit_length()
    out, size = [], k
    for _ in range(n_rounds):
        out.append((size, budget // (size * n_rounds)))
        size = (size + 1) // 2
    return out


@pytest.mark.parametrize("k, budget, exact", [
    (20, 3600, True),   # Audibert et al.'s Experiment 6 budget: 5 rounds of 720 pulls
    (20, 1800, True),   # Experiment 2: 5 rounds of 360
    (8, 2400, True),    # 3 rounds: 8 x 100, 4 x 200, 2 x 400
    (4, 400, True),     # 2 rounds: 4 x 50, 2 x 100
    (20, 2000, False),  # 20 x 20, 10 x 40, 5 x 80, 3 x 133, 2 x 200 = 1999: one spare play
    (5, 1000, False),   # 3 rounds: 5 x 66, 3 x 111, 2 x 166 = 995
    (3, 10, False),     # 2 rounds: 3 x 1, 2 x 2 = 7
])
def test_sequential_halving_follows_the_published_schedule(k, budget, exact):
    # with rewards i / K (arm i), S_{r+1} is the top half of S_r by index: arm i is in rounds
    # 0 .. (the last round whose |S_r| top arms hold it); its pulls are the sum of those t_r, and
    # the survivor (arm K-1) also plays the budget the rounds leave
    schedule = karnin_schedule(k, budget)
    used = sum(size * t for size, t in schedule)
    assert (used == budget) == exact
    expected = [sum(t for size, t in schedule if i >= k - size) for i in range(k)]
    expected[-1] += budget - used
    policy = make_policy(f"seqhalving:horizon={budget}")
    batch = policy.init(1, k)
    stream = Stream(3)
    for _ in range(budget):
        arm = policy.select(batch, stream)
        policy.update(batch, arm, arm / k)
    assert batch.counts[0].tolist() == expected
    assert [round_budget(float(budget), size, len(schedule)) for size, _ in schedule] == [t for _, t in schedule]
    assert policy.recommend(batch, stream).tolist() == [k - 1]


@pytest.mark.parametrize("budget", [400, 401])
def test_sequential_halving_makes_its_last_halving_when_the_budget_is_used_exactly(budget):
    # K = 4, T = 400: rounds 4 x 50 and 2 x 100 use the budget exactly (T = 401: one spare play).
    # Arm 0 gives 1.0 on its first 50 pulls (round 0), then 0.5; arm 1 gives 0.6, then 0.55;
    # arms 2, 3 give 0.  Round 0 keeps arms 0 and 1; round 1's samples (0.5 against 0.55) keep
    # arm 1: the algorithm as published recommends arm 1.  The mean of all plays would say arm 0
    # ((50 + 100 x 0.5) / 150 = 0.667 against (30 + 55) / 150 = 0.567): that was our answer at
    # T = 400, where the last halving (made only when a next pull is asked for) never came.
    policy = make_policy(f"seqhalving:horizon={budget}")
    batch = policy.init(1, 4)
    stream = Stream(1)
    for _ in range(budget):
        arm = int(policy.select(batch, stream)[0])
        n = batch.counts[0, arm]
        reward = [1.0 if n < 50 else 0.5, 0.6 if n < 50 else 0.55, 0.0, 0.0][arm]
        policy.update(batch, np.array([arm]), np.array([reward]))
    assert batch.counts[0].tolist()[:2] in ([150, 150], [150, 151])
    assert policy.recommend(batch, stream).tolist() == [1]


def _recommendations_when_all_arms_tie(spec, k, budget, n=2000):
    """The arms n bandits recommend after ``budget`` plays of ``spec`` on K arms that all pay 0.5."""
    policy = make_policy(spec).bind(budget)
    batch = policy.init(n, k)
    stream = Stream(11)
    for _ in range(budget):
        policy.update(batch, policy.select(batch, stream), np.full(n, 0.5))
    return np.bincount(policy.recommend(batch, stream), minlength=k)


@pytest.mark.parametrize("spec, k, budget", [
    ("seqhalving", 4, 400),  # the budget used exactly: the last halving is the recommendation's
    ("seqhalving", 4, 401),  # one spare play: select made the last halving
    ("sr", 4, 4),            # successive rejects uses its budget exactly only at n = K (n_k = 1):
                             # all three rejections are the recommendation's
    ("sr", 4, 100),          # spare plays: select made the rejections
    ("ucb1", 4, 40),         # Policy.recommend: the best mean, here a 4-way tie
])
def test_recommendation_ties_favour_no_arm_index(spec, k, budget):
    # every arm pays 0.5, so every elimination and the final choice are exact ties: each of the
    # 4 arms must be recommended by about a quarter of 2000 bandits (binomial s.d.
    # sqrt(2000 x 1/4 x 3/4) = 19.4; 5 s.d.: 403..597).  Lowest-index ties gave arm 0 every
    # recommendation (sr at n = K, ucb1) or half of them (seqhalving at T = 400: arm 0 is in the
    # final pair half the time and won every tie there).
    counts = _recommendations_when_all_arms_tie(spec, k, budget)
    assert counts.sum() == 2000 and ((403 <= counts) & (counts <= 597)).all(), counts


def test_best_arm_policies_recommend_before_the_end_and_other_policies_recommend_the_best_mean():
    # Sequential halving on 4 arms, T = 400: R = 2, t_0 = 50: after 100 plays arms 0, 1 have 50
    # pulls; arm 1 (reward 0.6) beats arm 0 (0.5) among the active arms.
    policy = make_policy("seqhalving:horizon=400")
    batch = policy.init(1, 4)
    for _ in range(100):
        arm = policy.select(batch, 0)
        policy.update(batch, arm, np.array([0.5, 0.6, 0.1, 0.9])[arm])
    assert batch.counts[0].tolist() == [50, 50, 0, 0] and policy.recommend(batch, 0).tolist() == [1]
    ucb = make_policy("ucb1")
    b = ucb.init(2, 3)
    ucb.update(b, np.array([0, 2]), np.array([0.3, 0.8]))
    ucb.update(b, np.array([1, 0]), np.array([0.9, 0.1]))
    assert ucb.recommend(b, 0).tolist() == [1, 2]  # the highest mean among tried arms


@pytest.mark.parametrize("spec", ZOO_SPECS)
def test_same_seed_same_arms_and_spec_round_trip(spec):
    policy = make_policy(spec)
    assert make_policy(policy.spec) == policy

    def trajectory(seed):
        batch = policy.init(4, 6)
        stream = Stream(seed)
        out = []
        for step in range(150):
            arms = policy.select(batch, stream)
            policy.update(batch, arms, ((arms * 7 + step) % 5) / 4.0)  # deterministic rewards in [0, 1]
            out.append(arms)
        return np.array(out)

    first = trajectory(1)
    assert np.array_equal(first, trajectory(1))
    assert (first >= 0).all() and (first < 6).all()


@pytest.mark.parametrize("spec,message", [
    ("softmax:tau=0", "tau must be > 0"), ("gradient:alpha=-1", "alpha must be > 0"),
    ("gradient:baseline=2", "baseline must be true or false"), ("exp3:gamma=1.5", "gamma must be <= 1"),
    ("exp3:horizon=0", "horizon must be an integer >= 1"), ("exp3ix:eta=0", "eta must be > 0"),
    ("ducb:gamma=0", "gamma must be > 0"), ("ducb:gamma=1.01", "gamma must be <= 1"), ("ducb:xi=0", "xi must be > 0"),
    ("swucb:window=0", "window must be >= 1"), ("swucb:window=2.5", "window must be an integer"),
    ("sr:horizon=-3", "horizon must be an integer >= 1"), ("seqhalving:horizon=1.5", "horizon must be an integer"),
])
def test_bad_parameters_name_the_parameter_and_its_range(spec, message):
    with pytest.raises(ValueError, match=message):
        make_policy(spec)


@pytest.mark.parametrize("spec", ["exp3", "exp3ix", "sr", "seqhalving", "moss"])
def test_horizon_policies_are_bound_to_the_run(spec):
    policy = make_policy(spec)
    assert policy.needs_horizon and policy.bind(777).horizon == 777
    with pytest.raises(ValueError, match="needs a horizon"):
        policy.init(1, 3)
