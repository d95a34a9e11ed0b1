"""UCB1 against the hand-traced examples of the seeds."""

import numpy as np
import pytest

from bandits import UCB1, make_policy
from tests.bandit_helpers import select_once, stats_from


def test_seed000_selection_step():
    # seeds/000: N = 10; A 4 wins of 6, B 1 of 3, C 0 of 1; c = sqrt(2).
    # bonus sqrt(2 ln 10 / n): 0.876 (A), 1.239 (B), 2.146 (C)
    # scores 0.667 + 0.876 = 1.543, 0.333 + 1.239 = 1.572, 0 + 2.146 = 2.146 -> C (index 2)
    stats = stats_from([[1, 1, 1, 1, 0, 0], [1, 0, 0], [0]])
    arm, work = select_once(UCB1(), stats, t=10)
    assert np.round(work, 3).tolist() == [1.543, 1.572, 2.146]
    assert arm == 2


def test_seed000_after_c_loses_again():
    # C now 0 of 2, N = 11: C = sqrt(2 ln 11 / 2) = 1.549, A = 0.667 + sqrt(2 ln 11 / 6) = 1.561,
    # B = 0.333 + sqrt(2 ln 11 / 3) = 1.597 -> B is explored next (index 1).
    # (Exactly, B = 1/3 + 1.2644 = 1.59769: the seed adds the rounded 0.333, hence 1.597.)
    stats = stats_from([[1, 1, 1, 1, 0, 0], [1, 0, 0], [0, 0]])
    arm, work = select_once(UCB1(), stats, t=11)
    assert work == pytest.approx([1.561, 1.597, 1.549], abs=1e-3)
    assert arm == 1


def test_seed001_worked_example():
    # seeds/001: N = 10; A W=4.0 N=6, B W=1.2 N=3, C W=0.8 N=1; c = sqrt(2)
    # A 0.667 + 0.876 = 1.5427 (the seed truncates to 1.542), B 0.400 + 1.239 = 1.6389 (1.638),
    # C 0.800 + 2.146 = 2.946 -> C.  Rewards chosen to give these sums: A six pulls of 2/3,
    # B three pulls of 0.4, C one pull of 0.8.
    stats = stats_from([[4 / 6] * 6, [0.4] * 3, [0.8]])
    arm, work = select_once(UCB1(), stats, t=10)
    assert work[0] == pytest.approx(1.542, abs=1e-3)
    assert work[1] == pytest.approx(1.638, abs=1e-3)
    assert work[2] == pytest.approx(2.946, abs=1e-3)
    assert arm == 2


def test_constant_scales_bonus_only():
    # c = 0 is greedy on the means: 0.667, 0.333, 0.0 -> A
    stats = stats_from([[1, 1, 1, 1, 0, 0], [1, 0, 0], [0]])
    arm, work = select_once(make_policy("ucb1:c=0"), stats, t=10)
    assert arm == 0
    assert work[0] == pytest.approx(4 / 6)


def test_untried_arm_first_uniformly():
    # arms 1 and 3 untried -> one of them, each about half the time over seeds
    stats = stats_from([[1.0], [], [1.0], []])
    picks = [select_once(UCB1(), stats, t=2, seed=s)[0] for s in range(400)]
    assert set(picks) == {1, 3}
    assert 150 < picks.count(1) < 250


def test_masked_arms_never_chosen():
    stats = stats_from([[0.1], [0.9], [0.5]])
    valid = np.array([True, False, True])
    arm, _ = select_once(UCB1(), stats, t=3, valid=valid)
    # arm 1 has the best mean but is masked; arm 2 (0.5) beats arm 0 (0.1) at equal bonus
    assert arm == 2
