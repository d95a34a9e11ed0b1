"""The exact Connect Four values behind the root-policy study's simple regret (benchmarks/root_policies.py,
docs/root-policies.md): its win/draw/loss negamax against values derived by hand on three positions,
and against the toolkit's alpha-beta (treepolicies/alphabeta.py) searched to the end of the game."""
import importlib.util
from pathlib import Path

import pytest

from treepolicies.alphabeta import alphabeta
from treepolicies.games.connect4 import ConnectFour

ROOT = Path(__file__).resolve().parents[1]


def _benchmark():
    spec = importlib.util.spec_from_file_location("root_policies_benchmark", ROOT / "benchmarks" / "root_policies.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# Rows top first; r = row from the top, c = column.  In the comments (r, c) names a cell.
#
# OPEN_THREE: x holds (5, 1..3) with both ends (5, 0) and (5, 4) playable; o (2 stones) to move has no
# threat of its own.  Whatever o plays, x then completes four on the bottom row at an end o left open:
# every move of o loses (value 0 for o), and the position is lost for o (-1).
OPEN_THREE = """
.......
.......
.......
.......
.oo....
.xxx...
"""
# WIN_OR_LOSE: o to move, three empty cells: (0, 2), (0, 3), (1, 3).
#  - o at (1, 3) (column 3) makes (1, 3) (2, 4) (3, 5) o o o on a diagonal with (0, 2) open above it,
#    and (0, 3) (1, 4) (2, 5) (3, 6) would be o o o o once o gets (0, 3).  x has two cells left, (0, 2)
#    and (0, 3): whichever x takes, o takes the other and completes one of the two diagonals.  Win: 1.
#  - o at (0, 2) (column 2) leaves x only column 3: x at (1, 3) completes (0, 4) (1, 3) (2, 2) (3, 1)
#    (4, 0), x x x x x on the other diagonal.  Loss: 0.
WIN_OR_LOSE = """
ox..xoo
xxo.oxx
ooxxoox
xxxoxoo
xoooxox
xxooxxo
"""
# WIN_OR_DRAW: o to move, three empty cells: (0, 4), (0, 6), (1, 6).
#  - o at (0, 4) (column 4) completes row 0: o o o o in columns 2..5.  Win: 1.
#  - o at (1, 6) (column 6): no four (row 1 is o x x o x x o; its diagonal (1, 6) (2, 5) (3, 4) is
#    o o o with (4, 3) x below and nothing above).  x must take (0, 4), which blocks row 0 and makes
#    no four for x (its diagonal (0, 4) (1, 5) (2, 6) is three long; column 4 holds x x x then o).
#    o takes the last cell, (0, 6), with no four: the board is full.  Draw: 1/2.  (Had x taken (0, 6),
#    o would complete row 0 at (0, 4).)
WIN_OR_DRAW = """
xxoo.o.
oxxoxx.
xoxxxox
oxoooxo
oxoxxxo
oxxoxoo
"""
CASES = [  # (diagram, exact value for the player to move, {move: value of playing it})
    (OPEN_THREE, -1, {c: 0.0 for c in range(7)}),
    (WIN_OR_LOSE, 1, {2: 0.0, 3: 1.0}),
    (WIN_OR_DRAW, 1, {4: 1.0, 6: 0.5}),
]


@pytest.mark.slow  # (compiles the solver: ~15 s)
@pytest.mark.parametrize("diagram, value, moves", CASES, ids=["open-three", "win-or-lose", "win-or-draw"])
def test_the_connect4_solver_gives_the_hand_derived_values(diagram, value, moves):
    rp = _benchmark()
    game = ConnectFour.from_string(diagram)
    assert game.to_move == 1  # o to move in all three
    assert rp.solve_wdl(game) == value
    assert rp.move_values(game) == moves
    if int(game.state[2]) >= 30:  # the toolkit's alpha-beta, searched to the end of the game (depth =
        # empty cells), agrees in sign (from the open three, 37 plies deep, it would take hours)
        _, score, _, _ = alphabeta(game, depth=42 - int(game.state[2]))
        assert (score > 0) - (score < 0) == value


@pytest.mark.slow  # (compiles the solver and plays random games)
def test_the_study_s_positions_are_running_with_differing_exact_values_that_alpha_beta_confirms():
    rp = _benchmark()
    cases = rp.connect4_positions(6, (30, 31), seed=3, no_win_in_one=True)
    assert len(cases) == 6
    for game, values in cases:
        assert not game.terminal() and 30 <= int(game.state[2]) <= 31 and not rp.immediate_win(game)
        assert len(set(values.values())) > 1 and set(values) == set(game.legal_moves())
        for move, value in values.items():  # each move's value against alpha-beta to the end of the game
            child = game.copy()
            child.play(move)
            if child.terminal():
                assert value == child.reward(game.to_move)
                continue
            _, score, _, _ = alphabeta(child, depth=42 - int(child.state[2]))
            assert value == {1: 0.0, 0: 0.5, -1: 1.0}[(score > 0) - (score < 0)]  # (score: the child's mover)
    assert {v for _, vals in cases for v in vals.values()} == {0.0, 0.5, 1.0}  # (draws among them)
    again = rp.connect4_positions(6, (30, 31), seed=3, no_win_in_one=True)  # seeded: the same positions
    assert [str(g) for g, _ in again] == [str(g) for g, _ in cases]
