"""PUCT, first-play urgency, priors and progressive widening against hand-derived values."""
import math

import numpy as np
import pytest

from bandits import kernels, make_policy
from bandits.rng import stream_state
from bandits.stats import COUNT, FIRST, NVIEW, PRIOR, new_stats, record
from treepolicies import search
from treepolicies.games import make_game
from treepolicies.mcts.options import SearchOptions
from treepolicies.mcts.view import first_play_urgency, node_view, widened


def select(spec, stats, t, valid=None, seed=0):
    p = make_policy(spec)
    k = stats.shape[1]
    valid = np.ones(k, np.bool_) if valid is None else valid
    work = np.empty(k)
    arm = kernels.select_row(p.kernels, p.params, np.zeros(max(1, p.state_width)),
                             np.zeros((max(1, p.arm_state_width), k)), stats, valid, float(t), stream_state(seed, 0, 0),
                             work)
    return int(arm), work


def view_of(counts_means, priors=None, first=np.inf):
    """An (NVIEW, K) view: arm i pulled n_i times with mean w_i, prior P_i, FIRST row ``first``."""
    k = len(counts_means)
    v = np.zeros((NVIEW, k))
    s = new_stats(k)
    for i, (n, w) in enumerate(counts_means):
        for _ in range(n):
            record(s, i, w)
    v[:5] = s
    v[PRIOR] = priors if priors is not None else 1.0 / k
    v[FIRST] = first
    return v


def test_puct_score_on_a_hand_example():
    # seed 001 / AlphaZero: score = Q + c P sqrt(N) / (1 + n), c = 2, N = t = 16 (sqrt 4):
    #   arm 0: n 10, Q 0.6, P 0.2 -> 0.6 + 2 * 0.2 * 4 / 11 = 0.745455
    #   arm 1: n 5,  Q 0.4, P 0.5 -> 0.4 + 2 * 0.5 * 4 / 6  = 1.066667   <- the argmax
    #   arm 2: n 0 (Q := q0 = 0), P 0.3 -> 0 + 2 * 0.3 * 4 / 1 = 2.4 ... unless the prior is small:
    v = view_of([(10, 0.6), (5, 0.4), (0, 0.0)], priors=[0.2, 0.5, 0.3])
    arm, work = select("puct:c=2", v, 16)
    assert work[:3].round(6).tolist() == [0.745455, 1.066667, 2.4] and arm == 2
    v = view_of([(10, 0.6), (5, 0.4), (0, 0.0)], priors=[0.2, 0.75, 0.05])
    arm, work = select("puct:c=2", v, 16)  # arm 2: 2 * 0.05 * 4 = 0.4; arm 1: 0.4 + 2*0.75*4/6 = 1.4
    assert round(work[2], 6) == 0.4 and round(work[1], 6) == 1.4 and arm == 1
    # first-play urgency as PUCT's Q of an unvisited child: FIRST = 0.5 -> 0.5 + 0.4 = 0.9
    v = view_of([(10, 0.6), (5, 0.4), (0, 0.0)], priors=[0.2, 0.75, 0.05], first=0.5)
    assert round(select("puct:c=2", v, 16)[1][2], 6) == 0.9
    # without a PRIOR row (a testbed's NSTAT rows) P = 1/K
    s = view_of([(10, 0.6), (5, 0.4), (1, 0.0)])[:5]
    assert select("puct:c=3", s, 16)[1].round(6).tolist() == [round(0.6 + 3 * 4 / 3 / 11, 6), round(0.4 + 3 * 4 / 3 / 6, 6),
                                                              round(0.0 + 3 * 4 / 3 / 2, 6)]


def test_fpu_is_the_index_of_an_untried_arm_for_index_policies():
    # UCB1 c = 0.5, t = 16: arm 0 (n 4, w 0.5): 0.5 + 0.5 sqrt(ln 16 / 4) = 0.5 + 0.5 * 0.832555 = 0.916277
    v = view_of([(4, 0.5), (0, 0.0), (0, 0.0)], first=0.9)
    arm, work = select("ucb1:c=0.5", v, 16)
    assert round(work[0], 6) == round(0.5 + 0.5 * math.sqrt(math.log(16) / 4), 6) == 0.916277
    assert work[1] == work[2] == 0.9 and arm == 0       # FPU 0.9 < 0.916: the tried arm
    v[FIRST] = 0.95
    assert select("ucb1:c=0.5", v, 16)[0] in (1, 2)      # FPU 0.95 > 0.916: an untried one
    v[FIRST] = np.inf
    assert select("ucb1:c=0.5", v, 16)[0] in (1, 2)      # the default: untried first
    assert select("klucb", view_of([(4, 0.5), (0, 0.0)], first=0.0), 16)[0] == 0  # every index policy


def test_first_play_urgency_modes_on_a_node():
    r = search(make_game("tictactoe"), "ucb1:c=0.5", iterations=50, seed=1)
    a = r.tree.arrays
    # the root: its mean is for the player who did not move (mover 1); the chooser is player 0
    m = 1.0 - a.stats[3, 0]
    assert first_play_urgency(a, 0, SearchOptions().array()) == np.inf
    assert first_play_urgency(a, 0, SearchOptions(fpu=0.25).array()) == 0.25
    assert first_play_urgency(a, 0, SearchOptions(fpu="parent").array()) == pytest.approx(m)
    assert first_play_urgency(a, 0, SearchOptions(fpu_reduction=0.1).array()) == pytest.approx(m - 0.1)
    view = np.empty((NVIEW, 9))
    out = node_view(a, 0, SearchOptions(fpu=0.25).array(), view, np.full(9, -1, np.int64))
    assert (out[FIRST] == 0.25).all() and np.allclose(out[PRIOR], 1 / 9)
    assert (out[:5] == a.stats[:, 1:10]).all()


def test_uniform_priors_and_large_c_spread_the_root_visits_evenly():
    g = make_game("connect4")
    r = search(g, "puct:c=1000000", iterations=7000, seed=3, early_stop=False)
    # Arm i is picked over j only if E / (1 + n_i) - E / (1 + n_j) >= Q_j - Q_i >= -1, E = c P sqrt(N)
    # = 1e6 / 7 * sqrt(7000) = 1.2e7, so n_i <= n_j + (1 + n_i)(1 + n_j) / E + 1 with n ~ 1000:
    # n_i - n_j <= 1 + 1e6 / 1.2e7 < 2 (uniform priors spread the visits evenly)
    assert r.visits.max() - r.visits.min() <= 1


@pytest.mark.parametrize("game_name", ["connect4", "go", "nogo", "tictactoe"])
def test_progressive_widening_bounds_visited_children_and_takes_the_highest_priors(game_name):
    g = make_game(game_name)
    k, alpha = 1.5, 0.4
    opts = SearchOptions(widen_k=k, widen_alpha=alpha, prior="heuristic").array()
    for seed in range(3):
        r = search(g, "ucb1:c=0.5", iterations=600, seed=seed, widen_k=k, widen_alpha=alpha, prior="heuristic",
                   early_stop=False)
        a, size = r.tree.arrays, r.tree.size
        for node in range(size):
            f, n = int(a.first[node]), int(a.nchild[node])
            if f < 0:
                continue
            visited = a.stats[COUNT, f:f + n] > 0
            m = widened(a.stats[COUNT, node], n, opts)
            assert m == min(n, max(1, math.ceil(k * max(1.0, a.stats[COUNT, node]) ** alpha - 1e-9)))
            assert visited.sum() <= m and not visited[m:].any()  # only the first m, never beyond
            pri = a.prior[f:f + n]
            assert np.all(np.diff(pri) <= 1e-15) and pri.sum() == pytest.approx(1.0)  # highest priors first


def test_heuristic_priors_favour_the_winning_and_blocking_moves():
    from treepolicies.games.connect4 import ConnectFour, heuristic_prior
    g = ConnectFour.from_string("""
        .......
        .......
        .......
        .......
        .oo....
        .xxx..o
    """)  # x to move: columns 0 and 4 win (4 first, centre order)
    moves = np.array(g.legal_moves(), np.int64)
    out = np.empty(len(moves))
    heuristic_prior(g.state, moves, len(moves), out)
    # weights 4 - |col - 3| = [1, 2, 3, 4, 3, 2, 1]; column 4 wins (x20 -> 60), column 0 also wins
    # but winning_column returns the centre-first one only, so 0 keeps weight 1; o has no win to block.
    # Total 1 + 2 + 3 + 4 + 60 + 2 + 1 = 73
    by_col = dict(zip(moves.tolist(), out.tolist()))
    assert by_col[4] == pytest.approx(60 / 73) and by_col[3] == pytest.approx(4 / 73) and by_col[0] == pytest.approx(1 / 73)


def test_puct_with_heuristic_priors_finds_the_connect4_win():
    from treepolicies.games.connect4 import ConnectFour
    g = ConnectFour.from_string("""
        .......
        .......
        .......
        .......
        .oo....
        .xxx..o
    """)
    assert search(g, "puct:c=1.5", iterations=200, seed=0, prior="heuristic").move in (0, 4)
