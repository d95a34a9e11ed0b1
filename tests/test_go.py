"""Go rules on hand-built positions (ASCII diagrams: X Black, O White, . empty; row 0 on top).

Move codes are row * size + col; ``g.str_to_move("C3")`` gives GTP vertices (rows counted from
the bottom).  Every expected value is derived in the comment above it.
"""
import pytest

from tests.go_helpers import superko_position
from treepolicies.games.go import Go, go_is_legal


def code(g, r, c):
    return r * g.size + c


def test_single_stone_capture():
    g = Go.from_diagram("""
        . . . . .
        . . X . .
        . X O . .
        . . X . .
        . . . . .
    """)
    # the White stone at (2,2) has one liberty, (2,3); Black plays there and takes it
    g.play(code(g, 2, 3))
    assert g.board()[2, 2] == 0
    assert g.board()[2, 3] == 1
    assert g.to_move == 1


def test_group_capture():
    g = Go.from_diagram("""
        . X X . .
        X O O . .
        . X X . .
        . . . . .
        . . . . .
    """)
    # White (1,1)-(1,2): neighbours (0,1) (0,2) (2,1) (2,2) (1,0) are Black, only (1,3) is empty
    g.play(code(g, 1, 3))
    assert (g.board()[1, 1], g.board()[1, 2]) == (0, 0)
    # both captured points are now liberties Black-only: the area count sees them as Black's
    assert g.board().tolist()[1] == [1, 0, 0, 1, 0]


def test_single_stone_suicide_refused():
    g = Go.from_diagram("""
        . X . . .
        X . X . .
        . X . . .
        . . . . .
        . . . . .
    """, to_move=1)
    # White at (1,1): four Black neighbours, none in atari -> no liberty, no capture -> suicide
    assert not g.is_legal(code(g, 1, 1))
    assert code(g, 1, 1) not in g.legal_moves()
    with pytest.raises(ValueError, match="not legal"):
        g.play(code(g, 1, 1))
    assert g.board()[1, 1] == 0 and g.to_move == 1  # the refused move changed nothing


def test_group_suicide_refused_but_capture_allowed():
    g = Go.from_diagram("""
        O O X . .
        . X . . .
        X . . . .
        . . . . .
        . . . . .
    """, to_move=1)
    # White (1,0) joins (0,0)-(0,1) whose only liberty is (1,0); the neighbours (1,1), (2,0) are
    # Black chains with two liberties each, so nothing is captured: a 3-stone suicide
    assert not g.is_legal(code(g, 1, 0))
    g.set_to_move(0)
    # Black at (1,0) takes the last liberty of the two White stones: a capture, legal
    g.play(code(g, 1, 0))
    assert g.board()[0, 0] == 0 and g.board()[0, 1] == 0


KO = """
    . X O . .
    X O . O .
    . X O . .
    . . . . .
    . . . . .
"""


def test_ko_capture_and_immediate_retake_refused():
    g = Go.from_diagram(KO)
    a, b = code(g, 1, 2), code(g, 1, 1)
    # Black (1,2) has no empty neighbour but takes the lone White stone (1,1): legal
    assert g.is_legal(a)
    g.play(a)
    assert g.board()[1, 1] == 0
    # White retaking at (1,1) would capture the single stone (1,2) that has one liberty: simple ko
    assert not g.is_legal(b)
    assert not go_is_legal(g.state, b)  # the compiled rule (used by playouts and the tree) too
    assert b not in g.legal_moves()
    # after an exchange elsewhere the ko may be retaken
    g.play(code(g, 4, 4))
    g.play(code(g, 4, 0))
    assert g.is_legal(b)
    g.play(b)
    assert g.board()[1, 2] == 0


def test_positional_superko_refused():
    # tests/go_helpers.py: after Black A4 and White A3, Black A5 would recreate the start
    g, a5, start = superko_position()
    assert go_is_legal(g.state, a5)  # legal under simple ko
    trial = g.copy()
    trial.kernels.play(trial.state, a5)
    assert (trial.board() == start).all()  # ... and it would repeat the start
    assert not g.is_legal(a5)
    assert a5 not in g.legal_moves() and a5 not in g.all_legal_moves()
    with pytest.raises(ValueError):
        g.play(a5)


EYES = """
    . X . X .
    X . X O .
    . X . X .
    X X X . .
    . . . . .
"""


def test_eyes_are_not_searched_but_are_legal():
    g = Go.from_diagram(EYES)
    eye, one_bad_diagonal, corner = code(g, 1, 1), code(g, 2, 2), code(g, 0, 0)
    # (1,1): four Black neighbours, diagonals (0,0) (0,2) (2,0) (2,2) hold no White stone: an eye.
    # (0,0): corner point, neighbours (0,1) (1,0) Black, its one diagonal (1,1) empty: an eye.
    # (2,2): four Black neighbours, one White diagonal (1,3) in the middle of the board: still an
    #        eye by the rule (fewer than two enemy diagonals).
    # (0,2): neighbours (0,1) (0,3) (1,2) Black; on the edge, its diagonal (1,3) is White: a false
    #        eye, so Black may fill it.
    legal = g.legal_moves()
    assert eye not in legal and corner not in legal and one_bad_diagonal not in legal
    assert code(g, 0, 2) in legal
    assert g.is_legal(eye) and g.is_legal(corner)  # filling an own eye is legal, just not searched
    # for White these points are single-point suicides
    g.set_to_move(1)
    assert not g.is_legal(eye) and not g.is_legal(corner)


def test_pass_only_when_no_other_move():
    g = Go.from_diagram("""
        . X . X X
        X X X . X
        X . X X X
        X X X X .
        X X X X X
    """)
    # every empty point is a Black eye (all neighbours Black, no White diagonal): Black passes
    assert g.legal_moves() == [g.PASS]
    assert g.is_legal(code(g, 0, 0))
    g.play(g.PASS)
    # White: each empty point is a suicide, so White must pass too; two passes end the game
    assert g.legal_moves() == [g.PASS]
    g.play(g.PASS)
    assert g.terminal() and g.legal_moves() == []
    # area: Black has 20 stones + 5 single-point regions = 25 = all points; 25 - 7.5 = 17.5
    assert g.score() == 17.5 and g.result_string() == "B+17.5"
    assert g.reward(0) == 1.0 and g.reward(1) == 0.0 and g.winner() == 0


def test_area_score_with_komi_and_neutral_points():
    g = Go.from_diagram("""
        . X O . .
        . X O . .
        X X . O O
        . X O . .
        . X O . .
    """, komi=0.5)
    # Black: 6 stones + (0,0) (1,0) (3,0) (4,0) (empty, reach Black only) = 10
    # White: 6 stones + (0,3) (0,4) (1,3) (1,4) (3,3) (3,4) (4,3) (4,4) = 14
    # (2,2) touches both colours: nobody's.  10 - 14 - 0.5 = -4.5
    assert g.score() == -4.5 and g.result_string() == "W+4.5"
    g.play(g.PASS)
    g.play(g.PASS)
    assert g.reward(1) == 1.0 and g.reward(0) == 0.0


def test_integer_komi_can_draw():
    g = Go.from_diagram("""
        . X . O .
        X X . O O
        . X . O .
        X X . O O
        . X . O .
    """, komi=0)
    # Black 7 stones + 3 points = 10, White 7 + 3 = 10, the middle column is neutral: 0 -> draw
    g.play(g.PASS)
    g.play(g.PASS)
    assert g.score() == 0 and g.reward(0) == 0.5 and g.winner() is None


def test_move_cap_ends_the_game_and_is_reported():
    g = Go(size=5, move_cap=4)
    for m in (0, 24, 4, 20):
        assert not g.terminal()
        g.play(m)
    assert g.terminal() and g.capped
    assert Go(size=5).move_cap == 75  # 3 x 25 points by default


def test_reward_before_the_end_is_an_error():
    with pytest.raises(ValueError, match="end"):
        Go(size=5).reward(0)


@pytest.mark.parametrize("size", [4, 20, 9.0, True])
def test_bad_size(size):
    with pytest.raises(ValueError, match="size"):
        Go(size=size)


@pytest.mark.parametrize("komi", [0.3, float("nan"), "7.5"])
def test_bad_komi(komi):
    with pytest.raises(ValueError, match="komi"):
        Go(komi=komi)


def test_vertices():
    g = Go(size=9)
    # GTP: A1 is the bottom-left corner = row 8, col 0; J9 is the top-right (no column I)
    assert g.str_to_move("A1") == 72 and g.move_to_str(72) == "A1"
    assert g.str_to_move("j9") == 8 and g.move_to_str(8) == "J9"
    assert g.str_to_move("PASS") == 81 and g.move_to_str(81) == "pass"
    for bad in ("I5", "A10", "Z1", "", "A0", "11"):
        with pytest.raises(ValueError):
            g.str_to_move(bad)
    with pytest.raises(ValueError):
        g.move_to_str(82)


def test_occupied_and_out_of_range_moves_refused():
    g = Go(size=5)
    g.play(12)
    for bad in (12, -1, 26, 3.0, True, "A1"):
        assert not g.is_legal(bad)
        with pytest.raises(ValueError):
            g.play(bad)
    assert g.moves == [12]


def test_copy_is_independent():
    g = Go(size=5)
    h = g.copy()
    h.play(0)
    assert g.board()[0, 0] == 0 and g.moves == [] and h.moves == [0]


def test_compiled_search_leaves_superko_moves_out_of_its_root():
    from treepolicies import search

    g, a5, _ = superko_position()
    assert a5 not in g.legal_moves()
    result = search(g, "ucb1:c=0.5", iterations=300, seed=0)
    assert a5 not in result.moves and sorted(result.moves) == sorted(g.legal_moves())


def _with_history(g, repeating):
    """Add to g's game record the positions that each move of ``repeating`` would create, so that
    every one of them repeats a position (positional superko) at g's root."""
    import numpy as np

    hashes = []
    for m in repeating:
        t = g.copy()
        t.play(m)
        hashes.append(t.position_hash)
    g._seen = np.unique(np.concatenate([g._seen, np.array(hashes, dtype=np.int64)]))
    g._mark_superko()
    return g


def test_superko_list_holds_more_than_sixteen_repeating_root_moves():
    # 20 of the 25 points of the empty 5x5 board would repeat a position: the root's superko list
    # once held 16 moves, so the compiled search could still pick one of the other 4
    from treepolicies import search

    allowed = [0, 4, 12, 20, 24]
    repeating = [m for m in range(25) if m not in allowed]
    g = _with_history(Go(size=5), repeating)
    assert not any(g.is_legal(m) for m in repeating)
    assert sorted(g.legal_moves()) == allowed
    result = search(g, "ucb1:c=0.5", iterations=400, seed=0)
    assert sorted(result.moves) == allowed and result.move in allowed


def test_every_root_move_repeating_leaves_only_pass():
    from treepolicies import search

    g = _with_history(Go(size=5), list(range(25)))
    assert g.legal_moves() == [g.PASS]
    result = search(g, "ucb1:c=0.5", iterations=50, seed=0)
    assert result.moves == [g.PASS] and result.move == g.PASS


@pytest.mark.parametrize("komi", [1e308, -1e308, float("inf"), 81.5, 10**400])
def test_komi_out_of_range_is_a_value_error_naming_the_range(komi):
    # |komi| <= size * size: the area score lies in -81..81 on 9x9 (before the fix 1e308 gave
    # OverflowError from round(inf))
    with pytest.raises(ValueError, match=r"komi must be a multiple of 0\.5 in -81\.\.81 on a 9x9 board, got"):
        Go(size=9, komi=komi)
    g = Go(size=9)
    with pytest.raises(ValueError, match=r"in -81\.\.81"):
        g.set_komi(komi)
    assert g.komi == 7.5
    assert Go(size=9, komi=-81).komi == -81.0 and Go(size=9, komi=81).komi == 81.0
