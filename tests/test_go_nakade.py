"""Nakade and fill board in the Go playouts (rollout=nakade, rollout=fillboard): the eye-space
shape classifier against hand-drawn shapes over every polyomino of up to six points, the regions
and self-ataris on diagrams, the playout's nakade and fill-board rules, and whole playouts (with
tests/test_go_patterns.py's legality and scoring test, which runs these rollouts too)."""
from __future__ import annotations

import numpy as np

from bandits.rng import stream_state
from treepolicies.games import board as bd
from treepolicies.games.go import Go, fill_board_point, go_pattern_point

SEEDS = range(60)
BLACK, WHITE = 1, 2

# ------------------------------------------------------------------------------------------------
# The classifier (board.shape_point) against drawings.  The textbook killable eye shapes, each with
# its vital point V (Go proverbs; e.g. Sensei's Library "Killable eyeshapes"); every other shape of
# three to six points either gives two eyes with correct play or (one or two points, the square
# four) is one eye whatever is played.

KILLABLE = {
    "straight three": ["XVX"],
    "bent three": ["XV", ".X"],
    "pyramid four": ["XVX", ".X."],
    "bulky five": ["XX.", "XVX"],
    "crossed five": [".X.", "XVX", ".X."],
    "rabbity six": [".X.", "XVX", "XX."],
}


def cells(drawing):
    return {(r, c) for r, row in enumerate(drawing) for c, ch in enumerate(row) if ch in "XV"}


def normal(shape):
    """The shape translated to row 0 and column 0, as a frozenset."""
    r0 = min(r for r, _ in shape)
    c0 = min(c for _, c in shape)
    return frozenset((r - r0, c - c0) for r, c in shape)


def images(shape, mark):
    """The 8 rotations and reflections of a shape with a marked point, each normalised, with the
    marked point moved along."""
    out = []
    for flip in (False, True):
        for turns in range(4):
            def f(p):
                r, c = p
                if flip:
                    c = -c
                for _ in range(turns):
                    r, c = c, -r
                return r, c
            moved = {f(p) for p in shape}
            r0 = min(r for r, _ in moved)
            c0 = min(c for _, c in moved)
            m = f(mark)
            out.append((normal(moved), (m[0] - r0, m[1] - c0)))
    return out


#: normalised shape -> its vital point, for every image of every killable drawing
VITAL = {}
for _name, _d in KILLABLE.items():
    _v = next((r, c) for r, row in enumerate(_d) for c, ch in enumerate(row) if ch == "V")
    for _s, _m in images(cells(_d), _v):
        VITAL[_s] = _m
ONE_EYE = {normal(s) for s, _ in images({(0, 0), (0, 1), (1, 0), (1, 1)}, (0, 0))}


def polyominoes(n):
    """Every fixed polyomino of n cells (normalised), grown cell by cell from one."""
    shapes = {frozenset({(0, 0)})}
    for _ in range(n - 1):
        shapes = {normal(s | {(r + dr, c + dc)}) for s in shapes for r, c in s
                  for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)) if (r + dr, c + dc) not in s}
    return shapes


def test_the_classifier_names_the_killable_shapes_and_their_vital_points_and_nothing_else():
    # Fixed polyominoes: 1, 2, 6, 19, 63, 216 of sizes 1 to 6 (OEIS A001168): the enumeration is
    # whole.  Each is put on a 9x9 board at row 1, column 1 (padded points (r + 2) * 11 + c + 2),
    # and board.shape_point, which only counts each point's neighbours inside the shape, must give
    # the drawn vital point for the killable ones, -2 for one eye, -1 for the rest.
    assert [len(polyominoes(n)) for n in range(1, 7)] == [1, 2, 6, 19, 63, 216]
    state = Go(9).state
    w = int(state[bd.H_STRIDE])
    pts = np.empty(bd.NAKADE_MAX, np.int64)
    seen = {"vital": 0, "one eye": 0, "alive": 0}
    for n in range(1, 7):
        for shape in polyominoes(n):
            order = sorted(shape)
            for i, (r, c) in enumerate(order):
                pts[i] = (r + 2) * w + c + 2
            got = int(bd.shape_point(state, pts, n))
            if shape in VITAL:
                r, c = VITAL[shape]
                assert got == (r + 2) * w + c + 2, (shape, got)
                seen["vital"] += 1
            elif n <= 2 or shape in ONE_EYE:
                assert got == -2, shape
                seen["one eye"] += 1
            else:
                assert got == -1, shape
                seen["alive"] += 1
    # images: straight three 2, bent three 4, pyramid four 4, bulky five 8, crossed five 1, rabbity
    # six 4 (it is its own mirror image across a diagonal): 23 killable; one eye: 1 + 2 + 1 (the
    # square) = 4; the rest of the 307
    assert seen == {"vital": 23, "one eye": 4, "alive": 307 - 27}


# ------------------------------------------------------------------------------------------------
# Regions and self-ataris on diagrams


def pt(game, r, c):
    return int(bd.point_of(game.state, r * game.size + c))


def test_eye_space_walks_the_empty_region_and_names_its_walls():
    g = Go.from_diagram("""
        . O O O O . . . .
        O . . . O . . . .
        O . O O O . . . .
        O O O . . . . . .
        . . . . . . . . .
        . . . . . . X . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """)
    pts = np.empty(bd.NAKADE_MAX, np.int64)
    # (1,1) (1,2) (1,3) (2,1): four points walled by White alone (the edge is no wall colour)
    n, colours = bd.eye_space(g.state, pt(g, 1, 1), pts)
    assert n == 4 and colours == WHITE
    assert set(pts[:n].tolist()) == {pt(g, 1, 1), pt(g, 1, 2), pt(g, 1, 3), pt(g, 2, 1)}
    # the corner point (0,0) alone, walled by White and the edge
    n, colours = bd.eye_space(g.state, pt(g, 0, 0), pts)
    assert (n, colours, int(pts[0])) == (1, WHITE, pt(g, 0, 0))
    # the open board: more than six points (the walk stops at seven), walled by both colours as
    # far as it went -- the count is all the caller needs
    before = g.state.copy()
    n, _ = bd.eye_space(g.state, pt(g, 4, 4), pts)
    assert n == bd.NAKADE_MAX + 1
    # stopping at the first Black stone: White's four-point space is walled by White alone, so the
    # walk goes to its end; the open board meets the Black stone at (5,6) or runs past six points
    assert bd.eye_space(g.state, pt(g, 1, 1), pts, BLACK) == (4, WHITE)
    n, colours = bd.eye_space(g.state, pt(g, 5, 5), pts, BLACK)
    assert colours & BLACK and n <= bd.NAKADE_MAX
    # the walk marks the points it meets on the board and empties them again
    assert (g.state == before).all()


def self_atari_case(diagram, r, c):
    g = Go.from_diagram(diagram)
    p = pt(g, r, c)
    assert bd.liberties_after(g.state, p, BLACK, True) == 1  # a self-atari (the case's premise)
    return bool(bd.keeps_nakade(g.state, p, BLACK, np.empty(bd.NAKADE_MAX, np.int64)))


def test_self_ataris_that_keep_nakade():
    # Black X X inside White's four-point eye space (1,1)-(1,4); playing (1,3) makes the chain
    # (1,1)-(1,3) with one liberty, (1,4): once White captures, the three points are a straight
    # three, killable (Black replays the middle): kept.
    row_of_four = """
        O O O O O O O
        O X X . . O .
        O O O O O O .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
    """
    assert self_atari_case(row_of_four, 1, 3)
    # (1,4) instead: one stone, liberty (1,3); a captured stone leaves one point: one eye: kept
    assert self_atari_case(row_of_four, 1, 4)
    # a row of five with three Black stones: (1,4) makes a straight four (two eyes once captured
    # and answered): refused; (1,5), one stone: kept
    row_of_five = """
        O O O O O O O
        O X X X . . O
        O O O O O O .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
    """
    assert not self_atari_case(row_of_five, 1, 4)
    assert self_atari_case(row_of_five, 1, 5)
    # the square four (one eye whatever is played): kept
    square = """
        O O O O . . .
        O X X O . . .
        O X . O . . .
        O O . O . . .
        . O O O . . .
        . . . . . . .
        . . . . . . .
    """
    assert self_atari_case(square, 2, 2)
    # seven stones: more than a killable space holds: refused
    seven = """
        O O O O O O O O O
        O X X X X X X . O
        O O O O O O O . O
        . . . . . . . O .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """
    assert not self_atari_case(seven, 1, 7)


def test_random_points_refuse_self_ataris_except_the_nakade_ones_with_the_scratch():
    # Black's empty points: (1,3) makes a straight three in atari (kept, above), (1,4) one stone in
    # atari (kept); (3,1) and (3,3) are suicides (White's chain has other liberties).  So a safe
    # random point is none (-1), and with the scratch one of (1,3) (code 8) and (1,4) (code 9).
    g = Go.from_diagram("""
        O O O O O
        O X X . .
        O O O O O
        O . O . O
        O O O O O
    """)
    pts = np.empty(bd.NAKADE_MAX, np.int64)
    plain = {int(bd.random_point(g.state.copy(), stream_state(s, 0, 0), BLACK, False, True)) for s in SEEDS}
    assert plain == {-1}
    got = {int(bd.code_of(g.state, bd.random_point(g.state.copy(), stream_state(s, 0, 0), BLACK, False,
                                                    True, pts))) for s in SEEDS}
    assert got == {8, 9}


# ------------------------------------------------------------------------------------------------
# The playout's rules


def test_the_nakade_rule_plays_the_vital_point_of_the_space_the_last_move_closed():
    # White's last move (3,3) (code 30) closed the bent three (2,2) (2,3) (3,2), walled by White
    # alone.  No chain is in atari (no escape), so rule 1a plays its vital point, (2,2) (code 20:
    # two neighbours in the space, the others one), whatever the stream.  The other empty
    # neighbours of (3,3), (3,4) and (4,3), open onto the board (more than six points).
    diagram = """
        . . . . . . . . .
        . O O O O . . . .
        . O . . O . . . .
        . O . O O . . . .
        . O O O . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """
    g = Go.from_diagram(diagram)
    last = pt(g, 3, 3)
    pts = np.empty(bd.NAKADE_MAX, np.int64)

    def point(game, seed, scratch=True):
        s = game.state.copy()
        if scratch:
            p = go_pattern_point(s, stream_state(seed, 0, 0), BLACK, last, -1, pts, 0)
        else:
            p = go_pattern_point(s, stream_state(seed, 0, 0), BLACK, last, -1)
        return int(bd.code_of(s, p))

    assert {point(g, s) for s in SEEDS} == {20}
    # without the scratch (rollout=patterns) the rule is not there: the hane patterns around
    # (3,3) and random moves come up instead
    assert len({point(g, s, scratch=False) for s in SEEDS}) > 1
    # a Black stone in the wall at (4,2) makes the space walled by both colours: no nakade move
    h = Go.from_diagram("""
        . . . . . . . . .
        . O O O O . . . .
        . O . . O . . . .
        . O . O O . . . .
        . O X O . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """)
    assert len({point(h, s) for s in SEEDS}) > 1


def test_fill_board_plays_only_points_with_eight_empty_neighbours():
    # On the empty 9x9 board the 49 points off the first line qualify, the 32 on it do not: with
    # two tries the rule fails with probability (32/81)^2 = 0.156, 31.2 of 200 seeds (sd 5.1).
    g = Go(9)
    board = np.pad(g.board(), 1, constant_values=3)
    got = [int(fill_board_point(g.state.copy(), stream_state(s, 0, 0), 2)) for s in range(200)]
    for p in got:
        if p >= 0:
            r, c = divmod(int(bd.code_of(g.state, p)), 9)
            assert (board[r:r + 3, c:c + 3] == 0).all()
    assert 16 <= got.count(-1) <= 47
    assert len({p for p in got if p >= 0}) > 30  # uniform over the 49: most of them come up
    # a board where no empty point has eight empty neighbours: never
    h = Go.from_diagram("""
        . . . . .
        . X . X .
        . . . . .
        . X . X .
        . . . . .
    """)
    assert {int(fill_board_point(h.state.copy(), stream_state(s, 0, 0), 4)) for s in SEEDS} == {-1}
