"""Modified improved UCB and Mi-UCT's node schedule (docs/algorithms.md)."""
import math

import numpy as np
import pytest

from bandits import ModifiedImprovedUCB, make_policy
from bandits.modified_improved_ucb import R_CHOICES, advance, init
from tests.bandit_helpers import select_once, stats_from


def schedule_state(policy, n_arms, t):
    state = np.zeros(policy.state_width)
    valid = np.ones(n_arms, dtype=np.bool_)
    init(policy.params, state, np.zeros((n_arms, 1)), valid)
    for step in range(t + 1):  # advance is called at every play, as in a search
        advance(policy.params, state, valid, step)
    return state  # columns: T, Delta, n, deltaUpdate, armCount, halvings, episodes


def test_mi_uct_node_creation_values():
    # docs/algorithms.md: at creation Delta = 1, T = 2, n = 2, deltaUpdate = 2 * armCount
    state = schedule_state(ModifiedImprovedUCB(episodic=True), 81, 0)
    assert state[:5].tolist() == [2.0, 1.0, 2.0, 162.0, 81.0]


def test_delta_first_halved_at_visit_2119_with_81_children():
    # Episodes with 81 arms: t=2 -> T=4, n=ceil(2 ln 4)=3, deadline 2+81*3=245; t=4 -> T=16, n=6,
    # deadline 4+486=490; t=16 -> T=256, n=12, deadline 16+972=988; t=256 -> T=65536, n=23,
    # deadline 256+81*23=2119.  So Delta is 1 until t = 2118 and 0.5 from t = 2119 on.
    policy = ModifiedImprovedUCB(episodic=True)
    before = schedule_state(policy, 81, 2118)
    after = schedule_state(policy, 81, 2119)
    assert before[:4].tolist() == [65536.0, 1.0, 23.0, 2119.0]
    assert after[1] == 0.5
    # after halving: n = ceil(2 log(65536/4) / 0.25) = ceil(8 * 9.704) = 78, deadline 2119 + 81*78
    assert after[2] == math.ceil(8 * math.log(65536 / 4)) == 78
    assert after[3] == 2119 + 81 * 78


def test_guard_never_halves_below_e():
    # Known horizon T = 10, 2 arms: T (Delta/2)^2 = 2.5 < e, so Delta stays 1 forever.
    state = schedule_state(ModifiedImprovedUCB(horizon=10), 2, 500)
    assert state[1] == 1.0 and state[5] == 0


@pytest.mark.parametrize("episodic", [False, True])
def test_no_r_is_greedy_once_all_arms_tried(episodic):
    # r_i = 1: every arm gets the same bonus sqrt(log(T Delta^2) / (2n)), so the argmax is the
    # argmax of the means.  Property check over 300 random bandits (all arms tried).
    policy = make_policy(f"miucb:r=none,episodic={str(episodic).lower()}")
    policy = policy.bind(1000)
    gen = np.random.default_rng(5)
    for case in range(300):
        k = int(gen.integers(2, 12))
        pulls = [gen.normal(gen.normal(), 1.0, size=int(gen.integers(1, 20))) for _ in range(k)]
        stats = stats_from(pulls)
        t = sum(len(p) for p in pulls)
        arm, _ = select_once(policy, stats, t, seed=case)
        assert arm == int(np.argmax([p.mean() for p in pulls]))


def test_r_readings_bonus_values():
    # One bandit, known horizon T = 100, t = 4 plays so far, 2 arms: Delta = 1, n = ceil(2 ln 100) = 10,
    # L = log(T Delta^2) / (2n) = ln(100) / 20 = 0.230259.  Arm 0: t_0 = 1, mean 0; arm 1: t_1 = 3, mean 0.
    # U_0 = sqrt(r_0 * L):  none 1 -> 0.47985; sqrt(T/t) = 10 -> 1.51743; T/t = 100 -> 4.79853;
    #                       sqrt(T)/t = 10 -> 1.51743; n/t = 10 -> 1.51743
    # U_1 (t_1 = 3):         none -> 0.47985; sqrt(100/3) = 5.7735 -> 1.15300; 100/3 -> 2.77044;
    #                       10/3 -> 0.87609; 10/3 -> 0.87609
    expected = {
        "none": (0.47985, 0.47985), "sqrt(T/t)": (1.51743, 1.15300), "T/t": (4.79853, 2.77044),
        "sqrt(T)/t": (1.51743, 0.87609), "n/t": (1.51743, 0.87609),
    }
    stats = stats_from([[0.0], [0.0, 0.0, 0.0]])
    for r in R_CHOICES:
        _, work = select_once(ModifiedImprovedUCB(r=r, horizon=100), stats, t=4)
        assert work == pytest.approx(expected[r], abs=1e-5), r


def test_untried_first_and_bad_parameters():
    stats = stats_from([[1.0], [], [0.0]])
    arm, _ = select_once(ModifiedImprovedUCB(episodic=True), stats, t=2)
    assert arm == 1
    with pytest.raises(ValueError, match="r must be one of"):
        ModifiedImprovedUCB(r="sqrt")
    with pytest.raises(ValueError, match="horizon"):
        ModifiedImprovedUCB().init(2, 3)


def test_t0_sets_the_first_episode():
    # t0 = 16, 81 arms: at creation T = 16, n = ceil(2 ln 16) = ceil(5.545) = 6, deadline 81 * 6 = 486.
    # At t = 16 the episode ends: T = 16^2 = 256, n = ceil(2 ln 256) = 12, deadline 16 + 81*12 = 988.
    policy = make_policy("miucb:episodic=true,t0=16")
    assert schedule_state(policy, 81, 0)[:5].tolist() == [16.0, 1.0, 6.0, 486.0, 81.0]
    assert schedule_state(policy, 81, 16)[:4].tolist() == [256.0, 1.0, 12.0, 988.0]
    # the default t0 is the paper's T_0 = 2 and leaves the spec (and stored results) unchanged
    assert make_policy("miucb:episodic=true,t0=2").params.tolist() == ModifiedImprovedUCB(episodic=True).params.tolist()
    assert ModifiedImprovedUCB(episodic=True).spec == "miucb:r=sqrt(T/t),episodic=true"


def test_deadline_plays_counts_node_plays():
    # deadline=plays, known horizon T = 1000, 81 arms: n = ceil(2 ln 1000) = ceil(13.816) = 14, so the
    # first deadline is t = 14 (not 81 * 14 = 1134).  At t = 14 Delta = 1/2 (T/4 = 250 > e),
    # n = ceil(2 ln(1000/4) / 0.25) = ceil(8 * 5.5215) = 45, deadline 14 + 45 = 59.
    policy = make_policy("miucb:horizon=1000,deadline=plays")
    assert schedule_state(policy, 81, 0)[:4].tolist() == [1000.0, 1.0, 14.0, 14.0]
    assert schedule_state(policy, 81, 13)[1] == 1.0
    assert schedule_state(policy, 81, 14)[1:4].tolist() == [0.5, 45.0, 59.0]
    arms = make_policy("miucb:horizon=1000,deadline=arms")
    assert schedule_state(arms, 81, 0)[3] == 81 * 14


def test_node_initialisation_parameters_refused_out_of_range():
    with pytest.raises(ValueError, match="t0 must be an integer in 2"):
        make_policy("miucb:episodic=true,t0=1")
    with pytest.raises(ValueError, match="t0 .* needs episodic=true"):
        make_policy("miucb:t0=4")
    with pytest.raises(ValueError, match="deadline must be one of 'arms', 'plays'"):
        make_policy("miucb:deadline=rounds")
