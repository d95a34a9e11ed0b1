"""NoGo on a size x size board (5..19) as a compiled array game.

Rules (docs/algorithms.md, "NoGo": the 2011 computer tournaments): empty board,
Black first, players alternate, no passing.  After every move every block of both colours must
have a liberty, so a move that captures is illegal and so is suicide (no exception for a move that
would capture).  The player to move with no legal move loses; no komi, no score, no draw.

Because nothing is ever captured the game lasts at most size * size moves, and the state machinery
of :mod:`treepolicies.games.board` only ever adds stones.  Random playouts pick uniformly among the
legal moves (no eye heuristic: filling one's own eye is a legal and sometimes necessary NoGo move).

Move codes: ``row * size + col`` (row 0 at the top); there is no pass.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from treepolicies.games import board as bd
from treepolicies.games.board import EMPTY, H_MOVES, H_NEMPTY, H_NPTS, H_SIZE, H_STRIDE, H_TOMOVE, HDR
from treepolicies.games import Rollout
from treepolicies.games.go import BoardGame, GameKernels

__all__ = ["NoGo", "NOGO_KERNELS"]


@nb.njit(cache=True, _nrt=False)
def nogo_to_move(state):
    return state[H_TOMOVE]


@nb.njit(cache=True, _nrt=False)
def nogo_terminal(state):
    """True iff the player to move has no legal move (scans the empty points, stops at the first)."""
    npts = state[H_NPTS]
    em = HDR + 7 * npts
    colour = state[H_TOMOVE] + 1
    for i in range(state[H_NEMPTY]):
        if bd.nogo_legal_point(state, state[em + i], colour):
            return False
    return True


@nb.njit(cache=True, _nrt=False)
def nogo_legal(state, out):
    """Write the legal move codes (code order) to out; 0 iff the player to move has lost."""
    n = state[H_SIZE]
    w = state[H_STRIDE]
    colour = state[H_TOMOVE] + 1
    k = 0
    for r in range(n):
        for c in range(n):
            p = (r + 1) * w + c + 1
            if state[HDR + p] == EMPTY and bd.nogo_legal_point(state, p, colour):
                out[k] = r * n + c
                k += 1
    return k


@nb.njit(cache=True, _nrt=False)
def nogo_is_legal(state, move):
    n = state[H_SIZE]
    if move < 0 or move >= n * n:
        return False
    return bd.nogo_legal_point(state, bd.point_of(state, move), state[H_TOMOVE] + 1)


@nb.njit(cache=True, _nrt=False)
def nogo_move_check(state, move):
    """True iff ``move`` is one of :func:`nogo_legal`'s moves here, without enumerating them (the
    move check of playout policies' fast path: treepolicies.mcts.playouts)."""
    n = state[H_SIZE]
    if move < 0 or move >= n * n:
        return False
    p = bd.point_of(state, move)
    return state[HDR + p] == EMPTY and bd.nogo_legal_point(state, p, state[H_TOMOVE] + 1)


@nb.njit(cache=True, _nrt=False, inline="always")
def nogo_move_draw(state, rng):
    """A uniformly random move among :func:`nogo_legal`'s, not played; -1 when there is none (the
    player to move has lost).  The draw of the random rollout (board.random_point: it reorders the
    state's list of empty points, nothing else); the candidate draw of playout policies' fast path
    (treepolicies.mcts.playouts)."""
    p = bd.random_point(state, rng, state[H_TOMOVE] + 1, True)
    return -1 if p < 0 else bd.code_of(state, p)


@nb.njit(cache=True, _nrt=False, inline="always")
def nogo_play(state, move):
    """Apply a legal move code in place (a legal NoGo move never captures)."""
    bd.place(state, bd.point_of(state, move), state[H_TOMOVE] + 1)
    state[H_TOMOVE] = 1 - state[H_TOMOVE]
    state[H_MOVES] += 1


@nb.njit(cache=True, _nrt=False)
def nogo_result(state, player):
    """At a terminal state the player to move has lost: 0 for them, 1 for the other."""
    return 0.0 if player == state[H_TOMOVE] else 1.0


@nb.njit(cache=True, inline="always")
def nogo_rollout(state, rng, plies, cap, heuristic):
    """Moves until the player to move has none (that player loses) or ``cap`` plies: uniformly
    random legal moves, or with ``heuristic`` the light policy: a uniformly random legal move that
    leaves no own chain with a single liberty (:func:`board.liberties_after` >= 2), else any legal
    move.  Writes the plies ``2 * code + player`` to ``plies`` as far as it has room."""
    k = 0
    while k != cap:
        colour = state[H_TOMOVE] + 1
        p = bd.random_point(state, rng, colour, True, True) if heuristic else -1
        if p < 0:
            p = bd.random_point(state, rng, colour, True)
        if p < 0:
            return k
        bd.place(state, p, colour)
        if k < plies.shape[0]:
            plies[k] = 2 * bd.code_of(state, p) + state[H_TOMOVE]
        state[H_TOMOVE] = 1 - state[H_TOMOVE]
        state[H_MOVES] += 1
        k += 1
    return k


@nb.njit(cache=True, inline="always")
def nogo_random_rollout(state, rng, plies, cap):
    """The uniform playout as a treepolicies.games.Rollout (same draws as :func:`nogo_playout`).  Inlined where it
    is called (so is the loop it calls): a playout policy's fast path calls it for one ply at a time,
    and as a call it cost about 100 ns a ply (docs/playouts.md#cost-9x9-go-one-core)."""
    return nogo_rollout(state, rng, plies, cap, False)


@nb.njit(cache=True, _nrt=False)
def nogo_heuristic_rollout(state, rng, plies, cap):
    """The light heuristic playout (:func:`nogo_rollout`) as a treepolicies.games.Rollout."""
    return nogo_rollout(state, rng, plies, cap, True)


@nb.njit(cache=True, _nrt=False)
def nogo_playout(state, rng):
    """Uniformly random legal moves until the player to move has none (that player loses)."""
    nogo_rollout(state, rng, state[:0], -1, False)  # (a 0-length view: records nothing, allocates nothing)


@nb.njit(cache=True, _nrt=False)
def nogo_value(state, player):
    """The result at a terminal state; an unfinished position (a capped rollout) counts as 0.5
    (NoGo has no score to count)."""
    if nogo_terminal(state):
        return nogo_result(state, player)
    return 0.5


@nb.njit(cache=True, _nrt=False)
def nogo_heuristic_prior(state, moves, n, out):
    """Priors of moves[:n] (``prior=heuristic``): 1, or 0.1 for a move that leaves the new stone's
    chain with a single liberty (the light playout's rule); normalised."""
    colour = state[H_TOMOVE] + 1
    total = 0.0
    for j in range(n):
        p = bd.point_of(state, moves[j])
        wt = 1.0 if bd.liberties_after(state, p, colour, False) >= 2 else 0.1
        out[j] = wt
        total += wt
    for j in range(n):
        out[j] /= total


NOGO_KERNELS = GameKernels(nogo_legal, nogo_play, nogo_to_move, nogo_terminal, nogo_result, nogo_playout)
NOGO_PRIORS = {"heuristic": nogo_heuristic_prior}
NOGO_ROLLOUTS = {"random": Rollout(nogo_random_rollout, nogo_value),
                 "heuristic": Rollout(nogo_heuristic_rollout, nogo_value)}


class NoGo(BoardGame):
    """NoGo (size 5..19, default 9); a compiled array game (kernels ``NOGO_KERNELS``)."""

    name = "nogo"
    allows_pass = False
    kernels = NOGO_KERNELS
    rollouts = NOGO_ROLLOUTS
    priors = NOGO_PRIORS
    #: position key kernel for transpositions (treepolicies.mcts.dag)
    key_kernel = staticmethod(bd.search_key)
    is_legal_kernel = staticmethod(nogo_is_legal)
    move_check = staticmethod(nogo_move_check)  # (playout policies' fast path: treepolicies.mcts.playouts)
    move_draw = staticmethod(nogo_move_draw)  # (their candidate path)

    @property
    def max_plies(self) -> int:
        """Plies of a playout from here at most: one stone per empty point."""
        return max(1, int(self.state[H_NEMPTY]))

    def __init__(self, size: int = 9):
        self._init_common(bd.check_size(size), 0, 0)

    def all_legal_moves(self) -> list[int]:
        return self.legal_moves()

    def result_string(self) -> str:
        """``B+R`` / ``W+R`` once the player to move has no legal move (the loser resigns), else ``?``."""
        if not self.terminal():
            return "?"
        return "W+R" if self.to_move == 0 else "B+R"

    @property
    def komi(self) -> float:
        return 0.0

