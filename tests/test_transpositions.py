"""Transpositions (treepolicies.transpositions): one node per position, the visit invariant, and
positions reached by different move orders (captures included) recognised."""
import numpy as np
import pytest

from bandits.stats import COUNT
from treepolicies import search
from treepolicies.games import make_game
from treepolicies.games.go import Go
from treepolicies.transpositions import insert, lookup, new_dag


def positions(tree):
    n = tree.size
    return np.flatnonzero(tree.dag.canon[:n] == np.arange(n))


def check_invariant(result):
    """pvis[P] = the visits of the edges into P (P not the root); pvis[root] = the iterations; an
    expanded position's out-edges hold pvis - 1 visits (the root's: all)."""
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
            assert out == d.pvis[p] - (0 if p == 0 else 1)
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


@pytest.mark.parametrize("kw,words", [(dict(rave=True), "rave"),
                                      (dict(prior="heuristic"), "prior"), (dict(fpu=0.5), "fpu")])
def test_unsupported_combinations_are_refused_in_one_line(kw, words):
    with pytest.raises(ValueError) as err:
        search(make_game("connect4"), "ucb1", iterations=10, transpositions=True, **kw)
    assert "transpositions do not combine with" in str(err.value) and words in str(err.value)
    with pytest.raises(ValueError, match="position key kernel"):
        search(make_game("nim"), "ucb1", iterations=10, transpositions=True)
