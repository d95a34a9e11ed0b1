"""Transpositions (treepolicies.mcts.dag): one node per position, the visit invariant, and
positions reached by different move orders (captures included) recognised."""
import numpy as np
import pytest

from bandits.stats import COUNT, SUM
from treepolicies import search
from treepolicies.games import make_game
from treepolicies.games.go import Go
from treepolicies.mcts.dag import insert, lookup, new_dag


def positions(tree):
    n = tree.size
    return np.flatnonzero(tree.dag.canon[:n] == np.arange(n))


def check_invariant(result, evaluated=False):
    """pvis[P] = the visits of the edges into P (P not the root); pvis[root] = the iterations; an
    expanded position's out-edges hold pvis - 1 visits (the root's: all; with an evaluator, whose
    first iteration evaluates the root, pvis - 1 too)."""
    tree = result.tree
    a, d, n = tree.arrays, tree.dag, tree.size
    assert (d.canon[1:n] >= 0).sum() == (a.stats[COUNT, 1:n] > 0).sum() + ((d.canon[1:n] >= 0) & (a.stats[COUNT, 1:n] == 0)).sum()
    assert not ((d.canon[1:n] < 0) & (a.stats[COUNT, 1:n] > 0)).any()  # every edge taken is linked
    into = np.zeros(n)
    np.add.at(into, d.canon[1:n][d.canon[1:n] >= 0], a.stats[COUNT, 1:n][d.canon[1:n] >= 0])
    for p in positions(tree):
        if p != 0:
            assert into[p] == d.pvis[p]
        f = a.first[p]
        if f >= 0:
            out = a.stats[COUNT, f:f + a.nchild[p]].sum()
            assert out == d.pvis[p] - (0 if p == 0 and not evaluated else 1)
    assert d.pvis[0] == result.iterations


def test_tictactoe_dag_holds_at_most_the_5478_positions():
    r = search(make_game("tictactoe"), "ucb1:c=1.0", iterations=60000, seed=1, transpositions=True,
               early_stop=False)
    # 5478 distinct positions are reachable in tic-tac-toe (the empty board and every legal position
    # after 1..9 moves, play stopping at a win); the DAG has one canonical row per position it met
    found = positions(r.tree)
    assert 4000 < len(found) <= 5478
    keys = r.tree.dag.pkey[found]
    assert len(np.unique(keys)) == len(found)
    check_invariant(r)
    assert r.move == 4  # the centre, with enough search


@pytest.mark.parametrize("name", ["connect4", "nogo", "go"])
def test_invariant_and_fewer_nodes_than_the_tree(name):
    g = make_game(name)
    n = 3000 if name != "go" else 1500
    tree = search(g, "ucb1:c=0.5", iterations=n, seed=4, early_stop=False)
    dag = search(g, "ucb1:c=0.5", iterations=n, seed=4, early_stop=False, transpositions=True)
    again = search(g, "ucb1:c=0.5", iterations=n, seed=4, early_stop=False, transpositions=True)
    assert (dag.visits == again.visits).all() and dag.move == again.move
    check_invariant(dag)
    # the tree has one node per row; the DAG one per position, fewer than the tree's nodes
    assert len(positions(dag.tree)) < tree.tree_size


def test_go_position_reached_through_captures_in_two_orders_is_one_key():
    # 5x5, White O on A1 (the corner, code 20).  Black takes it by B1 then A2, or by A2 then B1;
    # White plays E5 in between either way.  Both orders end on the same board, White to move,
    # no ko (the capturing stone has three liberties), no passes:
    #     . . . . O        . . . . O
    #     . . . . .        . . . . .
    #     . . . . .   ==   . . . . .
    #     X . . . .        X . . . .
    #     . X . . .        . X . . .
    start = Go.from_diagram("""
        . . . . .
        . . . . .
        . . . . .
        . . . . .
        O . . . .
    """, to_move=0)
    one, two = start.copy(), start.copy()
    for v in ("B1", "E5", "A2"):
        one.play(one.str_to_move(v))
    for v in ("A2", "E5", "B1"):
        two.play(two.str_to_move(v))
    assert one.board().tolist() == two.board().tolist() and one.board()[4, 0] == 0  # A1 was captured
    k1, k2 = int(Go.key_kernel(one.state)), int(Go.key_kernel(two.state))
    assert k1 == k2
    dag = new_dag(16)
    insert(dag, k1, 5)
    assert lookup(dag, k2) == 5  # the DAG links the second order to the first one's node
    # a different player to move is a different position
    three = one.copy()
    three.set_to_move(0)
    assert int(Go.key_kernel(three.state)) != k1


@pytest.mark.parametrize("spec", ["ucb1:c=0.5", "miucb:episodic=true", "thompson"])
def test_the_solver_on_the_dag_proves_the_empty_tictactoe_board_a_draw(spec):
    r = search(make_game("tictactoe"), spec, iterations=200000, seed=0, solver=True, transpositions=True)
    assert r.stop_reason == "proven" and r.tree.proven[0] == 0.5
    assert set(r.proven.tolist()) == {0.5}  # every first move draws with best play
    assert len(positions(r.tree)) <= 5478


def test_the_solver_on_the_dag_finds_connect4_wins():
    from treepolicies.games.connect4 import ConnectFour
    g = ConnectFour.from_string("""
        .......
        .......
        .......
        .......
        .oo....
        .xxx..o
    """)
    r = search(g, "ucb1", iterations=5000, seed=1, solver=True, transpositions=True)
    assert r.move in (0, 4) and r.proven[r.moves.index(r.move)] == 1.0


def _flat(states, moves, counts):
    CALLS.append(len(states))
    return np.ones(moves.shape), np.full(len(states), 0.5)


CALLS = []


@pytest.mark.parametrize("name,batch", [("connect4", 1), ("connect4", 8), ("connect4", 64), ("go", 8),
                                        ("tictactoe", 8)])
def test_an_evaluator_on_the_dag_keeps_the_invariant_and_leaves_no_virtual_loss(name, batch):
    g = make_game(name)
    kw = dict(iterations=600, seed=5, evaluator=_flat, eval_batch=batch, early_stop=False)
    CALLS.clear()
    dag = search(g, "puct:c=1.5", transpositions=True, **kw)
    calls = list(CALLS)
    again = search(g, "puct:c=1.5", transpositions=True, **kw)
    tree = search(g, "puct:c=1.5", **kw)
    assert (dag.visits == again.visits).all() and np.array_equal(dag.values, again.values)
    assert dag.iterations == 600 and max(calls) <= batch and (batch == 1 or len(calls) < 600)
    check_invariant(dag, evaluated=True)
    a, n = dag.tree.arrays, dag.tree.size
    seen = a.stats[COUNT, :n] > 0  # no virtual loss left: every mean is its sum over its visits
    assert np.allclose(a.stats[3, :n][seen], a.stats[SUM, :n][seen] / a.stats[COUNT, :n][seen])
    for p in positions(dag.tree):
        f, k = a.first[p], a.nchild[p]
        if f >= 0:  # expanded at its first arrival, with the evaluator's priors in decreasing order
            assert a.prior[f:f + k].sum() == pytest.approx(1.0) and (np.diff(a.prior[f:f + k]) <= 0).all()
    assert len(positions(dag.tree)) <= tree.tree_size
    if name == "connect4":
        assert len(positions(dag.tree)) < tree.tree_size


def _reachable(g):
    """The distinct tic-tac-toe positions reachable from g (play stops at a win), by enumeration."""
    seen, stack = set(), [g]
    while stack:
        h = stack.pop()
        board = (int(h.state[0]), int(h.state[1]))
        if board in seen:
            continue
        seen.add(board)
        if not h.terminal():
            for m in h.legal_moves():
                child = h.copy()
                child.play(m)
                stack.append(child)
    return seen


def test_an_exact_evaluator_on_the_dag_meets_every_reachable_position_once():
    from test_evaluator import exact

    from treepolicies.games.tictactoe import TicTacToe
    g = TicTacToe()
    for m in (4, 0, 8, 2):  # x centre, o corner, x corner, o corner: five squares left
        g.play(m)
    expected = _reachable(g)  # by enumeration: histories differ, positions repeat
    r = search(g, "ucb1:c=2.0", iterations=4000, seed=1, evaluator=exact, eval_batch=4, transpositions=True,
               early_stop=False)
    tree = search(g, "ucb1:c=2.0", iterations=4000, seed=1, evaluator=exact, eval_batch=4, early_stop=False)
    found = positions(r.tree)
    assert len(found) == len(expected) and len(np.unique(r.tree.dag.pkey[found])) == len(found)
    assert tree.tree_size > len(found)  # the tree holds a node per move order
    check_invariant(r, evaluated=True)
    best = [mv for mv in g.legal_moves() if _value_after(g, mv) == max(_value_after(g, x) for x in g.legal_moves())]
    assert r.move in best


def _value_after(g, move):
    from test_evaluator import value_of
    h = g.copy()
    h.play(move)
    return h.reward(g.to_move) if h.terminal() else 1.0 - value_of(h.state)


def test_the_solver_on_the_dag_with_an_evaluator_proves_the_empty_tictactoe_board_a_draw():
    r = search(make_game("tictactoe"), "ucb1:c=1.0", iterations=40000, seed=2, solver=True, transpositions=True,
               evaluator=_flat, eval_batch=8)
    assert r.stop_reason == "proven" and set(r.proven.tolist()) == {0.5}
    assert len(positions(r.tree)) <= 5478


class _Unhashed:
    """A Python game without a position hash (only the identity hash every object has)."""

    to_move = 0

    def copy(self):
        return _Unhashed()

    def legal_moves(self):
        return [0, 1]

    def play(self, move):
        pass

    def terminal(self):
        return False

    def reward(self, player):
        return 0.5


def test_a_python_game_without_a_position_hash_is_refused_in_one_line():
    with pytest.raises(ValueError) as err:
        search(_Unhashed(), "ucb1", iterations=10, transpositions=True)
    assert "define __hash__ over the position" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("name,kw", [("tictactoe", {}), ("tictactoe", dict(solver=True)), ("connect4", {}),
                                     ("connect4", dict(rollout_cap=6))])
def test_the_python_dag_driver_searches_exactly_as_the_compiled_one(name, kw):
    # the same steps with the game's methods (compiled=False; the keys from the game's key kernel, as
    # python_key does for a compiled game) and the same streams: the same DAG, visits and values
    g = make_game(name)
    a = search(g, "ucb1:c=0.7", iterations=3000, seed=5, transpositions=True, early_stop=False, **kw)
    b = search(g, "ucb1:c=0.7", iterations=3000, seed=5, transpositions=True, early_stop=False, compiled=False, **kw)
    assert (a.visits == b.visits).all() and np.array_equal(a.values, b.values) and a.move == b.move
    assert a.tree.size == b.tree.size and (positions(a.tree) == positions(b.tree)).all()
    assert np.array_equal(a.tree.dag.pvis[:a.tree.size], b.tree.dag.pvis[:b.tree.size])
    if not kw.get("solver"):  # (with the solver an iteration may stop at a proven position: no out-edge)
        check_invariant(b)


def _nim_positions(stones):
    """The (stones, to_move) positions reachable from Nim(stones), player 0 to move (independent BFS)."""
    seen, todo = {(stones, 0)}, [(stones, 0)]
    while todo:
        k, who = todo.pop()
        for take in (1, 2, 3):
            if take <= k and (k - take, 1 - who) not in seen:
                seen.add((k - take, 1 - who))
                todo.append((k - take, 1 - who))
    return seen


def test_a_python_game_s_hash_makes_transpositions():
    # Nim (treepolicies/games/nim.py) hashes (stones, to_move): 1 + 2 and 2 + 1 stones meet.  From 10
    # stones 20 positions are reachable (a pile of k stones can have either player to move except
    # k = 10 with player 1 and k = 9 with player 0: BFS above), against thousands of tree nodes
    from treepolicies.games.nim import Nim
    reachable = _nim_positions(10)
    assert len(reachable) == 20
    tree = search(Nim(10), "ucb1", iterations=4000, seed=2, early_stop=False)
    dag = search(Nim(10), "ucb1", iterations=4000, seed=2, early_stop=False, transpositions=True)
    found = positions(dag.tree)
    assert len(found) <= len(reachable) < tree.tree_size
    assert len(np.unique(dag.tree.dag.pkey[found])) == len(found)
    assert set(dag.tree.dag.pkey[found].tolist()) <= {hash(p) for p in reachable}
    check_invariant(dag)
    assert dag.move == 2  # 10 mod 4: leave a multiple of 4
    again = search(Nim(10), "ucb1", iterations=4000, seed=2, early_stop=False, transpositions=True)
    assert (dag.visits == again.visits).all()


@pytest.mark.parametrize("stones,value", [(8, 0.0), (9, 1.0), (11, 1.0)])
def test_the_solver_on_a_python_game_s_dag_proves_nim(stones, value):
    # a pile that is a multiple of 4 is lost for the player to move, any other won (nim.py)
    from treepolicies.games.nim import Nim
    r = search(Nim(stones), "ucb1", iterations=100000, seed=0, solver=True, transpositions=True)
    assert r.stop_reason == "proven"
    chooser_value = max(r.proven)  # the root's proof for the player to move: its best child's
    assert chooser_value == value
    if value == 1.0:
        assert r.move == stones % 4 and r.proven[r.moves.index(r.move)] == 1.0


@pytest.mark.parametrize("game_name", ["connect4", "go", "tictactoe"])
def test_widening_and_priors_on_the_dag_bound_each_position_s_visited_edges(game_name):
    # on the DAG a position's visits are pvis (every move order that reached it): a position with
    # n visits has visited at most m = ceil(k n^alpha) of its out-edges, the first m, and its edges
    # are in decreasing prior order (sorted when it was expanded)
    import math

    g = make_game(game_name)
    k, alpha = 1.5, 0.4
    for seed in range(3):
        r = search(g, "ucb1:c=0.5", iterations=800, seed=seed, widen_k=k, widen_alpha=alpha, prior="heuristic",
                   transpositions=True, early_stop=False)
        a, d = r.tree.arrays, r.tree.dag
        checked = 0
        for p in positions(r.tree):
            f, n = int(a.first[p]), int(a.nchild[p])
            if f < 0:
                continue
            visited = a.stats[COUNT, f:f + n] > 0
            # m grows with the visits; the position's visits when each edge was last chosen were at
            # most pvis, so the bound at pvis holds for all of them
            m = min(n, max(1, math.ceil(k * max(1.0, d.pvis[p]) ** alpha - 1e-9)))
            assert visited.sum() <= m and not visited[m:].any()
            pri = a.prior[f:f + n]
            assert np.all(np.diff(pri) <= 1e-15) and pri.sum() == pytest.approx(1.0)
            checked += 1
        assert checked > 10
        check_invariant(r)


def test_first_play_urgency_on_the_dag_is_the_position_s_mean_over_its_out_edges():
    # hand-built: a position whose two out-edges hold 3 visits summing 2.0 and 1 visit of 0.0 (as
    # seen by the player choosing there): mean 2/4 = 0.5; fpu_reduction 0.2 -> 0.3; fpu=0.4 -> 0.4
    from treepolicies.mcts.options import SearchOptions
    from treepolicies.mcts.dag import first_play_urgency
    from treepolicies.mcts.tree import Tree

    tree = Tree(8, 1, 1)
    tree.init_root(1)
    a = tree.arrays
    a.first[0], a.nchild[0] = 1, 3
    a.meta[0] = 4
    a.first[1:4] = -1
    a.stats[:, 1:4] = 0.0
    a.stats[COUNT, 1], a.stats[SUM, 1] = 3.0, 2.0
    a.stats[COUNT, 2], a.stats[SUM, 2] = 1.0, 0.0
    assert first_play_urgency(a, 0, SearchOptions(fpu_reduction=0.2).array()) == pytest.approx(0.3)
    assert first_play_urgency(a, 0, SearchOptions(fpu="parent").array()) == pytest.approx(0.5)
    assert first_play_urgency(a, 0, SearchOptions(fpu=0.4).array()) == 0.4
    assert first_play_urgency(a, 0, SearchOptions().array()) == np.inf
    a.stats[COUNT, 1:4] = 0.0  # no visits out of it yet: 1/2
    assert first_play_urgency(a, 0, SearchOptions(fpu="parent").array()) == 0.5


@pytest.mark.parametrize("kw", [dict(fpu_reduction=0.1), dict(widen_k=2.0), dict(prior="heuristic", fpu=0.5)])
def test_the_python_dag_driver_matches_the_compiled_one_with_the_view_options(kw):
    g = make_game("connect4")
    a = search(g, "puct:c=1.5", iterations=2000, seed=6, transpositions=True, early_stop=False, **kw)
    b = search(g, "puct:c=1.5", iterations=2000, seed=6, transpositions=True, early_stop=False, compiled=False, **kw)
    assert (a.visits == b.visits).all() and np.array_equal(a.values, b.values)
    check_invariant(a)


@pytest.mark.parametrize("name,kw", [("connect4", dict(rave=True)), ("go", dict(rave=True)),
                                     ("nogo", dict(grave_ref=20)), ("tictactoe", dict(rave=True, rave_schedule="mse"))])
def test_rave_on_the_dag_credits_each_edge_at_least_its_visits_and_at_most_its_position_s(name, kw):
    # an iteration that took edge c at position p played move[c] there first: c is credited (AMAF_N >=
    # COUNT); only iterations that chose at p credit p's edges (AMAF_N <= pvis[p]); the other
    # player's rows (GRAVE) likewise
    from treepolicies.mcts.tree import AMAF_N, OPP_N
    g = make_game(name)
    r = search(g, "ucb1:c=0.5", iterations=1500, seed=2, transpositions=True, early_stop=False, **kw)
    a, d, n = r.tree.arrays, r.tree.dag, r.tree.size
    rows = np.arange(1, n)
    owners = a.parent[1:n]
    assert (a.amaf[AMAF_N, 1:n] >= a.stats[COUNT, 1:n]).all()
    assert (a.amaf[AMAF_N, 1:n] <= d.pvis[owners]).all() and (a.amaf[OPP_N, 1:n] <= d.pvis[owners]).all()
    assert (a.amaf[AMAF_N, 1:n] > a.stats[COUNT, 1:n]).sum() > len(rows) // 10  # moves played later count too
    if "grave_ref" in kw:
        assert a.amaf[OPP_N, 1:n].sum() > 0
    check_invariant(r)
    again = search(g, "ucb1:c=0.5", iterations=1500, seed=2, transpositions=True, early_stop=False, **kw)
    assert (r.visits == again.visits).all()


@pytest.mark.parametrize("name,kw", [("connect4", dict(rave=True)), ("connect4", dict(grave_ref=10, rave_k=50)),
                                     ("tictactoe", dict(rave=True, widen_k=2.0))])
def test_the_python_dag_driver_with_rave_matches_the_compiled_one(name, kw):
    g = make_game(name)
    a = search(g, "ucb1:c=0.5", iterations=2000, seed=8, transpositions=True, early_stop=False, **kw)
    b = search(g, "ucb1:c=0.5", iterations=2000, seed=8, transpositions=True, early_stop=False, compiled=False, **kw)
    assert (a.visits == b.visits).all() and np.array_equal(a.values, b.values)
    from treepolicies.mcts.tree import AMAF_N, AMAF_W
    n = a.tree.size
    assert np.array_equal(a.tree.arrays.amaf[[AMAF_N, AMAF_W], :n], b.tree.arrays.amaf[[AMAF_N, AMAF_W], :n])


def test_rave_on_a_python_game_s_dag():
    # Nim with RAVE on the DAG (its playout's moves are credited through their codes) still finds
    # the winning move, and every edge is credited at least its visits
    from treepolicies.games.nim import Nim
    from treepolicies.mcts.tree import AMAF_N
    r = search(Nim(11), "ucb1", iterations=6000, seed=1, transpositions=True, rave=True, early_stop=False)
    a, n = r.tree.arrays, r.tree.size
    assert (a.amaf[AMAF_N, 1:n] >= a.stats[COUNT, 1:n]).all()
    assert r.move == 3


def test_tree_reuse_keeps_the_positions_reachable_from_the_move_played():
    # a DAG search, then the sub-DAG of the most visited root move: its root is that move's position
    # with its visits; its edges keep their statistics; every position keeps its visits and its
    # out-edges (pvis - 1 of them, none lost); a shared position may have had parents left behind,
    # so the edges into it hold at most its visits; the hash table finds every kept position
    from treepolicies.mcts.search import reroot
    from treepolicies.mcts.dag import lookup as find
    g = make_game("connect4")
    r = search(g, "ucb1:c=0.5", iterations=4000, seed=3, transpositions=True, early_stop=False)
    old, od = r.tree.arrays, r.tree.dag
    f = int(old.first[0])
    j = int(np.argmax(r.visits))
    q = int(od.canon[f + j])
    new = reroot(r.tree, r.moves[j])
    a, d, n = new.arrays, new.dag, new.size
    assert d.pvis[0] == od.pvis[q] and d.pkey[0] == od.pkey[q]
    nf, nn = int(a.first[0]), int(a.nchild[0])
    of, on = int(old.first[q]), int(old.nchild[q])
    assert nn == on and np.array_equal(a.stats[COUNT, nf:nf + nn], old.stats[COUNT, of:of + on])
    kept = positions(new)
    assert 1 < len(kept) < len(positions(r.tree))
    into = np.zeros(n)
    np.add.at(into, d.canon[1:n][d.canon[1:n] >= 0], a.stats[COUNT, 1:n][d.canon[1:n] >= 0])
    for p in kept:
        assert find(d, d.pkey[p]) == p
        if p != 0:
            assert into[p] <= d.pvis[p]
        if a.first[p] >= 0:
            assert a.stats[COUNT, a.first[p]:a.first[p] + a.nchild[p]].sum() == d.pvis[p] - 1
    # the reused DAG searches on: the same rules hold, and the root's children keep their visits
    h = g.copy()
    h.play(r.moves[j])
    before = a.stats[COUNT, nf:nf + nn].sum()
    more = search(h, "ucb1:c=0.5", iterations=1000, seed=4, transpositions=True, early_stop=False, tree=new)
    assert before > 1000 and more.visits.sum() == before + 1000
    b, e = more.tree.arrays, more.tree.dag
    for p in positions(more.tree):
        if b.first[p] >= 0:
            assert b.stats[COUNT, b.first[p]:b.first[p] + b.nchild[p]].sum() == e.pvis[p] - 1


@pytest.mark.parametrize("spec", ["ucb1:c=0.5,transpositions=true,reuse=true",
                                  "puct:c=1.5,transpositions=true,reuse=true,evaluator=dag_flat,eval_batch=8"])
def test_a_player_reusing_its_dag_plays_legal_games(spec):
    # (play_game checks every move is legal); from its second move on, the player's search starts
    # from the positions kept: its root holds more than this move's 300 playouts (early stop may end one sooner)
    from treepolicies import register_evaluator
    from treepolicies.match import play_game
    from treepolicies.players import RandomPlayer, make_player
    register_evaluator("dag_flat", _flat)
    p = make_player(spec, playouts=300)
    totals = []

    def seen(ply, player, move, position):
        if player is p:
            totals.append(int(p.last.visits.sum()))

    record = play_game(make_game("connect4"), p, RandomPlayer(), seed=1, on_move=seen)
    assert len(record.moves) >= 7 and totals[0] <= 300 < max(totals[1:])
