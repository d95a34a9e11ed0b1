"""Leaf evaluators (treepolicies.mcts.evaluate): exact values make a perfect player, batching with
virtual loss leaves the statistics exact, and bad evaluators are clear errors."""
import functools

import numba as nb
import numpy as np
import pytest

from bandits.stats import COUNT
from treepolicies import search
from treepolicies import register_evaluator
from treepolicies.games import make_game
from treepolicies.games.tictactoe import KERNELS as TTT_KERNELS
from treepolicies.games.tictactoe import TicTacToe
from treepolicies.players import make_player

LINES = [0b000000111, 0b000111000, 0b111000000, 0b001001001, 0b010010010, 0b100100100, 0b100010001, 0b001010100]


@functools.lru_cache(maxsize=None)
def negamax(me, you):
    """Exact tic-tac-toe value (1 win, 0.5 draw, 0 loss) for the player to move, holding ``me``."""
    if any(you & line == line for line in LINES):
        return 0.0
    occupied = me | you
    if occupied == 0b111111111:
        return 0.5
    return max(1.0 - negamax(you, me | (1 << c)) for c in range(9) if not occupied >> c & 1)


def value_of(state):
    p = int(state[2]) & 1
    return negamax(int(state[p]), int(state[1 - p]))


CALLS = []


def exact(states, moves, counts):
    """The minimax value of each position as the evaluator's value, uniform priors."""
    CALLS.append(len(states))
    return np.ones(moves.shape), np.array([value_of(s) for s in states])


def positions_with_a_forced_win(n):
    """The first n positions (a fixed walk over the game tree) where the player to move can force a win."""
    out, stack = [], [TicTacToe()]
    while stack and len(out) < n:
        g = stack.pop(0)
        if g.terminal():
            continue
        if value_of(g.state) == 1.0 and g.state[2] >= 2:
            out.append(g)
        for m in g.legal_moves():
            h = g.copy()
            h.play(m)
            stack.append(h)
    return out


@pytest.mark.parametrize("kw", [dict(), dict(transpositions=True)])
def test_exact_evaluator_finds_every_forced_win_at_50_simulations(kw):
    # fpu=1 gives PUCT's unvisited children Q = 1 (optimistic), so each is evaluated once before the
    # search settles; with q0 = 0 (AlphaZero's default) the first child visited keeps the first ~20
    # simulations when its value is 0.5: 0.5 + c P sqrt(N) / 2 >= c P sqrt(N) until sqrt(N) = 0.5 / (cP / 2)
    found = positions_with_a_forced_win(40)
    assert len(found) == 40
    for g in found:
        move = search(g, "puct:c=1.5", iterations=50, seed=0, evaluator=exact, fpu=1.0, **kw).move
        h = g.copy()
        h.play(move)
        assert h.terminal() and h.reward(g.to_move) == 1.0 or value_of(h.state) == 0.0, str(g)


def test_exact_evaluator_player_never_loses():
    player = make_player("puct:c=1.5", playouts=50)
    player.options = type(player.options)(evaluator=exact, fpu=1.0)
    for seed in range(12):
        g = TicTacToe()
        rng = np.random.default_rng(seed)  # the opponent: uniformly random moves
        me = seed % 2
        while not g.terminal():
            if g.to_move == me:
                g.play(player.choose(g, seed))
            else:
                moves = g.legal_moves()
                g.play(moves[int(rng.integers(len(moves)))])
        assert g.reward(me) >= 0.5


@pytest.mark.parametrize("batch", [1, 8, 64])
def test_batched_evaluation_is_reproducible_and_leaves_exact_statistics(batch):
    g = make_game("connect4")

    def flat(states, moves, counts):
        CALLS.append(len(states))
        return np.ones(moves.shape), np.full(len(states), 0.5)

    CALLS.clear()
    a = search(g, "puct:c=1.5", iterations=400, seed=2, evaluator=flat, eval_batch=batch, early_stop=False)
    calls = list(CALLS)
    b = search(g, "puct:c=1.5", iterations=400, seed=2, evaluator=flat, eval_batch=batch, early_stop=False)
    assert (a.visits == b.visits).all() and a.move == b.move
    assert max(calls) <= batch and a.iterations == 400
    arr, size = a.tree.arrays, a.tree.size
    # every evaluated node was expanded at its first visit: its visits = 1 + its children's visits
    # (no virtual loss left behind), and the root's = the iterations
    assert arr.stats[COUNT, 0] == 400
    for node in range(size):
        f, n = int(arr.first[node]), int(arr.nchild[node])
        if f >= 0:
            assert arr.stats[COUNT, node] == 1 + arr.stats[COUNT, f:f + n].sum()
            assert arr.prior[f:f + n].sum() == pytest.approx(1.0)
    if batch > 1:
        assert len(calls) < 400  # several leaves per call


def test_registered_evaluator_in_a_player_spec():
    register_evaluator("t_exact", exact)
    p = make_player("puct:c=1.5,evaluator=t_exact,eval_batch=4,fpu=1", playouts=40)
    assert p.options.evaluator == "t_exact" and p.options.eval_batch == 4
    g = positions_with_a_forced_win(1)[0]
    h = g.copy()
    h.play(p.choose(g, 0))
    assert (h.terminal() and h.reward(g.to_move) == 1.0) or value_of(h.state) == 0.0


def test_bad_evaluators_are_one_line_errors():
    g = make_game("connect4")
    with pytest.raises(ValueError, match="must lie in"):
        search(g, "puct", iterations=10, evaluator=lambda s, m, c: (np.ones(m.shape), np.full(len(s), 2.0)))
    with pytest.raises(ValueError, match="priors of shape"):
        search(g, "puct", iterations=10, evaluator=lambda s, m, c: (np.ones(3), np.full(len(s), 0.5)))
    with pytest.raises(ValueError, match="failed: ZeroDivisionError"):
        search(g, "puct", iterations=10, evaluator=lambda s, m, c: 1 / 0)
    with pytest.raises(ValueError, match="needs a compiled game"):
        search(make_game("nim"), "puct", iterations=10, evaluator=exact)
    with pytest.raises(ValueError, match="unknown evaluator 'nope'"):
        search(g, "puct", iterations=10, evaluator="nope")
    with pytest.raises(ValueError, match="eval_batch must be an integer in 1..4096"):
        search(g, "puct", iterations=10, evaluator=exact, eval_batch=0)
    with pytest.raises(ValueError, match="go with evaluator"):
        search(g, "puct", iterations=10, value_mix=0.5)


def test_widening_with_an_evaluator_offers_the_most_probable_children_first():
    # priors from the evaluator, not a prior kernel: column c gets weight 1 + c (the children sorted
    # by them at expansion, highest first); a node with n visits has visited at most its first
    # ceil(k n^alpha) children
    import math

    def by_column(states, moves, counts):
        return np.where(moves >= 0, 1.0 + moves, 0.0), np.full(len(states), 0.5)

    g = make_game("connect4")
    k, alpha = 1.0, 0.5
    r = search(g, "puct:c=1.5", iterations=1500, seed=3, evaluator=by_column, widen_k=k, widen_alpha=alpha,
               early_stop=False)
    a = r.tree.arrays
    checked = binding = 0
    for node in range(r.tree.size):
        f, n = int(a.first[node]), int(a.nchild[node])
        if f < 0:
            continue
        m = min(n, max(1, math.ceil(k * max(1.0, a.stats[COUNT, node]) ** alpha - 1e-9)))
        visited = a.stats[COUNT, f:f + n] > 0
        assert visited.sum() <= m and not visited[m:].any()
        assert (np.diff(a.move[f:f + n]) < 0).all()  # column 6 first: the evaluator's order
        checked += 1
        binding += m < n
    assert checked > 20 and binding > 10  # (the mask mattered: nodes with fewer offered than legal)


def test_an_evaluator_refuses_a_second_source_of_priors_in_one_line():
    g = make_game("connect4")
    with pytest.raises(ValueError) as err:
        search(g, "puct", iterations=10, evaluator=exact, prior="heuristic")
    assert "two sources of priors" in str(err.value) and "\n" not in str(err.value)


LEAVES = []


def varied(states, moves, counts):
    """Uniform priors; a value that differs between positions: ((7 x + 3 o) mod 11) / 10."""
    LEAVES.extend(s.copy() for s in states)
    return np.ones(moves.shape), np.array([((7 * int(s[0]) + 3 * int(s[1])) % 11) / 10 for s in states])


@pytest.mark.parametrize("kw", [dict(rave=True), dict(rave=True, transpositions=True), dict(grave_ref=1000),
                                dict(grave_ref=1000, transpositions=True)])
def test_rave_with_an_evaluator_credits_the_root_from_each_descent_s_moves(kw):
    # value_mix = 0: no playout, so an iteration's plies are its descent's moves.  A root child
    # (square m, for X, who moves at the empty root) is credited by each iteration in which X played
    # m at the root or later: tic-tac-toe plays a square once, so "X's stone on m at the leaf".  Each
    # is credited X's result v_X (the value is for the player to move at the leaf: v_X = v when X is
    # to move there, else 1 - v); GRAVE's OPP rows likewise count O's stones on m, with 1 - v_X.
    # The first iteration evaluates the root (depth 0: it chose nothing, it credits nothing).  The
    # evaluator sees every leaf while none is terminal, so its calls recompute the root's rows.
    from treepolicies.mcts.tree import AMAF_N, AMAF_W, OPP_N, OPP_W
    LEAVES.clear()
    r = search(TicTacToe(), "ucb1:c=1.0", iterations=120, seed=3, evaluator=varied, early_stop=False, **kw)
    assert len(LEAVES) == 120  # (no terminal leaf: each iteration was one evaluation)
    n, w, on, ow = (np.zeros(9) for _ in range(4))
    for s in LEAVES[1:]:
        v = ((7 * int(s[0]) + 3 * int(s[1])) % 11) / 10
        vx = v if int(s[2]) % 2 == 0 else 1.0 - v
        for m in range(9):
            if int(s[0]) >> m & 1:
                n[m] += 1
                w[m] += vx
            if int(s[1]) >> m & 1:
                on[m] += 1
                ow[m] += 1.0 - vx
    a = r.tree.arrays
    f = int(a.first[0])
    rows = f + np.arange(int(a.nchild[0]))
    squares = a.move[rows]
    assert n.sum() > 120  # (later moves count: more credits than root visits)
    assert np.array_equal(a.amaf[AMAF_N, rows], n[squares]) and np.allclose(a.amaf[AMAF_W, rows], w[squares])
    if "grave_ref" in kw:
        assert np.array_equal(a.amaf[OPP_N, rows], on[squares]) and np.allclose(a.amaf[OPP_W, rows], ow[squares])
    again = search(TicTacToe(), "ucb1:c=1.0", iterations=120, seed=3, evaluator=varied, early_stop=False, **kw)
    assert (again.visits == r.visits).all()


@pytest.mark.parametrize("kw", [dict(), dict(transpositions=True)])
def test_rave_with_an_evaluator_and_playouts_credits_the_playout_s_moves_too(kw):
    # with value_mix > 0 an iteration also plays out from its leaf, and the playout's moves count:
    # every root child is credited at least its visits, the root's children together more than with
    # the descent alone (same search but value_mix = 0), and at most once per iteration each
    from treepolicies.mcts.tree import AMAF_N
    g = make_game("connect4")
    common = dict(iterations=300, seed=4, evaluator="c4_flat", rave=True, early_stop=False, **kw)
    register_evaluator("c4_flat", lambda s, m, c: (np.ones(m.shape), np.full(len(s), 0.5)))
    mixed = search(g, "puct:c=1.5", value_mix=0.5, **common)
    alone = search(g, "puct:c=1.5", value_mix=0.0, **common)
    for r in (mixed, alone):
        a = r.tree.arrays
        rows = int(a.first[0]) + np.arange(int(a.nchild[0]))
        assert (a.amaf[AMAF_N, rows] >= a.stats[COUNT, rows]).all() and (a.amaf[AMAF_N, rows] <= 300).all()
    credit = [r.tree.arrays.amaf[AMAF_N, int(r.tree.arrays.first[0]) + np.arange(7)].sum() for r in (mixed, alone)]
    assert credit[0] > credit[1] + 300


def test_the_connect4_window_evaluator_plugs_in_by_name_and_sees_threats():
    import os

    from bandits import load_plugin
    from treepolicies.games.connect4 import ConnectFour

    mod = load_plugin(os.path.join(os.path.dirname(os.path.dirname(__file__)), "benchmarks", "connect4_evaluator.py"))
    empty = ConnectFour()
    # the empty board: no window holds a stone, score 0, value 1/2
    assert mod.window_values(empty.state[None, :], mod.WINDOWS)[0] == 0.5
    # one x stone at the bottom of column 3, o to move.  Windows through that cell: 4 horizontal
    # (starting in columns 0..3), 1 vertical, 1 rising diagonal (3,0)-(6,3), 1 falling (0,3)-(3,0):
    # 7 windows with one x stone, +1 each for x, so -7 for o: value 1 / (1 + exp(7 / 16)) = 0.392337
    one = ConnectFour()
    one.play(3)
    assert round(float(mod.window_values(one.state[None, :], mod.WINDOWS)[0]), 6) == 0.392337
    g = ConnectFour.from_string("""
        .......
        .......
        .......
        .......
        .oo....
        .xxx..o
    """)
    r = search(g, "puct:c=1.5", iterations=200, seed=0, evaluator="c4_windows", eval_batch=8)
    assert r.move in (0, 4)  # x to move takes the win (the priors put it first)


@nb.njit(cache=True)
def _signed_result(state, player):
    """Tic-tac-toe's result as 100 r - 50 in [-50, 50] (a game scored outside [0, 1])."""
    return 100.0 * TTT_KERNELS.result(state, player) - 50.0


@pytest.mark.parametrize("kw", [dict(), dict(transpositions=True)])
def test_the_evaluator_loop_scales_the_results_it_scores_by_the_reward_bounds(kw):
    # the evaluator loop scores terminal leaves itself: tic-tac-toe scored in [-50, 50] with
    # reward_bounds=(-50, 50) makes exactly the choices of tic-tac-toe in [0, 1] ((r' + 50) / 100 = r),
    # and without bounds its results are a one-line error (a won terminal scores 50)
    class Signed(TicTacToe):
        kernels = TTT_KERNELS._replace(result=_signed_result)

    for g in positions_with_a_forced_win(6):
        h = Signed()
        h.state = g.state.copy()
        a = search(g, "puct:c=1.5", iterations=200, seed=1, evaluator=exact, fpu=1.0, early_stop=False, **kw)
        b = search(h, "puct:c=1.5", iterations=200, seed=1, evaluator=exact, fpu=1.0, early_stop=False,
                   reward_bounds=(-50, 50), **kw)
        assert a.move == b.move and (a.visits == b.visits).all() and np.allclose(a.values, b.values)
    with pytest.raises(ValueError, match="outside \\[0, 1\\]") as err:
        search(h, "puct:c=1.5", iterations=200, seed=1, evaluator=exact, **kw)
    assert "\n" not in str(err.value)
