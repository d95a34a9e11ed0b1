"""Negamax with alpha-beta pruning on a compiled game (Knuth & Moore, 1975), depth- or time-limited.

    negamax(s, d) = score(s)                                 if s is terminal or d = 0
                  = max over moves m of -negamax(play(s, m), d - 1)

scores are from the view of the player to move: a terminal position scores (2 r - 1)(W - ply)
with r = result for that player (1 win, 0.5 draw, 0 loss) and W = 1000, so quicker wins and slower
losses score higher; a non-terminal position at depth 0 scores 0 (no evaluation function: the
game-theoretic baseline the seeds ask for, exact whenever the search reaches the end of the game).
Moves are searched in the game's ``legal`` order (Connect Four lists the centre first).

With a time limit the search deepens iteratively (depth 1, 2, ...) and does not start a depth whose
predicted time (the last depth's time times the last growth ratio) exceeds what is left; it stops
early once the result is exact (no depth cut-off happened) or a win or loss is proven.

The recursion runs on an explicit stack (one row a ply: the position, its moves, the next move's
index, alpha, beta and the best score so far), so that the search is one compiled function per game,
called with the game's key (:mod:`treepolicies.mcts.calls`) as the search loop is: compiled once per
machine and cached on disk, with the "compiling" notice of :func:`bandits.compiling.notice`.
"""
from __future__ import annotations

import math
import time

import numba as nb
import numpy as np

from bandits.compiling import notice, track
from treepolicies.mcts import calls

__all__ = ["alphabeta", "WIN"]

WIN = 1000.0
MAX_DEPTH = 128
_SEARCHES: dict = {}


@nb.njit(cache=True, inline="always")
def _search(gkey, state, depth, max_moves, counters):  # pragma: no cover - compiled only
    """(best move, its score) of negamax to ``depth`` plies from ``state`` (not terminal).

    counters: int64[2], [nodes entered below the root, 1 if a depth cut-off happened].  Row ``p`` of
    the stack is the position ``p`` plies below the root: ``states[p]``, its moves ``moves[p, :n[p]]``
    (``legal`` order), the index of the move being searched ``i[p]``, its window ``lo[p], hi[p]``
    (alpha, beta) and its best score ``best[p]``.  The root's window stays (-inf, inf): no cut-off.
    """
    h = depth + 2
    states = np.empty((h, state.shape[0]), state.dtype)
    moves = np.empty((h, max_moves), np.int64)
    n = np.zeros(h, np.int64)
    i = np.zeros(h, np.int64)
    lo = np.empty(h)
    hi = np.empty(h)
    best = np.empty(h)
    for k in range(state.shape[0]):
        states[0, k] = state[k]
    n[0] = calls.legal(gkey, states[0], moves[0])
    lo[0], hi[0], best[0] = -math.inf, math.inf, -math.inf
    best_move = moves[0, 0]
    p = 0
    while True:
        if i[p] < n[p]:  # search the next move of row p
            c = p + 1
            child = states[c]
            for k in range(child.shape[0]):
                child[k] = states[p, k]
            calls.play(gkey, child, moves[p, i[p]])
            counters[0] += 1
            if calls.terminal(gkey, child):
                r = calls.result(gkey, child, calls.to_move(gkey, child))
                v = -((2.0 * r - 1.0) * (WIN - c))
            elif c == depth:
                counters[1] = 1
                v = -0.0
            else:  # go down: the child's window is the parent's, negated and swapped
                n[c] = calls.legal(gkey, child, moves[c])
                i[c] = 0
                lo[c], hi[c], best[c] = -hi[p], -lo[p], -math.inf
                p = c
                continue
        else:  # row p is done: its best goes up to its parent
            if p == 0:
                break
            v = -best[p]
            p -= 1
        # v: the score of move i[p] of row p, from row p's player's view
        if v > best[p]:
            best[p] = v
            if p == 0:
                best_move = moves[0, i[0]]
        if v > lo[p]:
            lo[p] = v
        i[p] += 1
        if lo[p] >= hi[p]:
            i[p] = n[p]  # cut-off: the remaining moves cannot change the parent's choice
    return best_move, best[0]


def _make(gkey: str):
    @nb.njit(cache=True)
    def search(state, depth, max_moves, counters):
        return _search(gkey, state, depth, max_moves, counters)
    return track(search)


def _compiled(game, max_moves):
    """The game's search (made once per process, compiled or loaded from the disk cache on its first
    call here, outside any clock)."""
    search = _SEARCHES.get(game.kernels)
    if search is None:
        search = _make(calls.game_key(game.kernels))
        with notice(f"the alpha-beta search for {game.name}"):
            search(game.state, 1, max_moves, np.zeros(2, np.int64))
        _SEARCHES[game.kernels] = search
    return search


def alphabeta(game, depth=None, seconds=None):
    """Best move of a compiled ``game`` by negamax alpha-beta: (move, score, depth reached, nodes).

    depth: fixed depth (>= 1); seconds: time budget for iterative deepening (> 0); one of them.
    nodes: the positions entered below the root, summed over the depths searched.
    """
    if not (hasattr(game, "kernels") and isinstance(getattr(game, "state", None), np.ndarray)):
        raise ValueError(f"alpha-beta needs a compiled game (with kernels); {type(game).__name__} is not one")
    if (depth is None) == (seconds is None):
        raise ValueError("give exactly one of depth=N (>= 1) and seconds=S (> 0)")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, (int, np.integer))
                              or not 1 <= depth <= MAX_DEPTH):
        raise ValueError(f"depth must be an integer in 1..{MAX_DEPTH}, got {depth!r}")
    if seconds is not None and (not isinstance(seconds, (int, float)) or not seconds > 0):
        raise ValueError(f"seconds must be a number > 0, got {seconds!r}")
    if game.terminal():
        raise ValueError("the game is over: there is no move to search")
    m = max(1, int(game.max_moves))
    search = _compiled(game, m)
    if depth is not None:
        counters = np.zeros(2, np.int64)
        move, score = search(game.state, int(depth), m, counters)
        return int(move), float(score) + 0.0, int(depth), int(counters[0])
    start = time.perf_counter()
    last, ratio = 0.0, 4.0
    best = None
    total = 0
    for d in range(1, MAX_DEPTH + 1):
        elapsed = time.perf_counter() - start
        if best is not None and elapsed + last * ratio > seconds:
            break
        counters = np.zeros(2, np.int64)
        t0 = time.perf_counter()
        move, score = search(game.state, d, m, counters)
        spent = time.perf_counter() - t0
        if last > 0:
            ratio = max(1.5, spent / last)
        last = spent
        total += int(counters[0])
        best = (int(move), float(score) + 0.0, d, total)
        if counters[1] == 0 or abs(score) > WIN - 2 * MAX_DEPTH:
            break  # exact: the whole game tree was searched, or a win/loss is proven
    return best
