"""MoGo's 3x3 patterns and the pattern playout on Go (treepolicies.games.go_patterns, rollout=patterns):
the table against hand-drawn windows under every rotation, reflection and colour swap, against a slow
matcher written here from the report's diagrams on random boards, the playout's rules on diagrams,
playouts that end legal and scored right, and (slow tier) a reproducible search with them."""
from __future__ import annotations

import random

import numpy as np
import pytest

from bandits.rng import stream_state
from tests.test_board import check_state, ref_area
from treepolicies.games import board as bd
from treepolicies.games.go import Go, go_legal, go_pattern_point
from treepolicies.games.go_patterns import CUT1, CUT2, EDGE, HANE, pattern_match

SEEDS = range(60)
BLACK, WHITE = 1, 2

# ------------------------------------------------------------------------------------------------
# The slow matcher: the report's diagrams (Gelly, Wang, Munos & Teytaud 2006, figures 2-5), written
# out again here, matched cell by cell under the 8 transforms numpy's rot90/fliplr make.  Tokens: X,
# O stones; . empty; x X or empty; o O or empty; ? any point on the board; # off the board.

SLOW = {  # family -> [(window, who must be to play: None / "X" / "O", windows that must not match)]
    HANE: [("XOX ... ???", None, []), ("XO. ... ?.?", None, []), ("XO? X.. ?.?", None, []),
           ("XOO ... ?.?", "X", [])],
    CUT1: [("XO? O.? ???", None, ["XO? O.O ?.?", "XO? O.. ?O?"])],
    CUT2: [("?X? O.O xxx", None, [])],
    EDGE: [("X.? O.? ###", None, []), ("?X? o.O ###", None, []), ("?XO ?.? ###", "X", []),
           ("?XO ?.o ###", "O", []), ("?XO O.X ###", "O", [])],
}


def grid(text):
    return np.array([list(row) for row in text.split()])


def transforms(a):
    """The 8 images of a 3x3 array under rotations and reflections."""
    return [np.rot90(b, k) for b in (a, np.fliplr(a)) for k in range(4)]


def fits(token, v, x):
    """Board value v (0 empty, 1 Black, 2 White, 3 off the board) against a token, X of colour x."""
    if token == "?":
        return v != 3
    if token == "X":
        return v == x
    if token == "O":
        return v == 3 - x
    if token == ".":
        return v == 0
    if token == "x":
        return v == 0 or v == x
    if token == "o":
        return v == 0 or v == 3 - x
    assert token == "#"
    return v == 3


def window_fits(w, vals, x):
    return all(fits(w[r][c], vals[r][c], x) for r in range(3) for c in range(3) if (r, c) != (1, 1))


#: (family, who, window image, its exclusions' images in the same orientation), every orientation
IMAGES = [(family, who, w.tolist(), [e.tolist() for e in ex])
          for family, pats in SLOW.items() for text, who, nots in pats
          for w, *ex in zip(transforms(grid(text)), *[transforms(grid(n)) for n in nots])]


def slow_match(vals, mover):
    """The families (bits) whose patterns match the 3x3 board values ``vals`` (centre empty) for
    ``mover`` to play."""
    vals = np.asarray(vals).tolist()
    found = 0
    for family, who, w, ex in IMAGES:
        for x in (BLACK, WHITE):
            if who == "X" and mover != x or who == "O" and mover != 3 - x:
                continue
            if window_fits(w, vals, x) and not any(window_fits(e, vals, x) for e in ex):
                found |= family
    return found


def table_match(vals, mover):
    """The table's answer for a 3x3 window of board values, through a state whose padded board
    holds it (a 5x5 board: the window's centre at padded point (r, c) chosen so that '#' cells
    fall on the padding ring, if the window has any)."""
    state = bd.new_state(5)
    w = int(state[bd.H_STRIDE])
    board = state[bd.HDR:bd.HDR + w * w].reshape(w, w)
    border_rows = [r for r in (0, 2) if (vals[r] == 3).all()]
    border_cols = [c for c in (0, 2) if (vals[:, c] == 3).all()]
    r0 = 1 if border_rows == [0] else (5 if border_rows == [2] else 3)  # the centre's padded row
    c0 = 1 if border_cols == [0] else (5 if border_cols == [2] else 3)
    for r in range(3):
        for c in range(3):
            if (r, c) != (1, 1):
                if vals[r, c] == 3:
                    assert board[r0 - 1 + r, c0 - 1 + c] == 3, "an off-board cell off the ring"
                else:
                    board[r0 - 1 + r, c0 - 1 + c] = vals[r, c]
    return int(pattern_match(state, r0 * w + c0, mover))


def values(text):
    """A window's board values from a diagram: X Black, O White, . empty, # off the board."""
    return np.array([[".XO#".index(ch) for ch in row] for row in text.split()])


def swap(vals):
    return np.where(vals == 1, 2, np.where(vals == 2, 1, vals))


# Hand-drawn windows (Black = X, White = O): (window, families for Black to play, for White).
HAND = [
    # enclosing hane: X O X above three empty points, both colours to play
    ("XOX ... ...", HANE, HANE),
    # thin hane: the adjacent O has an X and an O beside it diagonally: X (Black) to play only; for
    # White nothing else fits (one adjacent stone: no cut, no other hane)
    ("XOO ... ...", HANE, 0),
    # non-cutting hane with an X below the centre: the pattern needs that point empty; no cut or
    # cut2 (the two adjacent stones are of different colours, on opposite sides): nothing
    ("XO. ... .X.", 0, 0),
    # magari: X on the left, O above, X at their corner
    ("XO. X.. ...", HANE, HANE),
    # cut1: O above and left, X at their corner, the two other sides empty
    ("XO. O.. ...", CUT1, CUT1),
    # cut1's first exclusion (O on the right, empty below: O connects): no cut1, and no cut2 (the
    # point above is O, not X) nor hane (one empty neighbour)
    ("XO. O.O ...", 0, 0),
    # cut1 with an X on the right: neither exclusion (each needs the right point O or empty)
    ("XO. O.X ...", CUT1, CUT1),
    # cut2: O left and right, X above, no O below
    (".X. O.O ...", CUT2, CUT2),
    # cut2 with an O below on the left: excluded; no cut1 (no two O's in an L with an X between)
    (".X. O.O O..", 0, 0),
    # edge 1: on the first line an O beside the move with an X above it, the point above the move
    # empty
    ("X.. O.. ###", EDGE, EDGE),
    # edge 3 (X above the move, O diagonally: X to play); for White, edge 4 needs the right point
    # O or empty (it is X) and edge 5 an O on the left: nothing
    (".XO ..X ###", EDGE, 0),
    # edge 5: X above, O diagonally and on the left, X on the right: White to play; for Black,
    # edge 3 (X above, O diagonally) matches as well
    (".XO O.X ###", EDGE, EDGE),
    # the corner: no pattern (MoGo, Fuego), whatever the stones
    ("### #.O #X.", 0, 0),
    # a hane window on the first line: the centre patterns need all 8 points on the board, but
    # edge patterns fit, read with X := White: O (White) above the move, X (Black) diagonally;
    # White to play: edge 3 (the stone above of the mover's colour, an enemy diagonally); Black
    # to play: edge 4 (the stone above the enemy's, the mover's diagonally, the side below that
    # diagonal empty)
    ("XOX ... ###", EDGE, EDGE),
]


@pytest.mark.parametrize("text,for_black,for_white", HAND)
def test_patterns_on_hand_drawn_windows_under_every_symmetry_and_colour_swap(text, for_black, for_white):
    vals = values(text)
    for img in transforms(vals):
        # the same window turned or reflected: the same families (the patterns are matched under
        # all 8 transforms)
        assert table_match(img, BLACK) == for_black
        assert table_match(img, WHITE) == for_white
        # colours swapped and the other player to move: the same position for that player
        assert table_match(swap(img), WHITE) == for_black
        assert table_match(swap(img), BLACK) == for_white
        assert slow_match(img, BLACK) == for_black and slow_match(img, WHITE) == for_white


def random_window(rng):
    """3x3 board values around an empty centre: on a random point of a 9x9 board (so edges and
    corners come up), each on-board neighbour empty, Black or White at random."""
    n = 9
    r, c = rng.randrange(n), rng.randrange(n)
    vals = np.zeros((3, 3), int)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if (dr, dc) == (0, 0):
                continue
            inside = 0 <= r + dr < n and 0 <= c + dc < n
            vals[dr + 1, dc + 1] = rng.choice((0, 0, 1, 2)) if inside else 3
    return vals


def test_the_table_agrees_with_the_slow_matcher_on_random_windows():
    rng = random.Random(2006)
    hits = {HANE: 0, CUT1: 0, CUT2: 0, EDGE: 0}
    for _ in range(1500):
        vals = random_window(rng)
        for mover in (BLACK, WHITE):
            want = slow_match(vals, mover)
            assert table_match(vals, mover) == want, (vals, mover)
            for f in hits:
                hits[f] += bool(want & f)
    assert min(hits.values()) > 0  # every family came up


# ------------------------------------------------------------------------------------------------
# The playout's rules (go_pattern_point) on diagrams


def pattern_code(game, last_code, seed, prev_code=None):
    s = game.state.copy()
    last = -1 if last_code is None else int(bd.point_of(s, last_code))
    prev = -1 if prev_code is None else int(bd.point_of(s, prev_code))
    p = go_pattern_point(s, stream_state(seed, 0, 0), game.to_move + 1, last, prev)
    return int(bd.code_of(s, p))


def test_escape_comes_first():
    # White's last move O at C3 (row 2, col 2, code 12) put the Black stone at C4 (row 1, col 2,
    # code 7) in atari: its one liberty is C5 (code 2), and the chain C5-C4 would have B5 and D5:
    # two liberties, so extending saves it.  The White C3 has three liberties (no capture).  Rule 1
    # comes before the patterns around C3, so C5 whatever the stream.
    g = Go.from_diagram("""
        . . . . .
        . O X O .
        . . O . .
        . . . . .
        . . . . .
    """, to_move=0)
    assert {pattern_code(g, 12, seed) for seed in SEEDS} == {2}


def test_escape_candidates_include_the_capture():
    # White has just played O at B5 (row 0, col 1, code 1): the Black A5 (code 0) keeps one liberty,
    # A4 (code 5).  Extending there gives the chain A5-A4 the liberties A3 (10) and B4 (6): two, a
    # saving move.  The White B5 has C5 (2) and B4 (6): not in atari, no capture.  Only A4.
    g = Go.from_diagram("""
        X O . . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .
    """, to_move=0)
    assert {pattern_code(g, 1, seed) for seed in SEEDS} == {5}
    # With a Black stone at C5 (code 2) as well, White's B5 has one liberty, B4 (6): capturing it
    # saves A5 too.  Two candidates, extend at A4 and capture at B4, drawn uniformly (C5 has D5
    # and C4: not in atari, nothing else to save).
    g = Go.from_diagram("""
        X O X . .
        . . . . .
        . . . . .
        . . . . .
        . . . . .
    """, to_move=0)
    got = [pattern_code(g, 1, seed) for seed in range(200)]
    assert set(got) == {5, 6}
    assert 60 < got.count(5) < 140  # uniform: 100 expected, sd 7


def test_patterns_around_the_last_move_before_captures_and_random_moves():
    # Black X at D6 (row 3, col 3); White has just attached at E6 (row 3, col 4, code 31).  No chain
    # is in atari.  The empty points around E6, for Black to play (rows/cols 0-based):
    #   (2,4) code 22: window ... / ... / X O .  -> turned 180 degrees and mirrored: XO. / ... / ...,
    #         the non-cutting hane (the point opposite the O, (1,4), is empty as it needs);
    #   (4,4) code 40: window X O . / ... / ...  -> the non-cutting hane as drawn;
    #   (2,3) code 21: window ... / ... / . X O  -> the non-cutting hane with the colours swapped
    #         (the adjacent stone X, the diagonal beside it O, the other diagonal empty);
    #   (4,3) code 39: window . X O / ... / ...  -> the same;
    #   (2,5), (4,5): only a diagonal stone (every pattern needs an adjacent one): no;
    #   (3,5) code 32: only the O on its left, no diagonal stone: no hane, no cut: no.
    # So the playout plays one of 21, 22, 39, 40, each (uniformly) with probability 1/4.
    g = Go.from_diagram("""
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . X O . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """, to_move=0)
    board = np.pad(g.board(), 1, constant_values=3)
    slow = {r * 9 + c for r in range(2, 5) for c in range(3, 6)
            if board[r + 1, c + 1] == 0 and slow_match(board[r:r + 3, c:c + 3], BLACK)}
    assert slow == {21, 22, 39, 40}  # the slow matcher agrees with the derivation
    got = [pattern_code(g, 31, seed) for seed in range(400)]
    assert set(got) == {21, 22, 39, 40}
    assert all(60 < got.count(m) < 140 for m in (21, 22, 39, 40))  # 100 each expected, sd 8.7


def test_the_first_ply_replies_to_the_tree_s_last_move():
    # The position of the pattern test above reached by moves: Black D6 (code 30), White E6 (31).
    # The state records E6 as the last stone placed (board.H_LAST), so the rollout's first ply
    # (cap 1) is one of the four pattern points derived there.  From the same stones set up as a
    # diagram there is no last move (H_LAST = -1): a random safe move, over 60 seeds more than
    # those four points.
    g = Go(9)
    g.play(30)
    g.play(31)
    assert g.state[bd.H_LAST] == bd.point_of(g.state, 31)
    plies = np.empty(4, np.int64)

    def first(game, seed):
        s = game.state.copy()
        assert game.rollouts["patterns"].play(s, stream_state(seed, 0, 0), plies, 1) == 1
        assert s[bd.H_LAST] == bd.point_of(s, int(plies[0]) >> 1)
        return int(plies[0]) >> 1

    assert {first(g, seed) for seed in SEEDS} == {21, 22, 39, 40}
    h = Go.from_diagram("\n".join(" ".join(".XO"[v] for v in row) for row in g.board()), to_move=0)
    assert h.state[bd.H_LAST] == -1
    assert not {first(h, seed) for seed in SEEDS} <= {21, 22, 39, 40}
    g.play(g.PASS)  # a pass: no last move
    assert g.state[bd.H_LAST] == -1


def test_capture_next_to_the_movers_previous_move():
    # Black's previous move X at C3 (row 2, col 2, code 12) put the White stone C4 (code 7) in atari
    # (liberty C5, code 2); White's last move was far away, at E1 (row 4, col 4, code 24), touching
    # no Black chain, and no pattern matches around it (a lone stone in the corner: the corner point
    # itself is occupied, its neighbours D1/E2 are first-line points next to the corner with one
    # stone nearby -- edge patterns need an X above/beside: none).  Black captures at C5.
    g = Go.from_diagram("""
        . . . . .
        . X O X .
        . . X . .
        . . . . .
        . . . . O
    """, to_move=0)
    # (C4 = O has neighbours C5 empty, B4 X, D4 X, C3 X: one liberty)
    board = np.pad(g.board(), 1, constant_values=3)
    for code in (19, 23):  # E2 and D1: the empty neighbours of E1 (plus D2, code 18)
        r, c = divmod(code, 5)
        assert not slow_match(board[r:r + 3, c:c + 3], BLACK)
    r, c = divmod(18, 5)
    assert not slow_match(board[r:r + 3, c:c + 3], BLACK)
    assert {pattern_code(g, 24, seed, prev_code=12) for seed in SEEDS} == {2}
    # without the previous move the capture is not seen (rule 3 looks next to it and at the last
    # move only): a random safe move, so more than one point comes up
    assert len({pattern_code(g, 24, seed) for seed in SEEDS}) > 1


# ------------------------------------------------------------------------------------------------
# Whole playouts


# (fillboard's kernel compiles for 10 s on a fresh clone; its rule is checked in the default tier by
# tests/test_go_nakade.py, its whole playouts here in the slow tier and CI's part of it)
@pytest.mark.parametrize("rollout", ["patterns", "nakade", pytest.param("fillboard", marks=pytest.mark.slow)])
@pytest.mark.parametrize("size", [5, 9])
def test_pattern_playouts_play_legal_moves_and_end_scored_right(size, rollout):
    g = Go(size=size)
    kernel = g.rollouts[rollout]
    legal = np.empty(size * size + 1, np.int64)
    for seed in range(25):
        s = g.state.copy()
        plies = np.empty(4 * size * size, np.int64)
        n = kernel.play(s, stream_state(seed, 0, 0), plies, -1)
        # replay: each ply is one of the search's moves where it was played (go_legal: legal, no
        # own eye, pass only when no point is), by the player to move
        t = g.state.copy()
        for x in plies[:n]:
            x = int(x)
            assert x & 1 == t[bd.H_TOMOVE]
            k = go_legal(t, legal)
            assert x >> 1 in set(legal[:k].tolist())
            g.kernels.play(t, x >> 1)
        assert (t[:bd.HDR] == s[:bd.HDR]).all()  # header: hash, counts, ko
        npts = int(s[bd.H_NPTS])
        assert (t[bd.HDR:bd.HDR + npts] == s[bd.HDR:bd.HDR + npts]).all()  # the same board
        end = g.copy()
        end.state = s
        assert end.terminal()
        check_state(end)  # chains, liberties, empties as recomputed from the board
        # the winner: the area recomputed from scratch (tests.test_board.ref_area: a pure-Python
        # flood fill of the empty regions), komi 7.5
        black_wins = ref_area(end.board().tolist()) - 7.5 > 0
        assert kernel.value(s, 0) == (1.0 if black_wins else 0.0)
        assert kernel.value(s, 1) == (0.0 if black_wins else 1.0)


def test_pattern_playouts_are_reproducible_and_differ_from_heuristic_ones():
    g = Go(9)
    runs = []
    for name in ("patterns", "patterns", "heuristic", "nakade", "nakade"):
        s = g.state.copy()
        plies = np.empty(400, np.int64)
        n = g.rollouts[name].play(s, stream_state(7, 0, 0), plies, -1)
        runs.append(plies[:n].tolist())
    assert runs[0] == runs[1] and runs[3] == runs[4]  # same seed, same playout
    assert runs[0] != runs[2] and runs[0] != runs[3]  # each rollout its own (fillboard: the slow search test)


# ------------------------------------------------------------------------------------------------
# Searches (a search loop outside the default tier: slow, tests/beyond_default.txt, tests/ci_slow.txt)


@pytest.mark.slow
def test_search_with_pattern_playouts_is_reproducible():
    from treepolicies import search
    from treepolicies.players import make_player

    a = search(Go(9), "ucb1:c=0.5", iterations=400, seed=5, rollout="patterns")
    b = search(Go(9), "ucb1:c=0.5", iterations=400, seed=5, rollout="patterns")
    assert a.move == b.move and a.iterations == b.iterations == 400
    assert list(a.visits) == list(b.visits)
    c = search(Go(9), "ucb1:c=0.5", iterations=400, seed=5, rollout="heuristic")
    assert list(a.visits) != list(c.visits)  # the rollout is in use
    p = make_player("ucb1:c=0.5,rollout=patterns", playouts=200)
    assert p.choose(Go(9), 3) == make_player("ucb1:c=0.5,rollout=patterns", playouts=200).choose(Go(9), 3)


@pytest.mark.slow
@pytest.mark.parametrize("rollout", ["nakade", "fillboard"])
def test_search_with_nakade_and_fill_board_playouts_is_reproducible(rollout):
    from treepolicies import search

    kw = dict(iterations=400, seed=5, early_stop=False)
    a = search(Go(9), "ucb1:c=0.5", rollout=rollout, **kw)
    b = search(Go(9), "ucb1:c=0.5", rollout=rollout, **kw)
    assert a.move == b.move and a.iterations == b.iterations == 400
    assert list(a.visits) == list(b.visits)
    c = search(Go(9), "ucb1:c=0.5", rollout="patterns", **kw)
    assert list(a.visits) != list(c.visits)  # the rollout is in use


# ------------------------------------------------------------------------------------------------
# prior=knowledge (go_knowledge_prior): the weights by hand on a diagram


def knowledge(game):
    from treepolicies.games.go import go_knowledge_prior

    moves = np.empty(game.size ** 2 + 1, np.int64)
    n = go_legal(game.state, moves)
    out = np.empty(n)
    go_knowledge_prior(game.state, moves, n, out)
    return dict(zip(moves[:n].tolist(), out.tolist()))


def test_knowledge_prior_weights_by_hand():
    # Black to play; White's last move C4 (row 1, col 2, code 7; set as the state's last stone).
    # The White chain C4-C3 has one liberty, C5 (code 2).  Weights (KNOWLEDGE_WEIGHTS: even 1,
    # capture 4, pattern 2, near1 1 for the 8 neighbours of the last move, near2 0.5 at distance 2):
    #   C5 (2): captures (+4); on the first line under X O X, both sides empty: edge 4 read with
    #           the pattern's X := White (the stone above, the enemy's) and O := Black (diagonally,
    #           the mover's; the side below it empty), O to play (+2); next to C4 (+1): 8
    #   B5 (1): first line, X (Black, the mover) above, O diagonally: edge 3 (+2); next to C4 (+1): 4
    #   D2 (18): X above and on the left, O at their corner, the right and below empty: cut1 (+2);
    #           distance max(2, 1) = 2 from C4 (+0.5): 3.5
    #   A5 (0): the corner (no pattern), distance 2 (+0.5): 1.5
    #   E1 (24): nothing around, distance 3: 1
    g = Go.from_diagram("""
        . . . . .
        . X O X .
        . X O X .
        . . X . .
        . . . . .
    """, to_move=0)
    g.state[bd.H_LAST] = bd.point_of(g.state, 7)
    pr = knowledge(g)
    assert sum(pr.values()) == pytest.approx(1.0)
    unit = pr[24]
    for code, weight in {2: 8.0, 1: 4.0, 18: 3.5, 0: 1.5, 24: 1.0}.items():
        assert pr[code] / unit == pytest.approx(weight), code
    # without a last move the distance terms drop: C5 weighs 7, A5 1
    g.state[bd.H_LAST] = -1
    pr = knowledge(g)
    assert pr[2] / pr[24] == pytest.approx(7.0) and pr[0] / pr[24] == pytest.approx(1.0)


def test_knowledge_prior_scales_down_self_ataris():
    # White to play, no last move: A5 (code 0) leaves the new stone one liberty (A4) next to the
    # Black B5, which has three: a self-atari, weight 1 * 0.1; E1 (24), alone: weight 1.
    g = Go.from_diagram("""
        . X . . .
        . . X . .
        . X . . .
        . . . . .
        . . . . .
    """, to_move=1)
    pr = knowledge(g)
    assert pr[0] / pr[24] == pytest.approx(0.1)


@pytest.mark.slow
def test_search_with_the_knowledge_prior_is_reproducible():
    from treepolicies import search

    kw = dict(iterations=400, seed=2, prior="knowledge", rollout="patterns")
    a = search(Go(9), "puct:c=1.5", **kw)
    b = search(Go(9), "puct:c=1.5", **kw)
    assert a.move == b.move and list(a.visits) == list(b.visits)
