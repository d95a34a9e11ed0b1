"""Prior knowledge as equivalent experience (``prior_visits``, treepolicies.mcts.experience) against
hand-derived views, and the search with it."""
import math

import numpy as np
import pytest

from bandits import make_policy
from bandits.stats import COUNT, ISQRT, MEAN, NSTAT, NVIEW, SUM, SUMSQ, record
from treepolicies import search
from treepolicies.games import make_game
from treepolicies.mcts.amaf import blend
from treepolicies.mcts.options import SearchOptions
from treepolicies.mcts.tree import AMAF_N, AMAF_W, Tree, expand
from treepolicies.mcts.view import node_view


def three_children(amaf=False, prior=False):
    """Root 0 (player 0 to move) with children 1, 2, 3 (moves 0, 1, 2); the root has 6 visits, child
    1 two results (1 and 0), child 2 one (1), child 3 none."""
    policy = make_policy("ucb1")
    t = Tree(8, policy.state_width, policy.arm_state_width, amaf=amaf, prior=prior)
    t.init_root(1)
    a = t.arrays
    expand(a, 0, np.array([0, 1, 2], np.int64), 3, 0, policy.kernels, policy.params, np.ones(3, np.bool_))
    for c, w in ((1, 1.0), (1, 0.0), (2, 1.0)):
        record(a.stats, c, w)
    a.stats[COUNT, 0] = 6
    return t


def test_uniform_prior_adds_n0_even_game_results_to_every_child():
    a = three_children().arrays
    view = np.empty((NVIEW, 3))
    out = node_view(a, 0, SearchOptions(prior_visits=4).array(), view, np.full(3, -1, np.int64))
    # Uniform priors: Q0 = n P / (1 + n P) = 1 / 2.  n0 = 4 results of mean 1/2 (SUM and SUMSQ + 2):
    # child 1: (1 + 0 + 2) / (2 + 4) = 1/2;  child 2: (1 + 2) / (1 + 4) = 3/5;  child 3: 2 / 4 = 1/2
    assert out[COUNT].tolist() == [6.0, 5.0, 4.0]
    assert out[SUM].tolist() == [3.0, 3.0, 2.0]
    assert out[SUMSQ].tolist() == [3.0, 3.0, 2.0]   # 1^2 + 0^2 + 2, 1^2 + 2, 2
    assert out[MEAN] == pytest.approx([0.5, 0.6, 0.5])
    assert out[ISQRT] == pytest.approx([1 / math.sqrt(6), 1 / math.sqrt(5), 0.5])
    # off (the default): the children's own statistics, child 3 untried
    out = node_view(a, 0, SearchOptions(fpu=0.3).array(), view, np.full(3, -1, np.int64))
    assert (out[:NSTAT] == a.stats[:, 1:4]).all() and out[COUNT, 2] == 0


def test_the_prior_sets_each_childs_virtual_value_by_its_odds():
    a = three_children(prior=True).arrays
    a.prior[1:4] = [0.5, 1 / 3, 1 / 6]
    view = np.empty((NVIEW, 3))
    out = node_view(a, 0, SearchOptions(prior="heuristic", prior_visits=3).array(), view, np.full(3, -1, np.int64))
    # odds n P = 3/2, 1, 1/2 -> Q0 = 3/5, 1/2, 1/3; three results of each:
    # child 1: (1 + 3 * 3/5) / 5 = 2.8 / 5;  child 2: (1 + 3/2) / 4 = 2.5 / 4;  child 3: (3 * 1/3) / 3 = 1/3
    assert out[COUNT].tolist() == [5.0, 4.0, 3.0]
    assert out[MEAN] == pytest.approx([2.8 / 5, 2.5 / 4, 1 / 3])
    assert out[SUM] == pytest.approx([2.8, 2.5, 1.0])
    # the tree's own statistics are untouched
    assert a.stats[COUNT, 1:4].tolist() == [2.0, 1.0, 0.0]


def test_with_rave_the_amaf_statistics_gain_the_same_results_before_the_blend():
    a = three_children(amaf=True).arrays
    a.amaf[AMAF_N, 1:4] = [10, 4, 0]
    a.amaf[AMAF_W, 1:4] = [7, 1, 0]
    view, cmap = np.empty((NSTAT, 3)), np.full(3, -1, np.int64)
    hand = SearchOptions(rave=True, rave_k=6, prior_visits=2).array()
    out = blend(a, 0, hand, view, cmap)
    b = math.sqrt(6 / (3 * 6 + 6))  # N = 6 root visits -> beta = 1/2
    # n0 = 2 results of Q0 = 1/2 on both sides:
    # child 1: Q' = (1 + 1) / 4 = 1/2,  Q_AMAF' = (7 + 1) / 12 = 2/3
    # child 2: Q' = (1 + 1) / 3 = 2/3,  Q_AMAF' = (1 + 1) / 6 = 1/3
    # child 3 (never visited, no AMAF sample): Q' = 1/2, Q_AMAF' = 1/2 -> 1/2, and counted as visited
    assert b == 0.5
    assert out[MEAN] == pytest.approx([0.5 * 0.5 + 0.5 * 2 / 3, 0.5 * 2 / 3 + 0.5 * 1 / 3, 0.5])
    assert out[COUNT].tolist() == [4.0, 3.0, 2.0]
    assert out[SUM] == pytest.approx(out[COUNT] * out[MEAN])
    # the mse schedule reads the primed counts: beta = n~ / (n + n~ + 4 b^2 n n~), b = 1/2
    mse = SearchOptions(rave=True, rave_schedule="mse", rave_bias=0.5, prior_visits=2).array()
    out = blend(a, 0, mse, view, cmap)
    b1 = 12 / (4 + 12 + 4 * 0.25 * 4 * 12)  # child 1: n = 4, n~ = 12
    assert out[MEAN, 0] == pytest.approx((1 - b1) * 0.5 + b1 * 2 / 3)


@pytest.mark.slow  # (the enhanced loop with Connect Four's prior kernel: not in the default tier's variants)
def test_no_child_is_untried_and_a_high_prior_child_is_searched_first():
    # UCB1 with c = 0 on Connect Four: with prior_visits every child starts at its prior value, so
    # the search follows the priors' best child instead of trying all seven once.  The heuristic
    # priors of the empty board are 1/4 (centre), 3/16, 3/16, 1/8, 1/8, 1/16, 1/16, so with n0 = 10
    # Q0 = 7/4 / (1 + 7/4) = 0.636 for the centre and 21/16 / (1 + 21/16) = 0.568 for the next; the
    # first iteration takes the centre, which keeps the lead after a win or one loss ((0 + 6.36) /
    # 11 = 0.578 > 0.568).  With seed 1 its first three results are two wins and a loss, and then
    # the search stops early (two iterations left cannot change the most visited move).
    g = make_game("connect4")
    plain = search(g, "ucb1:c=0", iterations=5, seed=1, prior="heuristic")
    primed = search(g, "ucb1:c=0", iterations=5, seed=1, prior="heuristic", prior_visits=10)
    assert (plain.visits > 0).sum() == 5          # untried children first: 5 different children
    a = primed.tree.arrays
    f = a.first[0]
    best = a.move[f + int(np.argmax(a.prior[f:f + 7]))]
    assert best == 3 and primed.visits[list(primed.moves).index(best)] == primed.visits.sum() >= 3


@pytest.mark.parametrize("options", [dict(prior_visits=5), dict(rave=True, prior_visits=20),
                                     pytest.param(dict(prior="heuristic", prior_visits=8, widen_k=2),
                                                  marks=pytest.mark.slow),
                                     pytest.param(dict(transpositions=True, rave=True, prior_visits=10),
                                                  marks=pytest.mark.slow)])
def test_compiled_and_python_drivers_agree_and_repeat_with_prior_visits(options):
    game = make_game("connect4")
    a = search(game, "ucb1:c=0.3", iterations=1200, seed=4, **options)
    b = search(game, "ucb1:c=0.3", iterations=1200, seed=4, compiled=False, **options)
    again = search(game, "ucb1:c=0.3", iterations=1200, seed=4, **options)
    off = search(game, "ucb1:c=0.3", iterations=1200, seed=4, **{**options, "prior_visits": 0})
    assert a.move == b.move and (a.visits == b.visits).all() and np.allclose(a.values, b.values)
    assert (a.visits == again.visits).all()
    assert not (a.visits == off.visits).all()


def test_prior_visits_range_is_checked():
    with pytest.raises(ValueError, match="prior_visits"):
        SearchOptions(prior_visits=-1)


@pytest.mark.parametrize("spec", ["miucb:episodic=true", "iucb", "klucb:family=bernoulli", "thompson:prior=beta",
                                  "egreedy:epsilon=0.1", "puct:c=1.5"])
def test_every_kind_of_node_policy_searches_with_prior_visits(spec):
    # each policy reads the view (its statistics rows with the virtual results): the search runs its
    # budget, is reproducible, and the move is legal; RAVE on, so the AMAF side is added too
    g = make_game("connect4")
    a = search(g, spec, iterations=300, seed=2, early_stop=False, rave=True, prior_visits=10)
    b = search(g, spec, iterations=300, seed=2, early_stop=False, rave=True, prior_visits=10)
    assert a.iterations == 300 and a.visits.sum() == 300 and a.move in g.legal_moves()
    assert (a.visits == b.visits).all() and np.array_equal(a.values, b.values)
