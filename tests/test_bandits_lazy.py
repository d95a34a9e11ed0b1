"""Lazy selection (bandits/lazy.py): Bernoulli KL-UCB, KL-UCB+ and Bayes-UCB's Beta form compute
only the indices that can win; the arm they choose, random tie-breaks included, must be the one
evaluating every arm chooses.  The reference here is the same index written as a plain index
policy (bandits.index_policy: every arm evaluated at every selection), run on the same rewards
with the same streams: the traces of arms must be identical at every play, on the testbed and as
a node policy in a search with RAVE (whose blended statistics move without the visit counts)."""
import math

import numba
import numpy as np
import pytest

import bandits
from bandits import make_policy
from bandits.klucb import bernoulli_index, exploration_level
from bandits.stats import COUNT, MEAN, SUM
from bandits.zoo.bayesucb import beta_index, level
from testbeds.runner import run_testbed
from testbeds.testbed import BernoulliTestbed
from treepolicies import search
from treepolicies.games import make_game

from tests.bandit_helpers import select_once


@bandits.index_policy("t_full_klucb", c=0.0)
@numba.njit
def _full_klucb(stats, i, t, params, state):
    return bernoulli_index(stats[MEAN, i], exploration_level(t, params[0]) / stats[COUNT, i])


@bandits.index_policy("t_full_klucbplus", c=0.0)
@numba.njit
def _full_klucb_plus(stats, i, t, params, state):
    n = stats[COUNT, i]
    return bernoulli_index(stats[MEAN, i], max(0.0, exploration_level(t, params[0]) - math.log(n)) / n)


@bandits.index_policy("t_full_bayesucb", c=0.0, big_t=1.0)  # (big_t: Bayes-UCB's T, here a plain number)
@numba.njit
def _full_bayes(stats, i, t, params, state):
    return beta_index(stats, i, level(t, params[1], params[0]))


PAIRS = [("klucb", "t_full_klucb"), ("klucb:c=3", "t_full_klucb:c=3"),
         ("klucb:plus=true", "t_full_klucbplus"), ("klucb:plus=true,c=1", "t_full_klucbplus:c=1"),
         ("bayesucb", "t_full_bayesucb"), ("bayesucb:c=1,horizon=3000", "t_full_bayesucb:c=1,big_t=3000")]


@pytest.mark.parametrize("lazy,full", [PAIRS[0]] + [pytest.param(*p, marks=pytest.mark.slow) for p in PAIRS[1:]])
def test_lazy_selection_plays_exactly_the_full_evaluation_on_the_testbed(lazy, full):
    # (the default tier: KL-UCB; the other pairs compile a testbed loop each: the slow tier)
    # 8 Bernoulli tasks of 12 arms, 3000 plays: Bernoulli rewards make exact ties common (equal
    # counts and sums), so the random tie-breaks are compared too
    tb = BernoulliTestbed(n_tasks=8, n_arms=12, seed=3)
    r = run_testbed([lazy, full], tb, horizon=3000, seed=7, trace=True, progress=False)
    np.testing.assert_array_equal(r.trace["arms"][0], r.trace["arms"][1])
    assert len(np.unique(r.trace["arms"][0][0])) == 12  # (every arm played: not a degenerate run)


@pytest.mark.parametrize("lazy,full", [PAIRS[0], PAIRS[2], PAIRS[4]])
@pytest.mark.parametrize("options", [{}, {"rave": True}, {"rave": True, "grave_ref": 20}])
def test_lazy_selection_searches_exactly_as_the_full_evaluation(lazy, full, options):
    # a node's children's statistics as the policy sees them change with RAVE without their visit
    # counts changing: the lazy bounds are keyed on the sums too, so the searches stay identical
    game = make_game("connect4")
    a = search(game, lazy, iterations=3000, seed=11, early_stop=False, **options)
    b = search(game, full, iterations=3000, seed=11, early_stop=False, **options)
    np.testing.assert_array_equal(a.visits, b.visits)
    assert a.move == b.move and a.tree_size == b.tree_size


def test_lazy_selection_follows_the_shared_index_rule():
    # untried valid arms first; a masked arm never (even untried); ties at random among the
    # maximal arms: two arms with the same statistics, the third worse
    policy = make_policy("klucb")
    valid = np.array([True, False, True])
    arm, work = select_once(policy, [[1, 0], [], []], t=2, valid=valid)
    assert arm == 2 and work[2] == np.inf and work[1] == -np.inf
    picks = {select_once(policy, [[1, 0], [1, 0], [0, 0]], t=6, seed=s)[0] for s in range(40)}
    assert picks == {0, 1}
    # the index where computed: 2 kl(1/2, q) = ln 6 -> q = 0.9348... (scipy-free: bisection here)
    _, work = select_once(policy, [[1, 0], [1, 0], [0, 0]], t=6)
    lo, hi = 0.5, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        d = 0.5 * math.log(0.5 / mid) + 0.5 * math.log(0.5 / (1 - mid))
        lo, hi = (mid, hi) if 2 * d <= math.log(6) else (lo, mid)
    assert max(work[0], work[1]) == pytest.approx(lo, abs=1e-9)


def test_the_lazy_bounds_follow_a_changed_sum_at_the_same_count():
    # the same counts, another sum: the cached bounds must not be reused (the key holds S_i)
    policy = make_policy("klucb")
    batch = policy.init(1, 2)
    stats, arm_state = batch.stats[0], batch.arm_state[0]
    for arm, reward in ((0, 1.0), (1, 0.0), (0, 1.0), (1, 0.0)):
        bandits.kernels.record_row(policy.kernels, policy.params, batch.state[0], arm_state, stats, arm, reward)
    work = np.zeros(2)
    rng = bandits.Stream(0).state
    valid = np.ones(2, dtype=np.bool_)
    assert bandits.kernels.select_row(policy.kernels, policy.params, batch.state[0], arm_state, stats, valid,
                                      4, rng, work) == 0
    stats[SUM] = [0.0, 2.0]   # as a RAVE view would: arm 1 now looks best, counts unchanged
    stats[MEAN] = [0.0, 1.0]
    assert bandits.kernels.select_row(policy.kernels, policy.params, batch.state[0], arm_state, stats, valid,
                                      4, rng, work) == 1
