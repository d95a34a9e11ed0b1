"""Testbeds: arm means and rewards are fixed functions of the seed (common random numbers)."""
import numpy as np
import pytest

from bandits.rng import counter_normal, counter_uniform
from testbeds.testbed import MEAN_DRAW, BernoulliTestbed, GaussianTestbed, make_testbed


def test_gaussian_means_are_counter_draws_scaled_by_mean_sd():
    # m[i, a] = mean_sd * counter_normal(seed, i, a, MEAN_DRAW) (module docstring)
    tb = GaussianTestbed(n_tasks=3, n_arms=4, mean_sd=2.5, seed=7)
    expected = np.array([[2.5 * counter_normal(7, i, a, MEAN_DRAW) for a in range(4)] for i in range(3)])
    np.testing.assert_array_equal(tb.means, expected)
    assert tb.means.shape == (3, 4) and not tb.means.flags.writeable


def test_means_of_a_task_do_not_depend_on_the_number_of_tasks():
    small, big = GaussianTestbed(5, 6, seed=3), GaussianTestbed(50, 6, seed=3)
    np.testing.assert_array_equal(small.means, big.means[:5])
    assert not np.array_equal(GaussianTestbed(5, 6, seed=4).means, small.means)


def test_gaussian_means_are_standard_normal():
    # 2000 x 60 = 120 000 draws of N(0, 1): the sample mean has s.e. 1/sqrt(120000) = 0.0029,
    # the sample variance s.e. sqrt(2/120000) = 0.0041; tolerances are 5 s.e.
    means = GaussianTestbed(2000, 60, seed=0).means
    assert abs(means.mean()) < 5 * 0.0029
    assert abs(means.var() - 1.0) < 5 * 0.0041


def test_bernoulli_means_are_uniform():
    # U(0, 1): mean 1/2 (s.e. sqrt(1/12 / 60000) = 0.0012), variance 1/12 = 0.0833 (s.e. ~0.0003)
    means = BernoulliTestbed(1000, 60, seed=1).means
    assert means.min() >= 0.0 and means.max() <= 1.0
    assert abs(means.mean() - 0.5) < 5 * 0.0012
    assert abs(means.var() - 1.0 / 12.0) < 5 * 0.0003


def test_gaussian_rewards_are_mean_plus_sd_times_counter_normal():
    tb = GaussianTestbed(2, 3, reward_sd=0.5, seed=11)
    for i, a, j in [(0, 0, 0), (1, 2, 5), (1, 1, 1234)]:
        assert tb.reward(i, a, j) == tb.means[i, a] + 0.5 * counter_normal(11, i, a, j)


def test_gaussian_reward_law():
    # 20 000 pulls of one arm: sample mean within 5 s.e. (reward_sd / sqrt(20000) = 0.0106 * 1.5)
    tb = GaussianTestbed(1, 2, reward_sd=1.5, seed=2)
    x = np.array([tb.reward(0, 1, j) for j in range(20_000)])
    assert abs(x.mean() - tb.means[0, 1]) < 5 * 1.5 / np.sqrt(20_000)
    assert abs(x.std() - 1.5) < 0.05


def test_bernoulli_rewards_are_counter_uniform_below_the_mean():
    tb = BernoulliTestbed(1, 2, seed=5, means=[0.3, 0.8])
    x = np.array([tb.reward(0, 0, j) for j in range(10_000)])
    assert set(np.unique(x)) <= {0.0, 1.0}
    np.testing.assert_array_equal(x, [1.0 if counter_uniform(5, 0, 0, j) < 0.3 else 0.0 for j in range(10_000)])
    # frequency of ones: s.e. sqrt(0.3 * 0.7 / 10000) = 0.0046
    assert abs(x.mean() - 0.3) < 5 * 0.0046


def test_given_means_and_derived_quantities():
    tb = BernoulliTestbed(2, 3, means=[[0.1, 0.9, 0.5], [0.7, 0.2, 0.7]])
    np.testing.assert_array_equal(tb.best_means, [0.9, 0.7])
    np.testing.assert_allclose(tb.gaps, [[0.8, 0.0, 0.4], [0.0, 0.5, 0.0]])
    assert tb.config()["means"] == [[0.1, 0.9, 0.5], [0.7, 0.2, 0.7]]
    assert make_testbed("gaussian", 2, 3, seed=1).config() == GaussianTestbed(2, 3, seed=1).config()


@pytest.mark.parametrize("make, message", [
    (lambda: GaussianTestbed(0, 5), "n_tasks must be an integer >= 1, got 0"),
    (lambda: GaussianTestbed(-3, 5), "n_tasks must be an integer >= 1, got -3"),
    (lambda: GaussianTestbed(2.5, 5), "n_tasks must be an integer >= 1"),
    (lambda: GaussianTestbed(2, 0), "n_arms must be an integer >= 1, got 0"),
    (lambda: BernoulliTestbed(2, -1), "n_arms must be an integer >= 1, got -1"),
    (lambda: BernoulliTestbed(0, 2), "n_tasks must be an integer >= 1"),
    (lambda: GaussianTestbed(2, 2, mean_sd=0), "mean_sd must be a finite number > 0"),
    (lambda: GaussianTestbed(2, 2, reward_sd=float("nan")), "reward_sd must be a finite number > 0"),
    (lambda: GaussianTestbed(2, 2, seed=-1), "seed must be an integer >= 0"),
    (lambda: BernoulliTestbed(2, 2, means=[0.5, 1.5]), r"means must lie in \[0, 1\]"),
    (lambda: BernoulliTestbed(2, 2, means=[0.5, 0.5, 0.5]), r"means must have shape \(2,\) or \(2, 2\)"),
    (lambda: make_testbed("poisson", 2, 2), "env must be one of gaussian, bernoulli"),
    (lambda: GaussianTestbed(2, 2).reward(2, 0, 0), r"task must lie in 0..1"),
    (lambda: GaussianTestbed(2, 2).reward(0, 0, -1), "j must be an integer >= 0"),
])
def test_bad_input_names_the_argument(make, message):
    with pytest.raises(ValueError, match=message):
        make()
