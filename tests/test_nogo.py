"""NoGo rules (docs/algorithms.md) on ASCII diagrams (X Black, O White)."""
import pytest

from treepolicies.games.nogo import NoGo


def code(g, r, c):
    return r * g.size + c


def test_capturing_move_is_illegal():
    g = NoGo.from_diagram("""
        . X . . .
        X O X . .
        . . . . .
        . . . . .
        . . . . .
    """)
    # White (1,1) has one liberty, (2,1): Black there would capture it -> illegal in NoGo
    assert not g.is_legal(code(g, 2, 1))
    assert code(g, 2, 1) not in g.legal_moves()
    with pytest.raises(ValueError):
        g.play(code(g, 2, 1))
    # White may extend there: the chain (1,1)-(2,1) then has (2,0) (2,2) (3,1)
    g.set_to_move(1)
    assert g.is_legal(code(g, 2, 1))


def test_suicide_is_illegal_even_when_it_would_capture():
    g = NoGo.from_diagram("""
        . X . . .
        X . . . .
        . . . . .
        . . . . .
        . . . . .
    """, to_move=1)
    # White (0,0): no liberty, nothing captured -> suicide
    assert not g.is_legal(code(g, 0, 0))
    g2 = NoGo.from_diagram("""
        . X O . .
        X O . . .
        O . . . .
        . . . . .
        . . . . .
    """, to_move=1)
    # Black stones (0,1) and (1,0) each have the single liberty (0,0). White (0,0) would have no
    # liberty itself; in Go it would capture both and live, in NoGo it is illegal twice over
    assert not g2.is_legal(code(g2, 0, 0))
    # Black (0,0): joins (0,1) and (1,0) into a chain with no liberty -> suicide, illegal
    g2.set_to_move(0)
    assert not g2.is_legal(code(g2, 0, 0))


def test_filling_own_eye_is_legal_while_a_liberty_remains():
    g = NoGo.from_diagram("""
        . X . X .
        X X X X X
        . . . . .
        . . . . .
        . . . . .
    """)
    # Black fills (0,0): the chain keeps (0,2) (0,4) and row 2 -> legal (no eye rule in NoGo)
    assert g.is_legal(code(g, 0, 0))


def test_player_without_legal_move_loses():
    g = NoGo.from_diagram("""
        X X X X X
        X . X X X
        X X X X X
        O O O O O
        O . O O O
    """)
    # Black to move: (1,1) fills Black's last liberty (suicide), (4,1) takes White's last liberty
    # (capture).  Black has no legal move: the game is over and Black has lost.
    assert g.legal_moves() == []
    assert g.terminal()
    assert g.reward(0) == 0.0 and g.reward(1) == 1.0 and g.winner() == 1
    assert g.result_string() == "W+R"
    # with White to move, symmetrically White has lost
    g.set_to_move(1)
    assert g.terminal() and g.reward(1) == 0.0 and g.result_string() == "B+R"


def test_no_pass_in_nogo():
    g = NoGo(size=5)
    assert not g.is_legal(25)
    with pytest.raises(ValueError, match="pass"):
        g.str_to_move("pass")
    assert g.max_moves == 25 and len(g.legal_moves()) == 25


def test_a_game_alternates_and_never_captures():
    g = NoGo(size=5)
    stones = 0
    while not g.terminal():
        g.play(g.legal_moves()[len(g.legal_moves()) // 2])
        stones += 1
        assert (g.board() != 0).sum() == stones  # nothing ever leaves the board
    assert g.winner() == 1 - g.to_move


@pytest.mark.parametrize("size", [4, 20])
def test_bad_size(size):
    with pytest.raises(ValueError, match="size"):
        NoGo(size=size)
