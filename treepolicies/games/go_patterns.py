"""MoGo's 3x3 patterns (Gelly, Wang, Munos & Teytaud 2006) as one lookup table.

The patterns of INRIA research report RR-6062, "Modification of UCT with Patterns in Monte-Carlo
Go" (figures 2-5), as its text descriptions give them (and Fuego's GoUctPatterns documents them);
the move is the centre point of a 3x3 window.  Notation (the report's):

    X, O   a stone of one colour, of the other      .  empty
    x      X or empty (not O)                      o  O or empty (not X)
    ?      any point on the board                  #  off the board (the edge patterns' last row)

Every pattern is matched under the 8 rotations and reflections of the window and with the colours
swapped (X Black or White), unless it names who is to play: ``to_play="X"`` matches only when the
player to move has X's colour, ``"O"`` only when it has O's.

* **Hane** (figure 2; any one matches)::

      XOX   XO.   XO?   XOO
      ...   ...   X..   ...
      ???   ?.?   ?.?   ?.?   (the last: X to play)

* **Cut1** (figure 3): the first matches and neither of the other two (in the same orientation)::

      XO?   XO?   XO?
      O.?   O.O   O..
      ???   ?.?   ?O?

* **Cut2** (figure 4)::

      ?X?
      O.O
      xxx

* **Edge** (figure 5; the move on the first line, the bottom row off the board; any one matches)::

      X.?   ?X?   ?XO   ?XO   ?XO
      O.?   o.O   ?.?   ?.o   O.X
      ###   ###   ###   ###   ###
                  X     O     O      to play

  A centre pattern holds only points on the board (``?`` included), so it matches only at a point
  off the first line; an edge pattern needs both neighbours along the edge on the board, so none
  matches in a corner (as in MoGo and Fuego).

The table: the 8 neighbours of an empty point ``p``, each its board value (0 empty, 1 Black,
2 White, 3 off the board), in row-major order (NW, N, NE, W, E, SW, S, SE), make the code
``sum(v_i << 2 i)`` in 0..4^8-1 (:func:`pattern_code`); ``PATTERN_TABLE[(colour - 1) * 4**8 +
code]`` holds, for the player ``colour`` to move, the bits of the families that match (``HANE``,
``CUT1``, ``CUT2``, ``EDGE``), 0 for none: a match is one table read.  The table is built once at
import, by enumerating each pattern's instances (a few ms), not by testing the 2 x 4^8 codes.
"""
from __future__ import annotations

import itertools

import numba as nb
import numpy as np

from treepolicies.games.board import BLACK, BORDER, EMPTY, H_STRIDE, HDR, WHITE

__all__ = ["PATTERNS", "HANE", "CUT1", "CUT2", "EDGE", "FAMILIES", "PATTERN_TABLE", "pattern_code",
           "pattern_match", "build_table", "symmetries"]

HANE, CUT1, CUT2, EDGE = 1, 2, 4, 8
FAMILIES = {"hane": HANE, "cut1": CUT1, "cut2": CUT2, "edge": EDGE}

#: (family, name, rows top to bottom, to_play (None: both colours; "X" or "O"), excluded windows)
PATTERNS = [
    ("hane", "enclosing hane", ("XOX", "...", "???"), None, ()),
    ("hane", "non-cutting hane", ("XO.", "...", "?.?"), None, ()),
    ("hane", "magari", ("XO?", "X..", "?.?"), None, ()),
    ("hane", "thin hane", ("XOO", "...", "?.?"), "X", ()),
    ("cut1", "cut1", ("XO?", "O.?", "???"), None, (("XO?", "O.O", "?.?"), ("XO?", "O..", "?O?"))),
    ("cut2", "cut2", ("?X?", "O.O", "xxx"), None, ()),
    ("edge", "edge 1", ("X.?", "O.?", "###"), None, ()),
    ("edge", "edge 2", ("?X?", "o.O", "###"), None, ()),
    ("edge", "edge 3", ("?XO", "?.?", "###"), "X", ()),
    ("edge", "edge 4", ("?XO", "?.o", "###"), "O", ()),
    ("edge", "edge 5", ("?XO", "O.X", "###"), "O", ()),
]

#: the window's cells other than the centre, row-major, as (row, col) in 0..2
CELLS = [(r, c) for r in range(3) for c in range(3) if (r, c) != (1, 1)]
N_CODES = 4 ** 8


def symmetries(rows):
    """The 8 images of a 3x3 window (rows of 3 characters) under rotation and reflection."""
    g = [list(r) for r in rows]
    out = []
    for _ in range(4):
        g = [[g[2 - c][r] for c in range(3)] for r in range(3)]  # a quarter turn
        out.append(tuple("".join(r) for r in g))
        out.append(tuple("".join(r[::-1]) for r in g))  # and its mirror image
    return out


def _allowed(token, cx):
    """The board values a token admits when X has colour cx."""
    co = 3 - cx
    return {"X": (cx,), "O": (co,), ".": (EMPTY,), "x": (EMPTY, cx), "o": (EMPTY, co),
            "?": (EMPTY, BLACK, WHITE), "#": (BORDER,)}[token]


def _matches(window, values, cx):
    """Whether the 8 board values (CELLS order) fit the window with X of colour cx."""
    return all(v in _allowed(window[r][c], cx) for (r, c), v in zip(CELLS, values))


def build_table() -> np.ndarray:
    """The uint8 table of 2 * 4^8 entries (module docstring), from :data:`PATTERNS`."""
    table = np.zeros(2 * N_CODES, np.uint8)
    for family, _name, rows, to_play, excluded in PATTERNS:
        bit = FAMILIES[family]
        images = zip(symmetries(rows), *[symmetries(e) for e in excluded])
        for window, *ex in images:  # a pattern and its exclusions turn together
            if window[1][1] != ".":
                raise ValueError(f"pattern {_name!r}: the centre must be empty")
            for cx in (BLACK, WHITE):
                movers = (BLACK, WHITE) if to_play is None else ((cx,) if to_play == "X" else (3 - cx,))
                for values in itertools.product(*[_allowed(window[r][c], cx) for r, c in CELLS]):
                    if any(_matches(e, values, cx) for e in ex):
                        continue
                    code = sum(v << (2 * i) for i, v in enumerate(values))
                    for mover in movers:
                        table[(mover - 1) * N_CODES + code] |= bit
    return table


PATTERN_TABLE = build_table()


@nb.njit(cache=True, inline="always")
def pattern_code(state, p):
    """The code of the 8 neighbours of padded point ``p`` (module docstring)."""
    w = state[H_STRIDE]
    b = HDR + p
    return (state[b - w - 1] | (state[b - w] << 2) | (state[b - w + 1] << 4) | (state[b - 1] << 6)
            | (state[b + 1] << 8) | (state[b + w - 1] << 10) | (state[b + w] << 12) | (state[b + w + 1] << 14))


@nb.njit(cache=True, _nrt=False)
def pattern_match(state, p, colour):
    """The pattern families (bits) that match at the empty padded point ``p`` for ``colour`` (1 Black,
    2 White) to play; 0: none."""
    return PATTERN_TABLE[(colour - 1) * N_CODES + pattern_code(state, p)]
