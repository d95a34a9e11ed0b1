"""Tic-tac-toe and Connect Four: rules, tactics in given positions, strength against random, solver."""
import math

import numpy as np
import pytest

from treepolicies import ConnectFour, RandomPlayer, TicTacToe, UCT, alphabeta, match, search


def test_tictactoe_rules_and_diagrams():
    g = TicTacToe.from_string("""
        xx.
        oo.
        ...
    """)
    assert g.to_move == 0 and g.legal_moves() == [2, 5, 6, 7, 8]
    g.play(2)
    assert g.terminal() and g.reward(0) == 1.0 and g.reward(1) == 0.0
    draw = TicTacToe.from_string("xox\nxoo\noxx")
    assert draw.terminal() and draw.reward(0) == 0.5
    with pytest.raises(ValueError, match="illegal move"):
        TicTacToe.from_string("x..\n...\n...").play(0)


def test_connect4_rules_and_diagrams():
    g = ConnectFour()
    for col in (0, 1, 0, 1, 0, 1):
        g.play(col)
    assert not g.terminal() and g.to_move == 0
    g.play(0)  # fourth x in column 0
    assert g.terminal() and g.reward(0) == 1.0
    assert str(ConnectFour.from_string(str(g))) == str(g)
    diag = ConnectFour.from_string("""
        .......
        .......
        ...x...
        ..xo...
        .xoo...
        xooxx..
    """)
    assert diag.terminal() and diag.reward(0) == 1.0  # the rising diagonal a1-d4
    with pytest.raises(ValueError, match="floating"):
        ConnectFour.from_string(".......\n" * 4 + "x......\n.......")


WIN_IN_ONE = """
    .......
    .......
    .......
    .......
    .oo....
    .xxx..o
"""  # x to move (3 stones each): column 0 or 4 completes the bottom row




def test_connect4_takes_an_immediate_win():
    g = ConnectFour.from_string(WIN_IN_ONE)
    assert g.to_move == 0
    for policy in ("ucb1", "miucb:episodic=true"):
        assert search(g, policy, iterations=2000, seed=0).move in (0, 4)


def test_connect4_blocks_an_immediate_loss():
    # o to move; x threatens to complete the bottom row at column 3 (x x x . in columns 0-2);
    # o has no win of its own, so only column 3 avoids losing at once.
    g = ConnectFour.from_string("""
        .......
        .......
        .......
        x......
        oo.....
        xxx...o
    """)
    assert g.to_move == 1
    for policy in ("ucb1", "miucb:episodic=true"):
        assert search(g, policy, iterations=3000, seed=1).move == 3


def test_alphabeta_finds_the_win_and_the_block_and_solves_tictactoe():
    assert alphabeta(ConnectFour.from_string(WIN_IN_ONE), depth=2)[0] in (0, 4)
    # the empty tic-tac-toe board is a draw: negamax to the end scores 0
    move, score, depth, nodes = alphabeta(TicTacToe(), depth=9)
    assert score == 0.0
    with pytest.raises(ValueError, match="compiled game"):
        from treepolicies import Nim
        alphabeta(Nim(5), depth=3)


def _negamax_reference(game, depth):
    """Knuth & Moore's negamax with alpha-beta, written recursively in Python over the game's public
    methods (copy, legal_moves, play, terminal, reward, to_move): (move, score, nodes entered below
    the root).  Independent of the compiled search, which runs the same recursion on an explicit stack."""
    nodes = 0

    def value(g, ply, d, alpha, beta):
        nonlocal nodes
        nodes += 1
        if g.terminal():  # (2 r - 1)(W - ply), r for the player to move there
            return (2.0 * g.reward(g.to_move) - 1.0) * (1000.0 - ply)
        if d == 0:
            return 0.0
        best = -math.inf
        for m in g.legal_moves():
            child = g.copy()
            child.play(m)
            v = -value(child, ply + 1, d - 1, -beta, -alpha)
            best, alpha = max(best, v), max(alpha, v)
            if alpha >= beta:
                break
        return best

    best, best_move, alpha = -math.inf, None, -math.inf
    for m in game.legal_moves():
        child = game.copy()
        child.play(m)
        v = -value(child, 1, depth - 1, -math.inf, -alpha)
        if v > best:
            best, best_move = v, m
        alpha = max(alpha, v)
    return best_move, best + 0.0, nodes


def test_alphabeta_matches_a_recursive_negamax_move_score_and_nodes():
    # random Connect Four and tic-tac-toe positions (some with a forced win or loss in reach),
    # depths 1-4 (tic-tac-toe to the end): the compiled search must return the reference's best
    # move, score and node count exactly -- the same tree, pruned at the same moves
    rng = np.random.default_rng(7)
    cases = 0
    for make, depths in ((ConnectFour, (1, 2, 3, 4)), (TicTacToe, (1, 3, 9))):
        for _ in range(6):
            g = make()
            for _ in range(int(rng.integers(0, 12 if make is ConnectFour else 5))):
                if g.terminal():
                    break
                g.play(int(rng.choice(g.legal_moves())))
            if g.terminal():
                continue
            for d in depths:
                move, score, depth, nodes = alphabeta(g, depth=d)
                assert (move, score, nodes) == _negamax_reference(g, d), (g.name, d)
                assert depth == d
                cases += 1
    assert cases >= 30


def test_tictactoe_uct_against_uct_always_draws():
    result = match(UCT(playouts=5000), UCT(playouts=5000), "tictactoe", 10, seed=0)
    assert result.draws == 10


def test_tictactoe_uct_never_loses_to_random():
    result = match(UCT(playouts=3000), RandomPlayer(), "tictactoe", 200, seed=1)
    assert result.losses == 0


@pytest.mark.parametrize("spec", ["ucb1", "iucb", "iucb:episodic=true", "miucb:episodic=true", "klucb",
                                  "thompson", "egreedy:epsilon=0.2"])
def test_solver_proves_the_empty_tictactoe_board_a_draw(spec):
    # Every node policy must respect the solver's mask of proven children (improved UCB keeps its
    # own active set, so it is the case most likely to break); tic-tac-toe is a draw.
    result = search(TicTacToe(), spec, iterations=1_000_000, seed=0, solver=True, early_stop=False)
    assert result.stop_reason == "proven"
    assert result.tree.proven[0] == 0.5  # the root is a draw (for either player)
    assert max(result.proven) == 0.5 and min(result.proven) >= 0.0  # no first move wins


def test_connect4_uct_beats_random():
    result = match(UCT(playouts=2000), RandomPlayer(), "connect4", 100, seed=2)
    assert result.wins >= 95
