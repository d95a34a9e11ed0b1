"""Improved UCB (Auer & Ortner 2010): the round schedule of docs/algorithms.md, eliminations, episodes."""
import math

import numpy as np
import pytest

from bandits import ImprovedUCB, make_policy
from bandits.improved_ucb import last_round, round_size


def run(policy, rewards_fn, n_arms, plays, n_bandits=1, seed=0):
    """Play `plays` steps; rewards_fn(arms, step) -> rewards.  Returns (batch, arms per step)."""
    batch = policy.init(n_bandits, n_arms)
    history = []
    for step in range(plays):
        arms = policy.select(batch, seed * 100003 + step)
        policy.update(batch, arms, rewards_fn(arms, step))
        history.append(arms.copy())
    return batch, np.array(history)


def schedule(horizon):
    """n_m for m = 0..M by the spec's formulas, computed here independently."""
    m_last = math.floor(0.5 * math.log2(horizon / math.e))
    return [math.ceil(2 * math.log(horizon * 4.0 ** -m) * 4.0 ** m) for m in range(m_last + 1)]


def test_schedule_k60_pinned_by_spec():
    # docs/algorithms.md: T = 10 000 -> M = 5, n_m = 19, 63, 207, 647, 1877, 4668
    #                 T = 1 000  -> M = 4, n_m = 14, 45, 133, 352, 698
    assert last_round(10_000) == 5 and last_round(1_000) == 4
    assert [round_size(10_000, 0.5 ** m) for m in range(6)] == [19, 63, 207, 647, 1877, 4668]
    assert [round_size(1_000, 0.5 ** m) for m in range(5)] == [14, 45, 133, 352, 698]
    assert schedule(10_000) == [19, 63, 207, 647, 1877, 4668]


def test_rounds_bring_arms_to_n_m_in_index_order():
    # 60 arms with identical rewards: nothing is ever eliminated (all means equal).  Round 0 brings
    # each arm to 19 pulls in index order (arm 0 pulls 1..19, arm 1 pulls 20..38, ...), then round 1
    # brings each to 63.  After 60 * 19 = 1140 plays every count is 19; after 3780 every count is 63.
    policy = ImprovedUCB(horizon=10_000)
    batch, hist = run(policy, lambda arms, step: np.full(1, 0.5), 60, 3780)
    assert hist[:19, 0].tolist() == [0] * 19 and hist[19:38, 0].tolist() == [1] * 19
    assert (np.bincount(hist[:1140, 0], minlength=60) == 19).all()
    assert (batch.counts[0] == 63).all()
    assert (np.bincount(hist[1140:1140 + 44, 0]) == [44]).all()  # arm 0 goes 19 -> 63 first


def test_elimination_keeps_only_the_clear_winner():
    # Two arms, rewards 1 and 0 every time, T = 1000: after round 0 (14 pulls each) c_0 =
    # sqrt(log(1000) / 28) = 0.497, so arm 1: 0 + 0.497 < 1 - 0.497 = 0.503 -> eliminated, and
    # every later play goes to arm 0: counts (1000 - 14, 14).
    policy = ImprovedUCB(horizon=1000)
    batch, _ = run(policy, lambda arms, step: (arms == 0).astype(float), 2, 1000)
    assert batch.counts[0].tolist() == [986, 14]
    assert policy.diagnostics(batch)["fallback_plays"][0] == 0


def test_round_robin_after_last_round_is_counted():
    # Two equal arms, T = 37: M = floor(0.5 log2(37 / e)) = floor(1.88) = 1;
    # n_0 = ceil(2 ln 37) = ceil(7.22) = 8, n_1 = ceil(8 ln(37 / 4)) = ceil(17.80) = 18.
    # Rounds end after 2 * 18 = 36 plays with both arms surviving (equal means), so play 37 is
    # round-robin after the last round: counted once, and it goes to arm 0 (fewest pulls, lowest index).
    assert last_round(37) == 1 and round_size(37, 1.0) == 8 and round_size(37, 0.5) == 18
    policy = ImprovedUCB(horizon=37)
    batch, hist = run(policy, lambda arms, step: np.full(1, 1.0), 2, 37)
    assert hist[:, 0].tolist() == [0] * 8 + [1] * 8 + [0] * 10 + [1] * 10 + [0]
    assert policy.diagnostics(batch)["fallback_plays"][0] == 1


def test_small_horizon_round_robin():
    # T = 2 < e: M = floor(0.5 log2(2 / e)) = -1, no round at all (log(T) < 1 is never used):
    # round-robin 0, 1.  T = 5 < 4e: M = 0, one round with n_0 = ceil(2 ln 5) = 4 -> arm 0 four
    # times, then arm 1.
    assert last_round(2) == -1 and last_round(5) == 0
    _, hist = run(ImprovedUCB(horizon=2), lambda arms, step: np.zeros(1), 4, 2)
    assert hist[:, 0].tolist() == [0, 1]
    _, hist = run(ImprovedUCB(horizon=5), lambda arms, step: np.zeros(1), 4, 5)
    assert hist[:, 0].tolist() == [0, 0, 0, 0, 1]


def test_episodic_boundaries_restart_from_scratch():
    # Episodes cover plays 1-2 (T=2), 3-4 (T=4), 5-16 (T=16), 17-256 (T=256).  With 3 arms:
    # episode T=2 (M=-1): round-robin -> arms 0, 1.  T=4: M = 0, n_0 = ceil(2 ln 4) = 3 and the
    # episode's own counts restart at 0 -> arm 0 twice (plays 3, 4).  T=16: M = 1, n_0 = 6 ->
    # arm 0 six times (plays 5-10), arm 1 six times (plays 11-16).
    policy = make_policy("iucb:episodic=true")
    batch, hist = run(policy, lambda arms, step: np.full(1, 0.5), 3, 17)
    assert hist[:16, 0].tolist() == [0, 1] + [0, 0] + [0] * 6 + [1] * 6
    assert policy.diagnostics(batch)["episodes"][0] == 4  # play 17 opened episode T = 256


def test_needs_horizon_or_episodic():
    with pytest.raises(ValueError, match="horizon"):
        ImprovedUCB().init(1, 3)
    assert ImprovedUCB().bind(500).horizon == 500
    assert ImprovedUCB(episodic=True).bind(500).horizon is None
    with pytest.raises(ValueError, match="horizon must be an integer >= 1"):
        ImprovedUCB(horizon=0)
    with pytest.raises(ValueError, match="not both"):
        ImprovedUCB(horizon=10, episodic=True)


def test_masked_arms_are_skipped_not_eliminated():
    # The T = 37 schedule of test_round_robin_after_last_round_is_counted with arm 1 masked out
    # (padding in a testbed, a proven child in a search): arms 0 and 2 play exactly the sequence
    # that arms 0 and 1 play without a third arm, and arm 1 is never pulled.
    policy = ImprovedUCB(horizon=37)
    batch = policy.init(1, 3, mask=np.array([[True, False, True]]))
    hist = []
    for step in range(37):
        arms = policy.select(batch, step)
        policy.update(batch, arms, np.ones(1))
        hist.append(int(arms[0]))
    assert hist == [0] * 8 + [2] * 8 + [0] * 10 + [2] * 10 + [0]
    assert policy.diagnostics(batch)["fallback_plays"][0] == 1


def test_when_every_survivor_is_masked_the_valid_arms_are_played():
    # Two arms, rewards 1 and 0, T = 1000: arm 1 is eliminated after round 0 (14 pulls each, see
    # test_elimination_keeps_only_the_clear_winner).  If the survivor, arm 0, is then masked out (a
    # search's solver proved it), the policy must still return a valid arm: arm 1.
    from bandits import kernels
    from bandits.rng import Stream
    from bandits.stats import new_stats

    policy = ImprovedUCB(horizon=1000)
    state, arm_state, stats = np.zeros(policy.state_width), np.zeros((3, 2)), new_stats(2)
    both = np.ones(2, dtype=np.bool_)
    kernels.init_row(policy.kernels, policy.params, state, arm_state, both)
    rng, work = Stream(0).state, np.empty(2)
    for t in range(29):
        arm = kernels.select_row(policy.kernels, policy.params, state, arm_state, stats, both, t, rng, work)
        kernels.record_row(policy.kernels, policy.params, state, arm_state, stats, arm, float(arm == 0))
    assert arm_state[2, :].tolist() == [1.0, 0.0]  # arm 1 eliminated at the 29th selection
    only_1 = np.array([False, True])
    assert kernels.select_row(policy.kernels, policy.params, state, arm_state, stats, only_1, 29, rng, work) == 1
