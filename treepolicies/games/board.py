"""Compiled Go-board machinery shared by Go and NoGo: chains with incremental pseudo-liberties.

A position is one flat ``int64`` array (the *state*), so copying it is one ``memcpy`` and every
kernel is a numba function of the array alone.  Points live on a padded board of
``W = size + 2`` columns and rows; the padding ring holds ``BORDER``, so the four neighbours
``p - 1, p + 1, p - W, p + W`` and the four diagonals of an on-board point are always inside the
array.  A *move code* is ``row * size + col`` (row 0 at the top, as the ASCII diagrams are
written); the padded point of a code is ``(row + 1) * W + col + 1``.

Layout (``P = W * W``; header slots ``H_*`` first, then nine arrays of length ``P``, then the
root's superko list of ``size * size`` slots)::

    state[0:HDR]          header: size, to_move (0 Black, 1 White), ko point (-1 none),
                          consecutive passes, moves played, Zobrist hash, number of empty points,
                          2 * komi, move cap, W, P; the move number the root's superko list
                          applies at and its length; the last stone placed (slots 14..31
                          are unused)
    board   = [HDR + 0P]  EMPTY / BLACK / WHITE / BORDER per point
    chain   = [HDR + 1P]  chain id of a stone (the id is one stone of the chain, fixed until merged)
    nxt     = [HDR + 2P]  next stone of the same chain (a circular list through all its stones)
    nstones = [HDR + 3P]  stones in the chain, indexed by chain id
    libc    = [HDR + 4P]  pseudo-liberties, indexed by chain id
    libs    = [HDR + 5P]  sum of the pseudo-liberty points
    libq    = [HDR + 6P]  sum of their squares
    empties = [HDR + 7P]  the empty points, first ``state[H_NEMPTY]`` entries, in any order
    eidx    = [HDR + 8P]  position of an empty point inside ``empties``
    forbid  = [HDR + 9P]  (Go) the root's superko list: the move codes that would repeat an earlier
                          position of the game (written by the Python Go object; at most one per
                          point, so ``size * size`` slots always suffice); see :func:`forbid_base`

Pseudo-liberties (as in libego and GNU Go's Monte Carlo board): a chain's pseudo-liberty count is
the number of (stone, empty neighbour) pairs, so an empty point touching the chain twice counts
twice.  It is zero exactly when the chain has no liberty, and, with the sums above, the chain is
in atari (exactly one distinct liberty) iff ``libc * libq == libs ** 2`` (Cauchy-Schwarz: equality
iff all pseudo-liberties are the same point).  Placing a stone and merging chains are then O(1)
per neighbour plus the relabelling of the smaller chain; nothing is allocated.

The Zobrist hash is the XOR of ``ZOBRIST[colour * ZSTRIDE + point]`` over the stones (position
only, not the side to move: positional superko compares board positions).
"""
from __future__ import annotations

import numba as nb
import numpy as np

from bandits.rng import randint

__all__ = [
    "EMPTY", "BLACK", "WHITE", "BORDER", "MIN_SIZE", "MAX_SIZE", "HDR",
    "H_SIZE", "H_TOMOVE", "H_KO", "H_PASSES", "H_MOVES", "H_HASH", "H_NEMPTY", "H_KOMI2", "H_CAP",
    "H_STRIDE", "H_NPTS", "H_FORBID_AT", "H_NFORBID", "H_LAST",
    "forbid_base", "check_size", "new_state", "point_of", "code_of", "place", "in_atari",
    "go_legal_point", "go_playable", "nogo_legal_point", "own_eye", "area_score", "random_point", "chain_liberties",
    "position_hash", "ZOBRIST", "ZSTRIDE", "atari_liberty", "liberties_after", "search_key",
    "NAKADE_MAX", "eye_space", "shape_point", "keeps_nakade",
]

EMPTY, BLACK, WHITE, BORDER = 0, 1, 2, 3
MIN_SIZE, MAX_SIZE = 5, 19

H_SIZE, H_TOMOVE, H_KO, H_PASSES, H_MOVES, H_HASH, H_NEMPTY, H_KOMI2, H_CAP, H_STRIDE, H_NPTS = range(11)
H_FORBID_AT, H_NFORBID = 11, 12
#: the padded point of the last stone placed (:func:`place`; -1: none yet, a pass, or a set-up
#: position), read by Go's pattern playout for its first ply (the tree's last move)
H_LAST = 13
HDR = 32  # header slots (14..31 unused; the superko list once lived at 16..31 and held only 16 moves)

ZSTRIDE = (MAX_SIZE + 2) ** 2


def _zobrist_table() -> np.ndarray:
    """3 * ZSTRIDE pseudo-random 64-bit keys (SplitMix64 of the index; fixed, no global RNG)."""
    z = np.arange(1, 3 * ZSTRIDE + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return z.view(np.int64)


ZOBRIST = _zobrist_table()


def check_size(size) -> int:
    """``size`` as an int in MIN_SIZE..MAX_SIZE, else ValueError naming it."""
    if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, np.integer)) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"size must be an integer in {MIN_SIZE}..{MAX_SIZE}, got {size!r}")
    return int(size)


def new_state(size: int, komi2: int = 0, cap: int = 0) -> np.ndarray:
    """The empty board of ``size`` (checked), Black to move; ``komi2`` = 2 * komi, ``cap`` = move cap."""
    size = check_size(size)
    w = size + 2
    npts = w * w
    state = np.zeros(HDR + 9 * npts + size * size, dtype=np.int64)
    state[H_SIZE], state[H_KO], state[H_KOMI2], state[H_CAP] = size, -1, komi2, cap
    state[H_STRIDE], state[H_NPTS] = w, npts
    state[H_FORBID_AT] = -1
    state[H_LAST] = -1
    board = state[HDR:HDR + npts]
    board[:] = BORDER
    empties = state[HDR + 7 * npts:HDR + 8 * npts]
    eidx = state[HDR + 8 * npts:HDR + 9 * npts]
    k = 0
    for r in range(size):
        for c in range(size):
            p = (r + 1) * w + c + 1
            board[p] = EMPTY
            empties[k] = p
            eidx[p] = k
            k += 1
    state[H_NEMPTY] = k
    return state


@nb.njit(cache=True, _nrt=False)
def forbid_base(state):
    """Index of the first slot of the root's superko list (``size * size`` slots)."""
    return HDR + 9 * state[H_NPTS]


@nb.njit(cache=True, _nrt=False)
def point_of(state, move):
    """Padded point of move code ``move`` (0 <= move < size * size)."""
    n = state[H_SIZE]
    return (move // n + 1) * state[H_STRIDE] + move % n + 1


@nb.njit(cache=True, _nrt=False)
def code_of(state, p):
    """Move code of padded point ``p``."""
    w = state[H_STRIDE]
    return (p // w - 1) * state[H_SIZE] + p % w - 1


@nb.njit(cache=True, _nrt=False)
def _nbr(p, w, k):
    if k == 0:
        return p - 1
    if k == 1:
        return p + 1
    if k == 2:
        return p - w
    return p + w


@nb.njit(cache=True, _nrt=False)
def in_atari(state, g):
    """True iff chain ``g`` has exactly one distinct liberty (libc * libq == libs**2, libc > 0)."""
    npts = state[H_NPTS]
    lc = state[HDR + 4 * npts + g]
    ls = state[HDR + 5 * npts + g]
    return lc > 0 and lc * state[HDR + 6 * npts + g] == ls * ls


@nb.njit(cache=True, _nrt=False)
def atari_liberty(state, g):
    """The one liberty of chain ``g`` in atari: all its pseudo-liberties are that point, so it is
    their sum divided by their count."""
    npts = state[H_NPTS]
    return state[HDR + 5 * npts + g] // state[HDR + 4 * npts + g]


@nb.njit(cache=True, _nrt=False)
def liberties_after(state, p, colour, captures):
    """Distinct liberties, counted up to 2, of the chain a stone of ``colour`` on the empty point
    ``p`` would belong to: p's empty neighbours and the liberties other than p of the own chains
    it joins.  With ``captures`` (Go) a move next to an enemy chain in atari captures it and counts
    as 2 (it is never a self-atari).  1 means the move is a self-atari; 0 a suicide.
    """
    npts = state[H_NPTS]
    w = state[H_STRIDE]
    ch = HDR + npts
    nx = ch + npts
    a = -1
    for k in range(4):
        q = _nbr(p, w, k)
        v = state[HDR + q]
        if v == EMPTY:
            if a < 0:
                a = q
            elif q != a:
                return 2
        elif captures and v == 3 - colour and in_atari(state, state[ch + q]):
            return 2
    for k in range(4):
        q = _nbr(p, w, k)
        if state[HDR + q] != colour:
            continue
        g = state[ch + q]
        repeat = False
        for j in range(k):
            r = _nbr(p, w, j)
            if state[HDR + r] == colour and state[ch + r] == g:
                repeat = True
        if repeat:
            continue
        s = g
        while True:
            for j in range(4):
                r = _nbr(s, w, j)
                if r != p and state[HDR + r] == EMPTY:
                    if a < 0:
                        a = r
                    elif r != a:
                        return 2
            s = state[nx + s]
            if s == g:
                break
    return 0 if a < 0 else 1


@nb.njit(cache=True, _nrt=False)
def _merge(state, a, b):
    """Merge chains a and b (distinct ids); the larger keeps its id, which is returned."""
    npts = state[H_NPTS]
    ch = HDR + npts
    nx = ch + npts
    ns = nx + npts
    if state[ns + a] < state[ns + b]:
        a, b = b, a
    s = b
    while True:
        state[ch + s] = a
        s = state[nx + s]
        if s == b:
            break
    t = state[nx + a]
    state[nx + a] = state[nx + b]
    state[nx + b] = t
    for k in range(4):  # nstones, libc, libs, libq
        off = ns + k * npts
        state[off + a] += state[off + b]
    return a


@nb.njit(cache=True, _nrt=False)
def _remove_chain(state, g, capturer):
    """Take chain g off the board: its points become empty liberties of the capturer's chains."""
    npts = state[H_NPTS]
    w = state[H_STRIDE]
    ch = HDR + npts
    nx = ch + npts
    lc = nx + 2 * npts
    em = lc + 3 * npts
    ei = em + npts
    zo = (3 - capturer) * ZSTRIDE
    h = state[H_HASH]
    ne = state[H_NEMPTY]
    s = g
    while True:
        state[HDR + s] = EMPTY
        state[em + ne] = s
        state[ei + s] = ne
        ne += 1
        h ^= ZOBRIST[zo + s]
        for k in range(4):
            q = _nbr(s, w, k)
            if state[HDR + q] == capturer:
                c = state[ch + q]
                state[lc + c] += 1
                state[lc + npts + c] += s
                state[lc + 2 * npts + c] += s * s
        s = state[nx + s]
        if s == g:
            break
    state[H_NEMPTY] = ne
    state[H_HASH] = h


@nb.njit(cache=True, _nrt=False)
def place(state, p, colour):
    """Put a stone of ``colour`` on the empty padded point ``p``: merge, capture, update ko and hash.

    The move must not be suicide (callers check legality first).  Returns the number of stones
    captured.  Records p as the last move (``H_LAST``).  The side to move, move and pass counters
    (and ``H_LAST`` = -1 after a pass) are the caller's business.
    """
    npts = state[H_NPTS]
    w = state[H_STRIDE]
    ch = HDR + npts
    nx = ch + npts
    ns = nx + npts
    lc = ns + npts
    ls = lc + npts
    lq = ls + npts
    em = lq + npts
    ei = em + npts
    # take p out of the empty list (the last entry moves into its slot)
    i = state[ei + p]
    last = state[H_NEMPTY] - 1
    q = state[em + last]
    state[em + i] = q
    state[ei + q] = i
    state[H_NEMPTY] = last
    state[HDR + p] = colour
    state[H_LAST] = p
    state[H_HASH] ^= ZOBRIST[colour * ZSTRIDE + p]
    state[ch + p] = p
    state[nx + p] = p
    state[ns + p] = 1
    c0 = 0
    s0 = 0
    q0 = 0
    for k in range(4):
        q = _nbr(p, w, k)
        v = state[HDR + q]
        if v == EMPTY:
            c0 += 1
            s0 += q
            q0 += q * q
        elif v != BORDER:
            g = state[ch + q]
            state[lc + g] -= 1
            state[ls + g] -= p
            state[lq + g] -= p * p
    state[lc + p] = c0
    state[ls + p] = s0
    state[lq + p] = q0
    for k in range(4):
        q = _nbr(p, w, k)
        if state[HDR + q] == colour:
            g = state[ch + q]
            mine = state[ch + p]
            if g != mine:
                _merge(state, mine, g)
    other = 3 - colour
    captured = 0
    ko = -1
    for k in range(4):
        q = _nbr(p, w, k)
        if state[HDR + q] == other:
            g = state[ch + q]
            if state[lc + g] == 0:
                captured += state[ns + g]
                ko = q
                _remove_chain(state, g, colour)
    mine = state[ch + p]
    if captured == 1 and state[ns + mine] == 1 and state[lc + mine] == 1:
        state[H_KO] = ko
    else:
        state[H_KO] = -1
    return captured


@nb.njit(cache=True, _nrt=False)
def go_legal_point(state, p, colour):
    """Go legality of a stone of ``colour`` on padded point ``p``: empty, not the ko point, not suicide.

    Not suicide iff an empty neighbour, or an own neighbouring chain with another liberty, or an
    enemy neighbouring chain in atari (its last liberty is p: the move captures it).
    """
    if state[HDR + p] != EMPTY or p == state[H_KO]:
        return False
    npts = state[H_NPTS]
    w = state[H_STRIDE]
    ch = HDR + npts
    for k in range(4):
        q = _nbr(p, w, k)
        v = state[HDR + q]
        if v == EMPTY:
            return True
        if v == colour:
            if not in_atari(state, state[ch + q]):
                return True
        elif v != BORDER:
            if in_atari(state, state[ch + q]):
                return True
    return False


@nb.njit(cache=True, _nrt=False)
def nogo_legal_point(state, p, colour):
    """NoGo legality: p empty, no enemy neighbour chain in atari (no capture), and not suicide."""
    if state[HDR + p] != EMPTY:
        return False
    npts = state[H_NPTS]
    w = state[H_STRIDE]
    ch = HDR + npts
    breathes = False
    for k in range(4):
        q = _nbr(p, w, k)
        v = state[HDR + q]
        if v == EMPTY:
            breathes = True
        elif v == colour:
            if not breathes and not in_atari(state, state[ch + q]):
                breathes = True
        elif v != BORDER:
            if in_atari(state, state[ch + q]):
                return False
    return breathes


@nb.njit(cache=True, _nrt=False)
def own_eye(state, p, colour):
    """True iff empty p is a single-point eye of ``colour`` (the usual light-playout test).

    All four neighbours are ``colour`` or off the board, and the diagonals hold fewer than two
    enemy stones in the middle of the board, none on the edge or in the corner (otherwise the eye
    may be false and filling it can be needed).
    """
    w = state[H_STRIDE]
    for k in range(4):
        v = state[HDR + _nbr(p, w, k)]
        if v != colour and v != BORDER:
            return False
    return _diagonals_allow_eye(state, p, w, colour)


@nb.njit(cache=True, inline="always")
def _diagonals_allow_eye(state, p, w, colour):
    """The diagonal half of the eye rule: fewer than two enemy diagonals in the middle of the
    board, none on the edge or in the corner."""
    other = 3 - colour
    bad = 0
    edge = 0
    for d in (p - w - 1, p - w + 1, p + w - 1, p + w + 1):
        v = state[HDR + d]
        if v == other:
            bad += 1
        elif v == BORDER:
            edge = 1
    return bad + edge < 2


@nb.njit(cache=True, _nrt=False)
def go_playable(state, p, colour):
    """go_legal_point(p) and not own_eye(p), in one pass over the neighbours (the playout test).

    An empty neighbour settles it at once (legal, and no eye); otherwise the move is legal iff an
    own chain keeps another liberty or an enemy chain is captured, and it is refused as an eye iff
    every neighbour is own or off the board and the diagonals pass the :func:`own_eye` rule.
    """
    if p == state[H_KO]:
        return False
    npts = state[H_NPTS]
    w = state[H_STRIDE]
    ch = HDR + npts
    legal = False
    surrounded = True
    for k in range(4):
        q = _nbr(p, w, k)
        v = state[HDR + q]
        if v == EMPTY:
            return True
        if v == colour:
            if not legal and not in_atari(state, state[ch + q]):
                legal = True
        elif v != BORDER:
            surrounded = False
            if not legal and in_atari(state, state[ch + q]):
                legal = True
    if not legal:
        return False
    if not surrounded:
        return True
    return not _diagonals_allow_eye(state, p, w, colour)


# ---- eye spaces: nakade shapes ---------------------------------------------------------------

#: the largest eye space with a vital point (rabbity six); scratch arrays for the functions below
#: hold this many points
NAKADE_MAX = 6
#: the board value :func:`eye_space` gives the points it has met while it walks (never seen outside it)
_MET = 4


@nb.njit(cache=True, _nrt=False)
def eye_space(state, p, pts, stop=0):
    """The empty region (4-connected empty points) holding the empty padded point ``p``: its points
    are written to ``pts[:n]`` (``pts``: int64, length :data:`NAKADE_MAX`); returns ``(n, colours)``
    with ``n = NAKADE_MAX + 1`` for a region of more points (the walk stops there) and ``colours``
    the OR of the stone colours next to it (1 Black, 2 White, 3 both, 0 none; the edge is no colour).
    With ``stop`` a colour, the walk also stops at the first stone of that colour next to the
    region (``colours`` then holds it; ``n`` is the points met so far): the caller wants regions
    walled by the other colour alone.  The points met are marked on the board while it walks
    (:data:`_MET`) and emptied again before it returns.
    """
    w = state[H_STRIDE]
    pts[0] = p
    state[HDR + p] = _MET
    n = 1
    colours = 0
    i = 0
    while i < n:
        q = pts[i]
        for k in range(4):
            r = _nbr(q, w, k)
            v = state[HDR + r]
            if v == EMPTY:
                if n == NAKADE_MAX:
                    n = NAKADE_MAX + 1
                    i = n
                    break
                pts[n] = r
                state[HDR + r] = _MET
                n += 1
            elif v != BORDER and v != _MET:
                colours |= v
                if v == stop:
                    i = n
                    break
        i += 1
    for j in range(min(n, NAKADE_MAX)):
        state[HDR + pts[j]] = EMPTY
    return n, colours


@nb.njit(cache=True, _nrt=False)
def shape_point(state, pts, n):
    """Classify the shape of the points ``pts[:n]`` (one connected region) by how many of each
    point's four neighbours are in it: with ``c_k`` the number of points that have k, the killable
    eye shapes (where one point, the vital point, leaves a single eye) are

        straight or bent three  n = 3: c1 = 2, c2 = 1        pyramid four  n = 4: c1 = 3, c3 = 1
        bulky five              n = 5: c1 = 1, c2 = 3, c3 = 1
        crossed five            n = 5: c1 = 4, c4 = 1        rabbity six   n = 6: c1 = 2, c2 = 3, c4 = 1

    (no other polyomino of its size has these counts).  Returns the vital point, the shape's unique
    point with the most neighbours in it, for those; ``-2`` for the shapes that are one eye whatever
    is played (n = 1, 2 and the square four, c2 = 4); ``-1`` for the rest (two eyes can be made).
    """
    if n <= 2:
        return -2
    if n > NAKADE_MAX:
        return -1
    w = state[H_STRIDE]
    c1 = c2 = c3 = c4 = 0
    best = -1
    most = -1
    for i in range(n):
        k = 0
        for j in range(n):
            d = pts[i] - pts[j]
            if d == 1 or d == -1 or d == w or d == -w:
                k += 1
        if k == 1:
            c1 += 1
        elif k == 2:
            c2 += 1
        elif k == 3:
            c3 += 1
        elif k == 4:
            c4 += 1
        if k > most:
            most = k
            best = pts[i]
    if n == 3 and c2 == 1:
        return best
    if n == 4 and c2 == 4:
        return -2
    if n == 4 and c1 == 3 and c3 == 1:
        return best
    if n == 5 and ((c1 == 1 and c2 == 3 and c3 == 1) or (c1 == 4 and c4 == 1)):
        return best
    if n == 6 and c1 == 2 and c2 == 3 and c4 == 1:
        return best
    return -1


@nb.njit(cache=True, _nrt=False)
def keeps_nakade(state, p, colour, pts):
    """Whether ``colour``'s self-atari at the empty padded point ``p`` (:func:`liberties_after` is 1,
    so it captures nothing) is a nakade move: the chain it makes (p and the own chains next to it)
    has at most :data:`NAKADE_MAX` stones and their points make a shape that, once the opponent
    captures it, is one eye or a killable eye space (:func:`shape_point` is not -1).  Such a chain
    touches only the opponent, the edge and its one liberty, so the region its capture empties is
    bounded by the opponent alone.  ``pts``: int64 scratch of length :data:`NAKADE_MAX`.
    [ours: the rule of Fuego's and Pachi's playouts that a self-atari is played when its capture
    leaves a dead eye shape, reduced to the shape test]"""
    npts = state[H_NPTS]
    w = state[H_STRIDE]
    ch = HDR + npts
    nx = ch + npts
    pts[0] = p
    n = 1
    for k in range(4):
        q = _nbr(p, w, k)
        if state[HDR + q] != colour:
            continue
        g = state[ch + q]
        s = g
        while True:
            seen = False
            for j in range(n):
                if pts[j] == s:
                    seen = True
            if seen:
                break  # (this chain was walked from another neighbour)
            if n == NAKADE_MAX:
                return False
            pts[n] = s
            n += 1
            s = state[nx + s]
            if s == g:
                break
    return shape_point(state, pts, n) != -1


@nb.njit(cache=True, _nrt=False)
def random_point(state, rng, colour, nogo, safe=False, pts=None):
    """A uniformly random point among the empty ones that are legal for ``colour`` (Go: not an own
    eye either), or -1 if there is none.  Rejection by swapping the refused point to the end of the
    still-candidate part of the empty list (libego); nothing allocated.  ``rng``: uint64[4] stream.
    ``safe``: refuse self-ataris as well (:func:`liberties_after` < 2; in Go a capture is never one),
    except, when the int64 scratch ``pts`` (length :data:`NAKADE_MAX`) is given, the nakade ones
    (:func:`keeps_nakade`).
    """
    npts = state[H_NPTS]
    em = HDR + 7 * npts
    ei = em + npts
    k = state[H_NEMPTY]
    while k > 0:
        i = randint(rng, k)
        p = state[em + i]
        if nogo:
            ok = nogo_legal_point(state, p, colour)
        else:
            ok = go_playable(state, p, colour)
        if ok and safe:
            libs = liberties_after(state, p, colour, not nogo)
            ok = libs >= 2
            if pts is not None:  # (a plain `is not None` test: numba drops the branch when pts is omitted)
                if libs == 1:
                    ok = keeps_nakade(state, p, colour, pts)
        if ok:
            return p
        k -= 1
        q = state[em + k]
        state[em + i] = q
        state[ei + q] = i
        state[em + k] = p
        state[ei + p] = k
    return -1


@nb.njit(cache=True)
def area_score(state):
    """Tromp-Taylor area of Black minus area of White (komi not included).

    Area = stones plus empty points whose empty region reaches stones of that colour only.  Fast
    path when no two empty points touch (every random playout ends so): a point counts for the
    colour of its neighbours when they are all one colour.  Otherwise a flood fill per region.
    """
    n = state[H_SIZE]
    w = state[H_STRIDE]
    npts = state[H_NPTS]
    score = 0
    simple = True
    for r in range(n):
        for c in range(n):
            p = (r + 1) * w + c + 1
            v = state[HDR + p]
            if v == BLACK:
                score += 1
            elif v == WHITE:
                score -= 1
            else:
                seen = 0
                for k in range(4):
                    u = state[HDR + _nbr(p, w, k)]
                    if u == EMPTY:
                        simple = False
                    elif u != BORDER:
                        seen |= u
                if seen == BLACK:
                    score += 1
                elif seen == WHITE:
                    score -= 1
    if simple:
        return score
    # general case: flood fill the empty regions
    score = 0
    mark = np.zeros(npts, dtype=np.bool_)
    stack = np.empty(npts, dtype=np.int64)
    for r in range(n):
        for c in range(n):
            p = (r + 1) * w + c + 1
            v = state[HDR + p]
            if v == BLACK:
                score += 1
            elif v == WHITE:
                score -= 1
            elif not mark[p]:
                mark[p] = True
                stack[0] = p
                top = 1
                size = 0
                seen = 0
                while top > 0:
                    top -= 1
                    s = stack[top]
                    size += 1
                    for k in range(4):
                        q = _nbr(s, w, k)
                        u = state[HDR + q]
                        if u == EMPTY:
                            if not mark[q]:
                                mark[q] = True
                                stack[top] = q
                                top += 1
                        elif u != BORDER:
                            seen |= u
                if seen == BLACK:
                    score += size
                elif seen == WHITE:
                    score -= size
    return score


@nb.njit(cache=True)
def chain_liberties(state, p):
    """Number of distinct liberties of the chain through stone p (walks the chain; allocates)."""
    npts = state[H_NPTS]
    w = state[H_STRIDE]
    nx = HDR + 2 * npts
    mark = np.zeros(npts, dtype=np.bool_)
    count = 0
    s = p
    while True:
        for k in range(4):
            q = _nbr(s, w, k)
            if state[HDR + q] == EMPTY and not mark[q]:
                mark[q] = True
                count += 1
        s = state[nx + s]
        if s == p:
            break
    return count


@nb.njit(cache=True, _nrt=False)
def search_key(state):
    """The key of a position for the search's transposition table: the Zobrist hash of the board
    mixed with the player to move, the ko point and the consecutive passes (what decides the legal
    moves and the end; the move count, which only matters near the move cap, is left out)."""
    k = state[H_HASH]
    k ^= (state[H_TOMOVE] + 1) * np.int64(-7046029254386353131)   # 0x9E3779B97F4A7C15
    k ^= (state[H_KO] + 2) * np.int64(-4658895280553007687)       # 0xBF58476D1CE4E5B9
    k ^= (state[H_PASSES] + 1) * np.int64(-7723592293110705685)   # 0x94D049BB133111EB
    return k


def position_hash(board_colours: np.ndarray) -> int:
    """Zobrist hash (as the int64 the state stores) of a padded board array, from scratch."""
    h = np.int64(0)
    for p in np.flatnonzero((board_colours == BLACK) | (board_colours == WHITE)):
        h ^= ZOBRIST[int(board_colours[p]) * ZSTRIDE + p]
    return int(h)
