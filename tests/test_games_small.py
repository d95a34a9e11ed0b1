"""Tic-tac-toe and Connect Four: rules, tactics in given positions, strength against random, solver."""
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
