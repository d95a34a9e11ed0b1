"""Rollouts for the enhancements (treepolicies.games.Rollout): the light heuristics rule by rule on
diagrams, rollouts that end legal and scored right, recorded plies that replay, and the cap."""
import numpy as np
import pytest

from bandits.rng import stream_state
from tests.test_board import check_state, ref_after, ref_area, ref_chains
from treepolicies.games import board as bd
from treepolicies.games.connect4 import ConnectFour
from treepolicies.games.go import Go, go_heuristic_point
from treepolicies.games.nogo import NoGo
from treepolicies.games.tictactoe import TicTacToe

SEEDS = range(60)


def heuristic_code(game, last_code, seed):
    """The code of go_heuristic_point for the player to move, the opponent's last move given."""
    s = game.state.copy()
    last = -1 if last_code is None else int(bd.point_of(s, last_code))
    p = go_heuristic_point(s, stream_state(seed, 0, 0), game.to_move + 1, last)
    return int(bd.code_of(s, p))


def test_go_heuristic_captures_the_last_moves_chain_in_atari():
    # White has just played O at B4 (row 1, col 1), into atari: its one liberty is B3 (row 2,
    # col 1, code 2 * 5 + 1 = 11).  Black captures there, whatever the random stream.
    g = Go.from_diagram("""
        . X . . .
        X O X . .
        . . . . .
        . . . . .
        . . . . .
    """, to_move=0)
    assert {heuristic_code(g, 6, seed) for seed in SEEDS} == {11}


def test_go_heuristic_escapes_atari():
    # White's last move O at C3 (row 2, col 2, code 12) put the Black stone at C4 (row 1, col 2)
    # in atari: its one liberty is C5 (row 0, col 2, code 2).  Extending there gives the chain
    # C5-C4 the liberties B5 and D5 (two), so Black escapes; no White chain is in atari.
    g = Go.from_diagram("""
        . . . . .
        . O X O .
        . . O . .
        . . . . .
        . . . . .
    """, to_move=0)
    assert {heuristic_code(g, 12, seed) for seed in SEEDS} == {2}


SELF_ATARI = """
    . X . . .
    . . X . .
    . X . . .
    . . . . .
    . . . . .
"""  # White to move: A5 (code 0: neighbours B5 = X, A4 empty), C5 (code 2: B5 = X, D5 empty,
#   C4 = X) and B4 (code 6: B5, C4, B3 = X, A4 empty) each leave the new stone one liberty


def self_ataris(game, colour):
    """Codes whose stone of ``colour`` would be a chain with exactly one liberty (reference)."""
    board, n, out = game.board().tolist(), game.size, set()
    for r in range(n):
        for c in range(n):
            after = ref_after(board, r, c, colour)
            if after is None or not after[2]:
                continue
            libs = next(lib for col, stones, lib in ref_chains(after[0]) if (r, c) in stones)
            if len(libs) == 1 and not (isinstance(game, Go) and after[1] > 0):
                out.add(r * n + c)
    return out


@pytest.mark.parametrize("cls", [Go, NoGo])
def test_light_playouts_avoid_self_atari(cls):
    g = cls.from_diagram(SELF_ATARI, to_move=1)
    assert self_ataris(g, 2) == {0, 2, 6}  # the hand derivation above, confirmed by the reference
    first = {}
    for name in ("random", "heuristic"):
        codes = set()
        for seed in range(200):
            s = g.state.copy()
            plies = np.empty(200, np.int64)
            g.rollouts[name].play(s, stream_state(seed, 3, 0), plies, 1)
            codes.add(int(plies[0]) >> 1)
        first[name] = codes
    assert not first["heuristic"] & {0, 2, 6}
    assert first["random"] & {0, 2, 6}  # the uniform playout does play them: the rule is what avoids them


def test_liberties_after_matches_the_reference_on_random_positions():
    for cls, captures in ((Go, True), (NoGo, False)):
        g = cls(size=7)
        for k in range(30):
            if g.terminal():
                break
            moves = g.legal_moves()
            g.play(moves[(7 * k + 3) % len(moves)])  # a fixed walk through varied positions
            board, colour = g.board().tolist(), g.to_move + 1
            for r in range(7):
                for c in range(7):
                    after = ref_after(board, r, c, colour)
                    if after is None or not after[2] or (not captures and after[1] > 0):
                        continue
                    libs = next(lib for col, stones, lib in ref_chains(after[0]) if (r, c) in stones)
                    want = 2 if (captures and after[1] > 0) else min(2, len(libs))
                    p = int(bd.point_of(g.state, r * 7 + c))
                    assert bd.liberties_after(g.state, p, colour, captures) == want, (r, c)


WIN_IN_ONE = """
    .......
    .......
    .......
    .......
    .oo....
    .xxx..o
"""  # x to move (3 stones each): column 0 or 4 completes the bottom row

BLOCK = """
    .......
    .......
    .......
    x......
    oo.....
    xxx...o
"""  # o to move, no win of its own; x completes the bottom row at column 3 unless o blocks


def test_connect4_heuristic_takes_the_win_and_blocks_the_loss():
    for diagram, want in ((WIN_IN_ONE, {4}), (BLOCK, {3})):
        g = ConnectFour.from_string(diagram)
        for seed in SEEDS:
            s = g.state.copy()
            plies = np.empty(42, np.int64)
            g.rollouts["heuristic"].play(s, stream_state(seed, 0, 0), plies, 1)
            # winning_column scans centre first (3, 2, 4, 1, 5, 0, 6): 4 before 0
            assert {int(plies[0]) >> 1} <= want
            assert int(plies[0]) & 1 == g.to_move


def replay(game, plies, n):
    """The game after the recorded plies, played through its checked Python interface."""
    g = game.copy()
    for x in plies[:n]:
        x = int(x)
        assert x & 1 == g.to_move, "the ply records who moved"
        g.play(x >> 1)
    return g


@pytest.mark.parametrize("name", ["random", "heuristic"])
@pytest.mark.parametrize("size", [5, 9])
def test_go_rollouts_end_legal_scored_right_and_replay(name, size):
    g = Go(size=size)
    for seed in range(25):
        s = g.state.copy()
        plies = np.empty(4 * size * size, np.int64)
        n = g.rollouts[name].play(s, stream_state(seed, 0, 0), plies, -1)
        end = g.copy()
        end.state = s
        assert end.terminal()
        check_state(end)
        black_wins = ref_area(end.board().tolist()) - 7.5 > 0  # the score recomputed from scratch
        assert end.reward(0) == (1.0 if black_wins else 0.0)
        assert g.rollouts[name].value(s, 0) == end.reward(0)
        again = replay(g, plies, n)  # every recorded move was legal, and they give this board
        assert (again.board() == end.board()).all()


@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_nogo_rollouts_end_with_the_loser_to_move_and_replay(name):
    g = NoGo(size=7)
    for seed in range(25):
        s = g.state.copy()
        plies = np.empty(49, np.int64)
        n = g.rollouts[name].play(s, stream_state(seed, 1, 0), plies, -1)
        end = g.copy()
        end.state = s
        assert end.terminal() and end.legal_moves() == []
        check_state(end)
        assert all(libs for _, _, libs in ref_chains(end.board().tolist()))
        assert g.rollouts[name].value(s, end.to_move) == 0.0
        assert (replay(g, plies, n).board() == end.board()).all()


@pytest.mark.parametrize("cls,names", [(ConnectFour, ("random", "heuristic")), (TicTacToe, ("random",))])
def test_bitboard_rollouts_replay_and_score(cls, names):
    g = cls()
    for name in names:
        for seed in range(40):
            s = g.state.copy()
            plies = np.empty(42, np.int64)
            n = g.rollouts[name].play(s, stream_state(seed, 2, 0), plies, -1)
            again = replay(g, plies, n)
            assert again.terminal() and (again.state == s).all()
            assert g.rollouts[name].value(s, 0) == again.reward(0)


def test_random_rollout_makes_the_playouts_draws():
    # rollout=random must change nothing: the same stream gives the same final position
    for g in (Go(size=9), NoGo(size=9), ConnectFour(), TicTacToe()):
        for seed in range(5):
            a, b = g.state.copy(), g.state.copy()
            g.kernels.playout(a, stream_state(seed, 0, 0))
            g.rollouts["random"].play(b, stream_state(seed, 0, 0), np.empty(0, np.int64), -1)
            assert (a == b).all()


def test_rollout_cap_stops_and_scores_the_position_as_it_stands():
    g = Go(size=9)
    s = g.state.copy()
    plies = np.empty(300, np.int64)
    n = g.rollouts["random"].play(s, stream_state(4, 0, 0), plies, 10)
    end = g.copy()
    end.state = s
    assert n == 10 and int(s[bd.H_MOVES]) == 10 and not end.terminal()
    # Go: the area score of the unfinished board (Tromp-Taylor counts it as it stands), komi 7.5
    assert g.rollouts["random"].value(s, 0) == (1.0 if ref_area(end.board().tolist()) - 7.5 > 0 else 0.0)
    # games without a score count an unfinished position as a draw
    c = ConnectFour()
    s = c.state.copy()
    assert c.rollouts["heuristic"].play(s, stream_state(1, 0, 0), plies, 3) == 3
    assert c.rollouts["heuristic"].value(s, 0) == 0.5
    ng = NoGo(size=9)
    s = ng.state.copy()
    assert ng.rollouts["random"].play(s, stream_state(1, 0, 0), plies, 5) == 5
    assert ng.rollouts["random"].value(s, 1) == 0.5
