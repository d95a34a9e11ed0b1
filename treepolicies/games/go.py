"""Go on a size x size board (5..19) as a compiled array game: area scoring, komi, superko.

Rules (see docs/go-nogo.md):

* Tromp-Taylor area scoring: a colour's area is its stones plus the empty points whose empty
  region touches that colour only; Black wins iff ``area(B) - area(W) - komi > 0`` (draw at 0,
  possible only with an integer komi).  Komi 7.5 by default.
* Suicide is illegal.  Simple ko (a single-stone capture may not be retaken at once) holds in the
  compiled kernels, thus in random playouts and inside the search tree.  Positional superko (no
  move may recreate an earlier board position) holds for moves actually played: the Python object
  keeps the set of position hashes of its game, refuses a repeating move in :meth:`Go.play` and
  leaves such moves out of :meth:`Go.legal_moves` (the search's root candidates).
* Two passes in a row end the game; so does the move cap ``3 * size * size`` (passes included),
  after which the position is scored as it stands (``Go.capped`` says it happened).
* The moves the search and the random playouts consider (``kernels.legal``, ``legal_moves``) are
  the legal moves that do not fill the mover's own single-point eye (:func:`board.own_eye`); pass
  only when there is none.  Playouts pick uniformly among them.  Any legal move (eye filling,
  pass) is accepted by :meth:`Go.play`.

Move codes: ``row * size + col`` (row 0 at the top), ``size * size`` = pass.
"""
from __future__ import annotations

import contextlib

import numba as nb
import numpy as np

from bandits.rng import randint
from treepolicies.games import board as bd
from treepolicies.games.go_patterns import pattern_match
from treepolicies.games.board import (
    BLACK, EMPTY, H_CAP, H_FORBID_AT, H_HASH, H_KO, H_MOVES, H_NFORBID, H_PASSES, H_SIZE,
    H_STRIDE, H_TOMOVE, HDR, WHITE,
)
from treepolicies.games import CompiledGame, GameKernels, Rollout

__all__ = ["Go", "GO_KERNELS", "BoardGame", "COLUMNS", "check_komi"]

#: GTP column letters (no I).
COLUMNS = "ABCDEFGHJKLMNOPQRST"


@nb.njit(cache=True, _nrt=False)
def go_to_move(state):
    return state[H_TOMOVE]


@nb.njit(cache=True, _nrt=False)
def go_terminal(state):
    return state[H_PASSES] >= 2 or state[H_MOVES] >= state[H_CAP]


@nb.njit(cache=True, inline="always")
def _root_forbids(state, move):
    """True iff ``move`` is on the superko list of the search's root (only at the move number
    ``H_FORBID_AT``, where the list was written; :meth:`Go._mark_superko`)."""
    if state[H_MOVES] == state[H_FORBID_AT]:
        fb = bd.forbid_base(state)
        for j in range(state[H_NFORBID]):
            if state[fb + j] == move:
                return True
    return False


@nb.njit(cache=True, _nrt=False)
def go_legal(state, out):
    """Write the search's moves to out: legal non-own-eye points in code order, else pass.

    At the move number recorded in ``H_FORBID_AT`` (the root of a search from a real game
    position) the moves of the superko list are left out too.
    """
    if go_terminal(state):
        return 0
    n = state[H_SIZE]
    w = state[H_STRIDE]
    colour = state[H_TOMOVE] + 1
    k = 0
    for r in range(n):
        for c in range(n):
            p = (r + 1) * w + c + 1
            if state[HDR + p] == EMPTY and bd.go_legal_point(state, p, colour) and not bd.own_eye(state, p, colour):
                code = r * n + c
                if not _root_forbids(state, code):
                    out[k] = code
                    k += 1
    if k == 0:
        out[0] = n * n
        k = 1
    return k


@nb.njit(cache=True, _nrt=False, inline="always")
def go_play(state, move):
    """Apply a legal move code (``size * size`` = pass) in place.  Inlined where it is called (the
    playout policies' candidate path plays each ply with it)."""
    n = state[H_SIZE]
    if move == n * n:
        state[H_PASSES] += 1
        state[H_KO] = -1
        state[bd.H_LAST] = -1
    else:
        bd.place(state, bd.point_of(state, move), state[H_TOMOVE] + 1)
        state[H_PASSES] = 0
    state[H_TOMOVE] = 1 - state[H_TOMOVE]
    state[H_MOVES] += 1


@nb.njit(cache=True, _nrt=False)
def go_is_legal(state, move):
    """Full rules except superko: pass always (while not terminal), a point if empty, not ko, not suicide."""
    n = state[H_SIZE]
    if go_terminal(state) or move < 0 or move > n * n:
        return False
    if move == n * n:
        return True
    return bd.go_legal_point(state, bd.point_of(state, move), state[H_TOMOVE] + 1)


@nb.njit(cache=True, _nrt=False)
def go_move_check(state, move):
    """True iff ``move`` is one of :func:`go_legal`'s moves here, without enumerating them: an empty
    point, legal and not an own eye (go_playable), not in the root's superko list; a pass never
    (go_legal offers it only when no point is: a caller that finds none enumerates).  The move check
    of playout policies' fast path (treepolicies.mcts.playouts)."""
    n = state[H_SIZE]
    if go_terminal(state) or move < 0 or move >= n * n:
        return False
    p = bd.point_of(state, move)
    if state[HDR + p] != EMPTY or not bd.go_playable(state, p, state[H_TOMOVE] + 1):
        return False
    return not _root_forbids(state, move)


@nb.njit(cache=True, _nrt=False, inline="always")
def go_move_draw(state, rng):
    """A uniformly random move among :func:`go_legal`'s, not played: a legal point that is not an
    own eye (``board.random_point``: the draw of the random rollout; it reorders the state's list of
    empty points, nothing else), or the pass when there is no such point (then go_legal's only
    move); -1 when the game is over.  The candidate draw of playout policies' fast path
    (treepolicies.mcts.playouts), which plays what it keeps without a move check.  At the root of a
    search with a superko list (``H_FORBID_AT``) a drawn point of the list gives -1 (declined): the
    caller then enumerates :func:`go_legal`, which leaves the list out; either way every move
    returned is one of go_legal's, and a rejection sampler built on the draw keeps its exact
    distribution.  Drawing the forced pass here, rather than declining, spares the caller a
    second scan of the board (go_legal's) at each of a playout's closing passes: MAST's playouts
    went from 0.69-0.71 to 0.73-0.75 of the random rollout's rate (docs/playouts.md).  Inlined where it
    is called, as :func:`go_play` is."""
    if go_terminal(state):
        return -1
    p = bd.random_point(state, rng, state[H_TOMOVE] + 1, False)
    if p < 0:
        return state[H_SIZE] * state[H_SIZE]
    code = bd.code_of(state, p)
    return -1 if _root_forbids(state, code) else code


@nb.njit(cache=True)
def go_result(state, player):
    """1 / 0.5 / 0 for ``player`` by area score with komi: sign of 2 * area(B - W) - 2 * komi."""
    s2 = 2 * bd.area_score(state) - state[bd.H_KOMI2]
    if s2 == 0:
        return 0.5
    black_wins = s2 > 0
    return 1.0 if black_wins == (player == 0) else 0.0


@nb.njit(cache=True, _nrt=False)
def go_heuristic_point(state, rng, colour, last):
    """The light playout policy's point for ``colour`` (-1: pass), ``last`` the padded point of the
    opponent's last move (-1 if none or a pass), in order:

    1. capture: the chain of the last move is in atari: take its liberty;
    2. escape: an own chain next to the last move is in atari: extend at its liberty if the chain
       then has at least two liberties;
    3. a uniformly random legal point that fills no own eye and is no self-atari (a capture never
       is one), else any legal non-eye point (a self-atari), else pass.
    """
    if last >= 0 and state[HDR + last] == 3 - colour:
        npts = state[bd.H_NPTS]
        ch = HDR + npts
        g = state[ch + last]
        if bd.in_atari(state, g):
            q = bd.atari_liberty(state, g)
            if bd.go_playable(state, q, colour):
                return q
        w = state[H_STRIDE]
        for k in range(4):
            r = bd._nbr(last, w, k)
            if state[HDR + r] == colour:
                g = state[ch + r]
                if bd.in_atari(state, g):
                    q = bd.atari_liberty(state, g)
                    if bd.go_playable(state, q, colour) and bd.liberties_after(state, q, colour, True) >= 2:
                        return q
    p = bd.random_point(state, rng, colour, False, True)
    if p < 0:
        p = bd.random_point(state, rng, colour, False)
    return p


@nb.njit(cache=True, _nrt=False)
def go_pattern_point(state, rng, colour, last, prev, pts=None, fill=0):
    """The pattern playout's point for ``colour`` (-1: pass): MoGo's order (Gelly, Wang, Munos &
    Teytaud 2006, algorithm 2; Wang & Gelly 2007).  ``last`` is the padded point of the opponent's
    last move, ``prev`` of the mover's own move before it (-1: none or a pass).  Uniformly among
    the candidates of the first rule that has one:

    1. escape: the last move put an own chain next to it in atari: extend at the chain's liberty
       if the chain then has at least two liberties, or capture the last move's chain if it is in
       atari itself (one candidate per chain in atari, and the capture [ours]);
    2. pattern: an empty point among the 8 neighbours of the last move where a MoGo pattern
       matches (:mod:`treepolicies.games.go_patterns`), legal, no own eye, no self-atari [ours];
    3. capture: the liberty of an enemy chain in atari: the last move's chain, or one next to the
       mover's own previous move (the ataris the last two plies made or left) [ours: not a
       board-wide scan, which would cost more than the rest of the playout];
    4. a uniformly random legal point that fills no own eye and is no self-atari, else any legal
       non-eye point (a self-atari), else pass (as :func:`go_heuristic_point`).  A self-atari is
       played only when nothing else is: the vital point of a three-point eye space is none (two
       empty neighbours), but the later stones of a bigger nakade and throw-ins are, so they are
       rare in these playouts [ours: a known limitation, as in the heuristic; docs/playouts.md].

    With the int64 scratch ``pts`` (length ``board.NAKADE_MAX``; ``rollout=nakade`` and
    ``rollout=fillboard``) two rules come in after the escape, as MoGo's later playouts have them
    (Chaslot, Fiter, Hoock, Rimmel & Teytaud 2010, "Adding expert knowledge and exploration in
    Monte-Carlo Tree Search", section 2), and the random rule changes:

    1a. nakade: the empty regions next to the last move that are bounded by the opponent's stones
        alone (the last move among them: it closed the region or emptied it by a capture) and have a
        killable shape (straight or bent three, pyramid four, bulky or crossed five, rabbity six;
        ``board.shape_point``): their vital point, which kills the eye space [ours: MoGo's rule
        names the three-point eye; the larger shapes are the textbook ones];
    1b. fill board (``fill`` > 0): up to ``fill`` uniformly drawn empty points; the first whose
        8 neighbours are all empty points of the board (:func:`fill_board_point`);
    4.  the random rule also plays the self-ataris that keep nakade possible
        (``board.keeps_nakade``: the captured chain would leave a dead eye shape).
    """
    npts = state[bd.H_NPTS]
    ch = HDR + npts
    w = state[H_STRIDE]
    other = 3 - colour
    if last >= 0 and state[HDR + last] == other:
        # 1. escape
        gl = state[ch + last]
        lcap = -1
        if bd.in_atari(state, gl):
            lcap = bd.atari_liberty(state, gl)
            if not bd.go_playable(state, lcap, colour):
                lcap = -1
        pick = -1
        m = 0
        threatened = False
        for k in range(4):
            r = bd._nbr(last, w, k)
            if state[HDR + r] != colour:
                continue
            g = state[ch + r]
            if not bd.in_atari(state, g):
                continue
            threatened = True
            dup = False
            for j in range(k):
                r2 = bd._nbr(last, w, j)
                if state[HDR + r2] == colour and state[ch + r2] == g:
                    dup = True
            if dup:
                continue
            q = bd.atari_liberty(state, g)
            if bd.go_playable(state, q, colour) and bd.liberties_after(state, q, colour, True) >= 2:
                m += 1
                if randint(rng, m) == 0:
                    pick = q
        if threatened and lcap >= 0:
            m += 1
            if randint(rng, m) == 0:
                pick = lcap
        if pick >= 0:
            return pick
        if pts is not None:  # (a plain `is not None` test: numba drops the branch when pts is omitted)
            # 1a. nakade: the vital points of the killable regions next to the last move
            for k in range(4):
                r = bd._nbr(last, w, k)
                if state[HDR + r] != EMPTY:
                    continue
                n, colours = bd.eye_space(state, r, pts, colour)
                if n < 3 or n > bd.NAKADE_MAX or colours != other:
                    continue
                seen = False  # (the region met from an earlier neighbour)
                for j in range(k):
                    r2 = bd._nbr(last, w, j)
                    for i in range(n):
                        if pts[i] == r2:
                            seen = True
                if seen:
                    continue
                v = bd.shape_point(state, pts, n)
                if v >= 0 and bd.go_playable(state, v, colour):
                    m += 1
                    if randint(rng, m) == 0:
                        pick = v
            if pick >= 0:
                return pick
            # 1b. fill board
            if fill > 0:
                q = fill_board_point(state, rng, fill)
                if q >= 0:
                    return q
        # 2. patterns around the last move
        for k in range(8):
            if k < 3:
                q = last - w - 1 + k
            elif k == 3:
                q = last - 1
            elif k == 4:
                q = last + 1
            else:
                q = last + w - 6 + k
            if state[HDR + q] == EMPTY and pattern_match(state, q, colour) != 0:
                if bd.go_playable(state, q, colour) and bd.liberties_after(state, q, colour, True) >= 2:
                    m += 1
                    if randint(rng, m) == 0:
                        pick = q
        if pick >= 0:
            return pick
        # 3. capture: the last move's chain
        if lcap >= 0:
            m = 1
            pick = lcap
    else:
        pick = -1
        m = 0
    # 3. capture: enemy chains next to the mover's previous move
    if prev >= 0:
        for k in range(4):
            r = bd._nbr(prev, w, k)
            if state[HDR + r] == other:
                g = state[ch + r]
                if bd.in_atari(state, g):
                    q = bd.atari_liberty(state, g)
                    if q != pick and bd.go_playable(state, q, colour):
                        m += 1
                        if randint(rng, m) == 0:
                            pick = q
    if pick >= 0:
        return pick
    if pts is not None:
        p = bd.random_point(state, rng, colour, False, True, pts)
    else:
        p = bd.random_point(state, rng, colour, False, True)
    if p < 0:
        p = bd.random_point(state, rng, colour, False)
    return p


#: fill board's tries a ply in ``rollout=fillboard`` [ours: Chaslot et al. 2010 give no number for 9x9]
FILL_BOARD_TRIES = 2


@nb.njit(cache=True, _nrt=False)
def fill_board_point(state, rng, tries):
    """Fill board (Chaslot et al. 2010): up to ``tries`` uniformly drawn empty points (with
    replacement); the first whose 8 neighbours are all empty points of the board, or -1.  Such a
    point is always legal (it has empty neighbours, so it is no ko capture) and never an eye."""
    npts = state[bd.H_NPTS]
    em = HDR + 7 * npts
    w = state[H_STRIDE]
    k = state[bd.H_NEMPTY]
    if k == 0:
        return -1
    for _ in range(tries):
        p = state[em + randint(rng, k)]
        b = HDR + p
        if (state[b - w - 1] == EMPTY and state[b - w] == EMPTY and state[b - w + 1] == EMPTY
                and state[b - 1] == EMPTY and state[b + 1] == EMPTY
                and state[b + w - 1] == EMPTY and state[b + w] == EMPTY and state[b + w + 1] == EMPTY):
            return p
    return -1


@nb.njit(cache=True, inline="always")
def _play_ply(state, p, colour, pass_code, plies, k):
    """One ply of a rollout: ``colour`` plays the padded point ``p`` (or passes, p < 0), recorded as
    ``2 * code + player`` in ``plies[k]`` when there is room; the side to move changes."""
    if p < 0:
        state[H_PASSES] += 1
        state[H_KO] = -1
        state[bd.H_LAST] = -1
        code = pass_code
    else:
        bd.place(state, p, colour)
        state[H_PASSES] = 0
        code = bd.code_of(state, p)
    if k < plies.shape[0]:
        plies[k] = 2 * code + state[H_TOMOVE]
    state[H_TOMOVE] = 1 - state[H_TOMOVE]
    state[H_MOVES] += 1


@nb.njit(cache=True, _nrt=False)
def _pattern_rollout(state, rng, plies, cap, pts, fill):
    """Moves of :func:`go_pattern_point` (with ``pts`` and ``fill``) until two passes, the move cap
    or ``cap`` plies; the plies ``2 * code + player`` written to ``plies`` as far as it has room;
    returns the plies played.  The first ply replies to the state's last move (``board.H_LAST``:
    the tree's last move, the game's at the root), with no ``prev`` (the move before it is not
    recorded) [ours]."""
    k = 0
    last = state[bd.H_LAST]  # the tree's last move (-1: a pass, none, a set-up position)
    prev = -1
    pass_code = state[H_SIZE] * state[H_SIZE]
    while state[H_PASSES] < 2 and state[H_MOVES] < state[H_CAP] and k != cap:
        colour = state[H_TOMOVE] + 1
        if pts is None:
            p = go_pattern_point(state, rng, colour, last, prev)
        else:
            p = go_pattern_point(state, rng, colour, last, prev, pts, fill)
        _play_ply(state, p, colour, pass_code, plies, k)
        prev = last
        last = p
        k += 1
    return k


@nb.njit(cache=True, _nrt=False)
def go_pattern_rollout(state, rng, plies, cap):
    """The pattern playout (``rollout=patterns``: MoGo 2006, :func:`go_pattern_point` each ply) as
    a treepolicies.games.Rollout (:func:`_pattern_rollout`)."""
    return _pattern_rollout(state, rng, plies, cap, None, 0)


@nb.njit(cache=True)
def go_nakade_rollout(state, rng, plies, cap):
    """The pattern playout with the nakade rules (``rollout=nakade``: :func:`go_pattern_point`'s
    rules 1a and 4 with ``pts``) as a treepolicies.games.Rollout."""
    return _pattern_rollout(state, rng, plies, cap, np.empty(bd.NAKADE_MAX, np.int64), 0)


@nb.njit(cache=True)
def go_fillboard_rollout(state, rng, plies, cap):
    """The nakade playout with fill board (``rollout=fillboard``: :data:`FILL_BOARD_TRIES` tries a
    ply) as a treepolicies.games.Rollout."""
    return _pattern_rollout(state, rng, plies, cap, np.empty(bd.NAKADE_MAX, np.int64), FILL_BOARD_TRIES)


@nb.njit(cache=True, inline="always")
def go_rollout(state, rng, plies, cap, heuristic):
    """Moves until two passes, the move cap or ``cap`` plies: uniformly random non-own-eye legal
    moves (pass when none), or with ``heuristic`` those of :func:`go_heuristic_point`.  Writes the
    plies ``2 * code + player`` to ``plies`` as far as it has room; returns the plies played."""
    k = 0
    last = -1
    pass_code = state[H_SIZE] * state[H_SIZE]
    while state[H_PASSES] < 2 and state[H_MOVES] < state[H_CAP] and k != cap:
        colour = state[H_TOMOVE] + 1
        if heuristic:
            p = go_heuristic_point(state, rng, colour, last)
        else:
            p = bd.random_point(state, rng, colour, False)
        _play_ply(state, p, colour, pass_code, plies, k)
        last = p
        k += 1
    return k


@nb.njit(cache=True, inline="always")
def go_random_rollout(state, rng, plies, cap):
    """The uniform playout as a treepolicies.games.Rollout (same draws as :func:`go_playout`).  Inlined where it
    is called (so is the loop it calls): a playout policy's fast path calls it for one ply at a time,
    and as a call it cost about 100 ns a ply (docs/playouts.md#cost-9x9-go-one-core)."""
    return go_rollout(state, rng, plies, cap, False)


@nb.njit(cache=True, _nrt=False)
def go_heuristic_rollout(state, rng, plies, cap):
    """The light heuristic playout (:func:`go_heuristic_point`) as a treepolicies.games.Rollout."""
    return go_rollout(state, rng, plies, cap, True)


@nb.njit(cache=True, _nrt=False)
def go_playout(state, rng):
    """Uniformly random non-own-eye legal moves (pass when none) until two passes or the cap."""
    go_rollout(state, rng, state[:0], -1, False)  # (a 0-length view: records nothing, allocates nothing)


@nb.njit(cache=True)
def go_repeating_moves(state, moves, n, seen, out):
    """Write to out the moves of moves[:n] (legal under simple ko) whose resulting board hash is in
    the sorted array ``seen``; returns how many.  Positional superko test, one scratch copy."""
    s = np.empty_like(state)
    pass_code = state[H_SIZE] * state[H_SIZE]
    k = 0
    for i in range(n):
        m = moves[i]
        if m == pass_code:
            continue
        for j in range(state.shape[0]):  # (not s[:] = state: its shape check's error path compiles for seconds)
            s[j] = state[j]
        go_play(s, m)
        h = s[H_HASH]
        j = np.searchsorted(seen, h)
        if j < seen.size and seen[j] == h:
            out[k] = m
            k += 1
    return k


@nb.njit(cache=True, inline="always")
def _ataris_next_to(state, p, colour, w, ch):
    """(capture, atari_own): whether a neighbour of point ``p`` is an opponent chain in atari (a
    move at p captures it) and whether one is an own chain in atari (the priors' terms)."""
    capture = False
    atari_own = False
    for k in range(4):
        q = bd._nbr(p, w, k)
        v = state[HDR + q]
        if v == 3 - colour and bd.in_atari(state, state[ch + q]):
            capture = True
        elif v == colour and bd.in_atari(state, state[ch + q]):
            atari_own = True
    return capture, atari_own


@nb.njit(cache=True, _nrt=False)
def go_heuristic_prior(state, moves, n, out):
    """Priors of moves[:n] (``prior=heuristic``), from the light playout's rules: weight 1, times 8
    for a capture, 4 for a move that takes an own chain in atari to two liberties or more, 0.1 for
    a self-atari, 0.5 on the first line; a pass 0.1; normalised."""
    size = state[H_SIZE]
    w = state[H_STRIDE]
    colour = state[H_TOMOVE] + 1
    npts = state[bd.H_NPTS]
    ch = HDR + npts
    total = 0.0
    for j in range(n):
        m = moves[j]
        if m == size * size:
            wt = 0.1
        else:
            p = bd.point_of(state, m)
            wt = 1.0
            capture, atari_own = _ataris_next_to(state, p, colour, w, ch)
            libs = bd.liberties_after(state, p, colour, True)
            if capture:
                wt *= 8.0
            elif atari_own and libs >= 2:
                wt *= 4.0
            if libs < 2:
                wt *= 0.1
            r, c = m // size, m % size
            if r == 0 or c == 0 or r == size - 1 or c == size - 1:
                wt *= 0.5
        out[j] = wt
        total += wt
    for j in range(n):
        out[j] /= total


#: the weights of ``prior=knowledge`` (:func:`go_knowledge_prior`) [ours: the values]
KNOWLEDGE_WEIGHTS = {"even": 1.0, "capture": 4.0, "escape": 2.0, "pattern": 2.0, "near1": 1.0, "near2": 0.5,
                     "self_atari": 0.1, "pass": 0.1}
_KW_EVEN, _KW_CAPTURE, _KW_ESCAPE, _KW_PATTERN, _KW_NEAR1, _KW_NEAR2, _KW_SELF_ATARI, _KW_PASS = (
    KNOWLEDGE_WEIGHTS["even"], KNOWLEDGE_WEIGHTS["capture"], KNOWLEDGE_WEIGHTS["escape"], KNOWLEDGE_WEIGHTS["pattern"],
    KNOWLEDGE_WEIGHTS["near1"], KNOWLEDGE_WEIGHTS["near2"], KNOWLEDGE_WEIGHTS["self_atari"], KNOWLEDGE_WEIGHTS["pass"])


@nb.njit(cache=True, _nrt=False)
def go_knowledge_prior(state, moves, n, out):
    """Priors of moves[:n] (``prior=knowledge``) from the terms of Gelly & Silver's (2007) prior
    knowledge, as probabilities (this search's priors are PUCT's P and widening's order, not their
    virtual (Q, n) visits) [ours: the form and the weights, :data:`KNOWLEDGE_WEIGHTS`].  A point
    move's weight is

        (even + capture * C + escape * E + pattern * P + near1 * D1 + near2 * D2) * (self_atari if S)

    with C = 1 if the move captures (an enemy chain next to it is in atari), E = 1 if it takes an
    own chain in atari to two liberties or more, P = 1 if one of MoGo's 3x3 patterns matches there
    (:mod:`treepolicies.games.go_patterns`), D1 = 1 if it is one of the 8 neighbours of the last
    move (``board.H_LAST``, the opponent's stone) and D2 = 1 if it is at Chebyshev distance 2 from
    it, S if the move is a self-atari (one liberty after it, no capture); a pass weighs ``pass``.
    Normalised to sum 1.  Defaults: even 1, capture 4, escape 2, pattern 2, near1 1, near2 0.5,
    self_atari 0.1, pass 0.1."""
    size = state[H_SIZE]
    w = state[H_STRIDE]
    colour = state[H_TOMOVE] + 1
    npts = state[bd.H_NPTS]
    ch = HDR + npts
    last = state[bd.H_LAST]
    if last >= 0 and state[HDR + last] != 3 - colour:
        last = -1
    lr, lc = last // w, last % w
    total = 0.0
    for j in range(n):
        m = moves[j]
        if m == size * size:
            wt = _KW_PASS
        else:
            p = bd.point_of(state, m)
            capture, atari_own = _ataris_next_to(state, p, colour, w, ch)
            libs = bd.liberties_after(state, p, colour, True)
            wt = _KW_EVEN
            if capture:
                wt += _KW_CAPTURE
            if atari_own and libs >= 2:
                wt += _KW_ESCAPE
            if pattern_match(state, p, colour) != 0:
                wt += _KW_PATTERN
            if last >= 0:
                d = max(abs(p // w - lr), abs(p % w - lc))
                if d == 1:
                    wt += _KW_NEAR1
                elif d == 2:
                    wt += _KW_NEAR2
            if libs < 2:
                wt *= _KW_SELF_ATARI
        out[j] = wt
        total += wt
    for j in range(n):
        out[j] /= total


GO_KERNELS = GameKernels(go_legal, go_play, go_to_move, go_terminal, go_result, go_playout)
GO_PRIORS = {"heuristic": go_heuristic_prior, "knowledge": go_knowledge_prior}
#: go_result scores any position by area, so a capped rollout is scored as it stands
GO_ROLLOUTS = {"random": Rollout(go_random_rollout, go_result), "heuristic": Rollout(go_heuristic_rollout, go_result),
               "patterns": Rollout(go_pattern_rollout, go_result), "nakade": Rollout(go_nakade_rollout, go_result),
               "fillboard": Rollout(go_fillboard_rollout, go_result)}


class UndoStep:
    """One step back in a game's history (:meth:`BoardGame.undo_step`): ``at`` (int32, shape (k,))
    the state slots that changed, ``old`` (int64, shape (k,)) their earlier values, ``moves`` the
    length of the move list then, ``hashes`` (Go) the position hashes added since (or None)."""

    __slots__ = ("at", "old", "moves", "hashes")

    def __init__(self, at, old, moves, hashes):
        self.at, self.old, self.moves, self.hashes = at, old, moves, hashes


class BoardGame(CompiledGame):
    """Python side shared by Go and NoGo: the seeds' interface over the compiled kernels.

    Subclasses set ``kernels``, ``is_legal_kernel``, ``name`` and ``allows_pass``.
    """

    name = "board"
    allows_pass = False
    kernels: GameKernels
    is_legal_kernel = None

    def _init_common(self, size: int, komi2: int, cap: int) -> None:
        self.size = bd.check_size(size)
        self.state = bd.new_state(self.size, komi2, cap)
        self.max_moves = self.size * self.size + (1 if self.allows_pass else 0)
        self.move_codes = self.max_moves
        self.moves: list[int] = []
        self.movers: list[int] = []  # who made each move (GTP allows moves out of turn)
        self.setup: list[tuple[int, int]] = []  # (colour 1 Black / 2 White, code) stones of the start
        self.first_to_move = 0
        self._buf = np.empty(self.max_moves, dtype=np.int64)

    # -- copies ---------------------------------------------------------------------------------
    def copy(self):
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.state = self.state.copy()
        other.moves = list(self.moves)
        other.movers = list(self.movers)
        other._buf = np.empty(self.max_moves, dtype=np.int64)
        return other

    # -- history --------------------------------------------------------------------------------
    def undo_step(self, before) -> "UndoStep":
        """What takes this game back to ``before``, an earlier position of the same game (a game
        whose move list is a prefix of this one's, e.g. the game a copy was made of before the copy
        played a move): the state entries that differ, with their values in ``before``, and the
        length of the history then.  Its size is that of the difference (a pass changes a few
        header slots; a move the stones it touches), not that of the game, so a stack of them (GTP
        ``undo``) grows by O(1) per move on a board where whole copies would grow by O(moves)."""
        if len(before.moves) > len(self.moves) or before.state.shape != self.state.shape:
            raise ValueError("undo_step: `before` is not an earlier position of this game")
        at = np.flatnonzero(self.state != before.state).astype(np.int32)
        return UndoStep(at, before.state[at], len(before.moves), self._added_since(before))

    def _added_since(self, before):
        """Hook: what this game's superko record holds that ``before``'s does not (None here)."""
        return None

    def revert(self, step: "UndoStep") -> None:
        """Go back, in place, to the position :meth:`undo_step` recorded ``step`` from (the state
        array, the moves and movers; Go: the superko record)."""
        self.state[step.at] = step.old
        del self.moves[step.moves:]
        del self.movers[step.moves:]

    def replaying(self):
        """A context for a block of moves replayed from a record (:func:`sgf.game_from_record`);
        Go defers the work it does for a search's root to the block's end (:meth:`Go.replaying`)."""
        return contextlib.nullcontext(self)

    # -- the seeds' interface -------------------------------------------------------------------
    @property
    def to_move(self) -> int:
        return int(self.state[H_TOMOVE])

    def terminal(self) -> bool:
        return bool(self.kernels.terminal(self.state))

    def reward(self, player: int) -> float:
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        if not self.terminal():
            raise ValueError("reward is defined only at the end of the game")
        return float(self.kernels.result(self.state, player))

    def winner(self):
        """0 (Black), 1 (White) or None (draw or unfinished)."""
        if not self.terminal():
            return None
        r = self.reward(0)
        return None if r == 0.5 else (0 if r == 1.0 else 1)

    def legal_moves(self) -> list[int]:
        n = self.kernels.legal(self.state, self._buf)
        return [int(m) for m in self._buf[:n]]

    def is_legal(self, move) -> bool:
        """Legal under the full rules (Go: including eye filling, pass and positional superko)."""
        if isinstance(move, (bool, np.bool_)) or not isinstance(move, (int, np.integer)):
            return False
        return bool(self.is_legal_kernel(self.state, int(move)))

    def play(self, move) -> None:
        """Play ``move`` (a move code); ValueError naming it if it is not legal here."""
        if not self.is_legal(move):
            raise ValueError(f"move {move!r} ({self._describe(move)}) is not legal here")
        self.movers.append(self.to_move)
        self.kernels.play(self.state, int(move))
        self.moves.append(int(move))

    def _describe(self, move) -> str:
        try:
            return self.move_to_str(move)
        except ValueError:
            return "not a move code"

    # -- coordinates ----------------------------------------------------------------------------
    @property
    def PASS(self) -> int:
        return self.size * self.size

    def move_to_str(self, move) -> str:
        """GTP vertex of a move code: column letter (A..T without I), row number from the bottom."""
        n = self.size
        if isinstance(move, (bool, np.bool_)) or not isinstance(move, (int, np.integer)) or not 0 <= move <= n * n:
            raise ValueError(f"move must be a move code in 0..{n * n}, got {move!r}")
        if move == n * n:
            return "pass"
        r, c = divmod(int(move), n)
        return f"{COLUMNS[c]}{n - r}"

    def str_to_move(self, text: str) -> int:
        """Move code of a GTP vertex such as ``D4`` or ``pass`` (case-insensitive)."""
        t = str(text).strip().upper()
        n = self.size
        if t == "PASS":
            if not self.allows_pass:
                raise ValueError(f"{self.name} has no pass move")
            return n * n
        if len(t) < 2 or t[0] not in COLUMNS[:n] or not t[1:].isdigit():
            raise ValueError(f"vertex must be a column A..{COLUMNS[n - 1]} (no I) and a row 1..{n}, got {text!r}")
        row = int(t[1:])
        if not 1 <= row <= n:
            raise ValueError(f"vertex row must be in 1..{n}, got {text!r}")
        return (n - row) * n + COLUMNS.index(t[0])

    # -- inspection -----------------------------------------------------------------------------
    def board(self) -> np.ndarray:
        """(size, size) int array: 0 empty, 1 Black, 2 White; row 0 at the top."""
        n, w = self.size, self.size + 2
        padded = self.state[HDR:HDR + w * w].reshape(w, w)
        return padded[1:n + 1, 1:n + 1].copy()

    def diagram(self) -> str:
        """ASCII diagram: X Black, O White, . empty; rows top to bottom, as tests write them."""
        chars = ".XO"
        return "\n".join(" ".join(chars[v] for v in row) for row in self.board())

    def __str__(self) -> str:
        return self.diagram()

    @property
    def position_hash(self) -> int:
        return int(self.state[H_HASH])

    def set_to_move(self, player: int) -> None:
        """Give the turn to ``player`` (0 Black, 1 White) out of order (GTP allows it); clears ko."""
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        if player != self.to_move:
            self.state[H_TOMOVE] = player
            self.state[H_KO] = -1

    def _setup(self, stones) -> None:
        """Place (colour, code) stones on an empty board; every group must keep a liberty."""
        for colour, code in stones:
            p = int(bd.point_of(self.state, code))
            if self.state[HDR + p] != EMPTY:
                raise ValueError(f"setup stone on an occupied point {self.move_to_str(code)}")
            bd.place(self.state, p, colour)
        self.state[H_KO] = -1
        self.state[bd.H_LAST] = -1
        wanted = {code: colour for colour, code in stones}
        flat = self.board().ravel()
        for code, colour in wanted.items():
            if flat[code] != colour:
                raise ValueError("the position has a group without liberties")
        npts = int(self.state[bd.H_NPTS])
        for code in wanted:
            g = self.state[HDR + npts + int(bd.point_of(self.state, code))]
            if self.state[HDR + 4 * npts + g] == 0:
                raise ValueError("the position has a group without liberties")

    @classmethod
    def from_diagram(cls, text: str, to_move: int = 0, **options):
        """A position from an ASCII diagram (``X`` Black, ``O`` White, ``.`` or ``+`` empty; spaces
        ignored; one row per line, top first; the row count sets the size)."""
        rows = [line.replace(" ", "") for line in text.strip().splitlines() if line.strip()]
        n = len(rows)
        if any(len(r) != n for r in rows):
            raise ValueError(f"diagram must be square, got rows of lengths {[len(r) for r in rows]}")
        game = cls(size=n, **options)
        stones = []
        for r, line in enumerate(rows):
            for c, ch in enumerate(line):
                if ch in "Xx":
                    stones.append((BLACK, r * n + c))
                elif ch in "Oo":
                    stones.append((WHITE, r * n + c))
                elif ch not in ".+":
                    raise ValueError(f"diagram character must be X, O, . or +, got {ch!r}")
        game._setup(stones)
        game.set_to_move(to_move)
        game._reset_history()
        return game

    def setup_position(self, stones, to_move: int = 0) -> None:
        """Start the game record from an empty board with ``stones`` ((colour 1/2, code) pairs)
        and ``to_move`` to play (SGF AB/AW/PL); only before any move is played."""
        if self.moves or self.setup or (self.board() != 0).any():
            raise ValueError("setup_position needs an empty board with no move played")
        stones = [(int(c), int(m)) for c, m in stones]
        for colour, move in stones:
            if colour not in (BLACK, WHITE) or not 0 <= move < self.size * self.size:
                raise ValueError(f"setup stone must be (1 or 2, code in 0..{self.size ** 2 - 1}), got {(colour, move)}")
        self._setup(stones)
        self.set_to_move(to_move)
        self._reset_history()

    def _reset_history(self) -> None:
        """Hook: the current position becomes the start of the game record."""
        self.moves, self.movers = [], []
        flat = self.board().ravel()
        self.setup = [(int(flat[m]), m) for m in np.flatnonzero(flat).tolist()]
        self.first_to_move = self.to_move


def check_komi(komi, size: int, shown: str | None = None, name: str = "komi") -> float:
    """``komi`` as a float if it is a finite multiple of 0.5 with ``|komi| <= size * size`` (the
    range of the area score on that board), else ValueError naming it as ``name`` (its value as
    ``shown`` if given, e.g. the text a user typed) and the range.  Checked without converting a
    huge value first."""
    n = size * size
    ok = (not isinstance(komi, (bool, np.bool_)) and isinstance(komi, (int, float, np.integer, np.floating))
          and -n <= komi <= n and float(komi) * 2 == round(float(komi) * 2))  # nan fails -n <= komi
    if not ok:
        got = repr(komi) if shown is None else shown
        raise ValueError(f"{name} must be a multiple of 0.5 in -{n}..{n} on a {size}x{size} board, got {got}")
    return float(komi)


class Go(BoardGame):
    """Go with area scoring, komi and positional superko; a compiled array game (kernels ``GO_KERNELS``).

    size: 5..19; komi: a multiple of 0.5 in -size*size..size*size (default 7.5); move_cap: default 3 * size * size.
    """

    name = "go"
    allows_pass = True
    kernels = GO_KERNELS
    rollouts = GO_ROLLOUTS
    priors = GO_PRIORS
    #: position key kernel for transpositions (treepolicies.mcts.dag)
    key_kernel = staticmethod(bd.search_key)
    is_legal_kernel = staticmethod(go_is_legal)
    move_check = staticmethod(go_move_check)  # (playout policies' fast path: treepolicies.mcts.playouts)
    move_draw = staticmethod(go_move_draw)  # (their candidate path)

    def __init__(self, size: int = 9, komi: float = 7.5, move_cap: int | None = None):
        size = bd.check_size(size)
        check_komi(komi, size)
        if move_cap is None:
            move_cap = 3 * size * size
        if isinstance(move_cap, bool) or not isinstance(move_cap, (int, np.integer)) or move_cap < 1:
            raise ValueError(f"move_cap must be a positive integer, got {move_cap!r}")
        self.komi = float(komi)
        self._init_common(size, int(round(2 * komi)), int(move_cap))
        self._seen = np.array([self.position_hash], dtype=np.int64)
        self._mark_superko()

    def copy(self):
        other = super().copy()
        other._seen = self._seen.copy()
        return other

    def _added_since(self, before):
        if self._seen.size == before._seen.size:  # play adds at most one hash, never removes one
            return None
        return np.setdiff1d(self._seen, before._seen, assume_unique=True)

    def revert(self, step) -> None:
        super().revert(step)
        if step.hashes is not None:
            self._seen = self._seen[~np.isin(self._seen, step.hashes)]

    def _reset_history(self) -> None:
        super()._reset_history()
        self._seen = np.array([self.position_hash], dtype=np.int64)
        self._mark_superko()

    #: True inside :meth:`replaying`: the superko list is written once, when it ends
    _deferred = False

    @contextlib.contextmanager
    def replaying(self):
        """A block of moves (replaying a record) in which the root superko list
        (:meth:`_mark_superko`, a scan of every candidate move) is written once, at its end, not
        after every move: the list matters only where a search starts, and the legality of each
        move (:meth:`is_legal`, superko included) does not read it.  Do not search or call
        :meth:`legal_moves` inside the block."""
        self._deferred = True
        try:
            yield self
        finally:
            self._deferred = False
            self._mark_superko()

    def _mark_superko(self) -> None:
        """Write the search candidates that would repeat a position into the state's superko list,
        so that the compiled search leaves them out at its root (docs/go-nogo.md)."""
        if self._deferred:
            return
        s = self.state
        s[H_FORBID_AT], s[H_NFORBID] = -1, 0
        n = self.kernels.legal(s, self._buf)
        out = np.empty(max(1, n), dtype=np.int64)
        k = int(go_repeating_moves(s, self._buf, n, self._seen, out))  # k <= n <= size * size slots
        fb = int(bd.forbid_base(s))
        s[fb:fb + k] = out[:k]
        s[H_NFORBID] = k
        s[H_FORBID_AT] = s[H_MOVES]

    def set_to_move(self, player: int) -> None:
        super().set_to_move(player)
        self._mark_superko()

    def reopen(self) -> None:
        """Let the game go on past its end, for a GTP session, where two passes and the move cap
        end nothing (they end self-play games and playouts): after two or more passes in a row
        the count becomes 1 (the last move was a pass, so one more pass ends the game again), and
        a reached move cap moves to ``moves + 3 * size * size``.  No-op on a game not over."""
        s = self.state
        if s[H_PASSES] >= 2:
            s[H_PASSES] = 1
        if s[H_MOVES] >= s[H_CAP]:
            s[H_CAP] = s[H_MOVES] + 3 * self.size * self.size
        self._mark_superko()

    def set_komi(self, komi: float) -> None:
        """Change the komi (a multiple of 0.5, |komi| <= size * size), e.g. for GTP ``komi``."""
        check_komi(komi, self.size)
        self.komi = float(komi)
        self.state[bd.H_KOMI2] = int(round(2 * komi))

    @property
    def move_cap(self) -> int:
        return int(self.state[H_CAP])

    @property
    def max_plies(self) -> int:
        """Plies of a playout from here at most (the move cap), for the search's buffers."""
        return max(1, int(self.state[H_CAP] - self.state[H_MOVES]))

    @property
    def capped(self) -> bool:
        """True iff the game ended by the move cap rather than by two passes."""
        return bool(self.state[H_MOVES] >= self.state[H_CAP] and self.state[H_PASSES] < 2)

    def _repeats(self, move: int) -> bool:
        """True iff playing ``move`` (legal under simple ko) recreates a position of this game."""
        one = np.array([move], dtype=np.int64)
        return bool(go_repeating_moves(self.state, one, 1, self._seen, one))

    def is_legal(self, move) -> bool:
        return super().is_legal(move) and not self._repeats(int(move))

    def legal_moves(self) -> list[int]:
        """The search's moves (non-own-eye legal points, else pass) without superko violations."""
        return super().legal_moves()

    def all_legal_moves(self) -> list[int]:
        """Every move legal under the full rules, pass included (while the game is not over)."""
        if self.terminal():
            return []
        return [m for m in range(self.PASS + 1) if self.is_legal(m)]

    def play(self, move) -> None:
        super().play(move)
        h = self.position_hash
        i = int(np.searchsorted(self._seen, h))
        if i == self._seen.size or self._seen[i] != h:
            self._seen = np.insert(self._seen, i, h)
        self._mark_superko()

    def score(self) -> float:
        """Area of Black minus area of White minus komi (Tromp-Taylor, all stones counted alive)."""
        return float(bd.area_score(self.state)) - self.komi

    def result_string(self) -> str:
        """SGF/GTP result of the current position's area score: ``B+3.5``, ``W+0.5`` or ``0``."""
        s = self.score()
        if s == 0:
            return "0"
        return f"{'B' if s > 0 else 'W'}+{abs(s):g}"
