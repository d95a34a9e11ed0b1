"""RAVE / GRAVE (treepolicies.mcts.amaf) against hand-derived values, and the search with them."""
import math

import numpy as np
import pytest

from bandits import make_policy
from bandits.stats import COUNT, MEAN, NSTAT, SUM, record
from treepolicies import search
from treepolicies.mcts.amaf import amaf_update, blend, grave_reference, rave_beta
from treepolicies.games import make_game
from treepolicies.mcts.options import SearchOptions
from treepolicies.mcts.tree import AMAF_N, AMAF_W, OPP_N, OPP_W, Tree


def small_tree():
    """Root 0 (player 0 to move) with children 1..4 = moves 0, 1, 2, 3 by player 0; node 1 expanded
    with children 5..7 = moves 1, 2, 3 by player 1."""
    policy = make_policy("ucb1")
    t = Tree(16, policy.state_width, policy.arm_state_width, amaf=True)
    t.init_root(1)
    a = t.arrays
    from treepolicies.mcts.tree import expand
    valid = np.ones(8, np.bool_)
    expand(a, 0, np.array([0, 1, 2, 3], np.int64), 4, 0, policy.kernels, policy.params, valid)
    expand(a, 1, np.array([1, 2, 3], np.int64), 3, 1, policy.kernels, policy.params, valid)
    return t


def ply(move, player):
    return 2 * move + player


def test_amaf_credits_first_moves_of_the_same_player_after_the_node():
    t = small_tree()
    a = t.arrays
    # One iteration: root -(P0 plays 0)-> node 1 -(P1 plays 1)-> node 5 (the leaf, depth 2), then the
    # playout P0:2, P1:3, P0:1, P1:2, P0:2 (plies 2..6).  Player 1 (mover of the leaf) wins: value 1.
    plies = np.array([ply(0, 0), ply(1, 1), ply(2, 0), ply(3, 1), ply(1, 0), ply(2, 1), ply(2, 0)], np.int64)
    seen = np.full(2 * 4, -1, np.int64)
    amaf_update(a, 5, plies, len(plies), 2, seen, 1.0, True)
    assert (seen == -1).all()  # scratch left clean
    # Root (ply 0 onwards), children are P0's moves, P0's result is 0:
    #   move 0: P0 at ply 0 -> credited; move 1: P0 at ply 4 -> credited; move 2: P0 at plies 2 and 6
    #   -> credited once; move 3: only P1 plays it (ply 3) -> not credited.
    assert a.amaf[AMAF_N, 1:5].tolist() == [1, 1, 1, 0]
    assert a.amaf[AMAF_W, 1:5].tolist() == [0, 0, 0, 0]
    #   OPP rows (the other player, P1, playing the move after ply 0, P1's result 1): move 0 never;
    #   move 1 at ply 1; move 2 at ply 5; move 3 at ply 3.
    assert a.amaf[OPP_N, 1:5].tolist() == [0, 1, 1, 1]
    assert a.amaf[OPP_W, 1:5].tolist() == [0, 1, 1, 1]
    # Node 1 (ply 1 onwards), children are P1's moves, P1's result 1:
    #   move 1: P1 at ply 1; move 2: P1 at ply 5; move 3: P1 at ply 3 -> all credited with 1.
    assert a.amaf[AMAF_N, 5:8].tolist() == [1, 1, 1]
    assert a.amaf[AMAF_W, 5:8].tolist() == [1, 1, 1]
    #   OPP (P0 after ply 1, P0's result 0): move 1 at ply 4, move 2 at ply 2, move 3 never.
    assert a.amaf[OPP_N, 5:8].tolist() == [1, 1, 0]
    assert a.amaf[OPP_W, 5:8].tolist() == [0, 0, 0]
    # A second iteration: root -(P0: 1)-> node 2 (leaf, depth 1), playout P1:0, P0:3, a draw (0.5
    # for P0).  Root: move 1 (ply 0) and move 3 (ply 2) credited with 0.5; OPP: move 0 by P1 (ply 1).
    plies = np.array([ply(1, 0), ply(0, 1), ply(3, 0)], np.int64)
    amaf_update(a, 2, plies, 3, 1, seen, 0.5, False)
    assert a.amaf[AMAF_N, 1:5].tolist() == [1, 2, 1, 1]
    assert a.amaf[AMAF_W, 1:5].tolist() == [0, 0.5, 0, 0.5]
    assert a.amaf[OPP_N, 1:5].tolist() == [0, 1, 1, 1]  # opp=False: OPP rows untouched
    assert a.amaf[AMAF_N, 5:8].tolist() == [1, 1, 1]  # node 1 was not on this path


def test_beta_schedules_to_six_decimals():
    hand = SearchOptions(rave=True, rave_k=1000).array()
    # sqrt(1000 / (3 * 100 + 1000)) = sqrt(0.769231) = 0.877058
    assert round(rave_beta(100.0, 7.0, 50.0, hand), 6) == 0.877058
    # k = 250, N = 5000: sqrt(250 / 15250) = 0.128037
    assert round(rave_beta(5000.0, 1.0, 1.0, SearchOptions(rave=True, rave_k=250).array()), 6) == 0.128037
    mse = SearchOptions(rave=True, rave_schedule="mse", rave_bias=0.1).array()
    # n = 10, n~ = 40, b = 0.1: 40 / (10 + 40 + 4 * 0.01 * 10 * 40) = 40 / 66 = 0.606061
    assert round(rave_beta(999.0, 10.0, 40.0, mse), 6) == 0.606061
    # b = 0: n~ / (n + n~); no AMAF sample: 0
    assert round(rave_beta(1.0, 30.0, 10.0, SearchOptions(rave=True, rave_schedule="mse", rave_bias=0).array()), 6) == 0.25
    assert rave_beta(100.0, 7.0, 0.0, hand) == 0.0


def chain_tree():
    """root 0 -> 1 -> 5 -> 8, each expanded with moves 0, 1, 2 (8 is a child of 5), with visits
    root 100, node 1 30, node 5 8, node 8 2."""
    policy = make_policy("ucb1")
    t = Tree(32, policy.state_width, policy.arm_state_width, amaf=True)
    t.init_root(1)
    a = t.arrays
    from treepolicies.mcts.tree import expand
    valid = np.ones(8, np.bool_)
    three = np.array([0, 1, 2], np.int64)
    expand(a, 0, three, 3, 0, policy.kernels, policy.params, valid)  # nodes 1, 2, 3 (player 0 moves)
    expand(a, 1, three, 3, 1, policy.kernels, policy.params, valid)  # nodes 4, 5, 6 (player 1)
    expand(a, 5, three, 3, 0, policy.kernels, policy.params, valid)  # nodes 7, 8, 9 (player 0)
    expand(a, 8, three, 3, 1, policy.kernels, policy.params, valid)  # nodes 10, 11, 12 (player 1)
    for node, n in ((0, 100), (1, 30), (5, 8), (8, 2)):
        a.stats[COUNT, node] = n
    return t


def test_grave_reference_is_the_closest_ancestor_with_enough_visits():
    a = chain_tree().arrays
    assert grave_reference(a, 8, 1) == 8      # itself: 2 >= 1
    assert grave_reference(a, 8, 5) == 5      # 8 has 2 < 5; its parent 5 has 8
    assert grave_reference(a, 8, 10) == 1     # 5 has 8 < 10; node 1 has 30
    assert grave_reference(a, 8, 50) == 0     # only the root has 100
    assert grave_reference(a, 8, 1000) == 0   # none has: the root


def test_blend_shows_the_policy_the_rave_value_of_its_own_or_the_reference_nodes_amaf():
    t = chain_tree()
    a = t.arrays
    # children of node 8 (player 1 to move there): 10, 11, 12; own visits and means
    for c, (n, w) in {10: (4, 1.0), 11: (2, 2.0), 12: (0, 0.0)}.items():
        for _ in range(n):
            record(a.stats, c, w / n)
    a.amaf[AMAF_N, 10:13] = [10, 6, 3]
    a.amaf[AMAF_W, 10:13] = [8, 3, 3]
    view, cmap = np.empty((NSTAT, 8)), np.full(3, -1, np.int64)
    hand = SearchOptions(rave=True, rave_k=6).array()
    out = blend(a, 8, hand, view, cmap)
    b = math.sqrt(6 / (3 * 2 + 6))  # N = visits of node 8 = 2 -> beta = sqrt(0.5)
    # child 10: Q = 0.25, Q_AMAF = 0.8; child 11: Q = 1, Q_AMAF = 0.5; child 12 unvisited: unchanged
    assert out[MEAN, 0] == pytest.approx((1 - b) * 0.25 + b * 0.8)
    assert out[MEAN, 1] == pytest.approx((1 - b) * 1.0 + b * 0.5)
    assert out[SUM, 0] == pytest.approx(4 * out[MEAN, 0]) and out[COUNT, 0] == 4
    assert out[COUNT, 2] == 0 and out[MEAN, 2] == 0
    assert (cmap == -1).all()
    # GRAVE with ref 5: the reference of node 8 is node 5 (8 visits), whose children 7, 8, 9 are
    # moves 0, 1, 2 of player 0 -- the other player than node 8's children (player 1) -- so the
    # OPP rows of 7 and 8 are used for moves 0 and 1 (node 9's for move 2).
    a.amaf[OPP_N, 7:10] = [20, 5, 0]
    a.amaf[OPP_W, 7:10] = [5, 5, 0]
    grave = SearchOptions(grave_ref=5, rave_k=6).array()
    out = blend(a, 8, grave, view, cmap)
    assert out[MEAN, 0] == pytest.approx((1 - b) * 0.25 + b * 0.25)  # 5 / 20
    assert out[MEAN, 1] == pytest.approx((1 - b) * 1.0 + b * 1.0)    # 5 / 5
    # ref 10: node 1 (30 visits), children 4, 5, 6 = moves 0, 1, 2 of player 1 (same player): AMAF rows
    a.amaf[AMAF_N, 4:7] = [4, 0, 1]
    a.amaf[AMAF_W, 4:7] = [1, 0, 1]
    out = blend(a, 8, SearchOptions(grave_ref=10, rave_k=6).array(), view, cmap)
    assert out[MEAN, 0] == pytest.approx((1 - b) * 0.25 + b * 0.25)  # 1 / 4
    assert out[MEAN, 1] == pytest.approx(1.0)  # node 5 has no AMAF sample: beta = 0, Q = 1
    assert (cmap == -1).all()


@pytest.mark.parametrize("options", [dict(rave=True), dict(grave_ref=20), dict(rave=True, rave_schedule="mse")])
def test_search_with_rave_keeps_amaf_counts_consistent(options):
    # Every real visit of a child is an iteration in which its mover played its move at the parent,
    # so AMAF_N >= COUNT; no node is credited more often than its parent was visited.
    r = search(make_game("connect4"), "ucb1:c=0.5", iterations=3000, seed=2, **options)
    a = r.tree.arrays
    n = r.tree.size
    child = np.arange(1, n)
    assert (a.amaf[AMAF_N, child] >= a.stats[COUNT, child]).all()
    assert (a.amaf[AMAF_N, child] <= a.stats[COUNT, a.parent[child]]).all()
    assert (a.amaf[AMAF_W, child] <= a.amaf[AMAF_N, child]).all() and (a.amaf[AMAF_W] >= 0).all()
    assert a.amaf[AMAF_N, child].sum() > 2 * a.stats[COUNT, child].sum()  # playout moves were credited too
    if options.get("grave_ref"):
        assert (a.amaf[OPP_N, child] <= a.stats[COUNT, a.parent[child]]).all() and a.amaf[OPP_N].sum() > 0
    else:
        assert a.amaf[OPP_N].sum() == 0


@pytest.mark.parametrize("options", [dict(rave=True), dict(grave_ref=5, rave_schedule="mse"),
                                     dict(rave=True, rollout_cap=3)])
def test_compiled_and_python_drivers_agree_with_rave(options):
    game = make_game("tictactoe")
    a = search(game, "ucb1:c=0.5", iterations=1500, seed=3, **options)
    b = search(game, "ucb1:c=0.5", iterations=1500, seed=3, compiled=False, **options)
    assert a.move == b.move and (a.visits == b.visits).all() and np.allclose(a.values, b.values)
    size = a.tree.size
    assert np.allclose(a.tree.amaf[:, :size], b.tree.amaf[:, :size])


def test_rave_changes_the_search_and_is_reproducible():
    g = make_game("go", size=7)
    plain = search(g, "ucb1:c=0.5", iterations=800, seed=5)
    rave = search(g, "ucb1:c=0.5", iterations=800, seed=5, rave=True)
    again = search(g, "ucb1:c=0.5", iterations=800, seed=5, rave=True)
    assert (rave.visits == again.visits).all() and rave.move == again.move
    assert not (plain.visits == rave.visits).all()


def test_python_game_rave_through_its_move_list():
    nim = make_game("nim", stones=9)
    r = search(nim, "ucb1", iterations=600, seed=1, rave=True)
    a = r.tree.arrays
    child = np.arange(1, r.tree.size)
    assert (a.amaf[AMAF_N, child] >= a.stats[COUNT, child]).all() and a.amaf[AMAF_N].sum() > 0
    # Nim with 9 stones (take 1-3, taking the last stone wins): the winning move leaves a multiple of 4
    assert search(nim, "ucb1", iterations=3000, seed=1, rave=True).move == 1
