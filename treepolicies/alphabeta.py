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
The search is generated once per :class:`treepolicies.games.GameKernels` tuple.
"""
from __future__ import annotations

import math
import time

import numba as nb
import numpy as np

__all__ = ["alphabeta", "WIN"]

WIN = 1000.0
MAX_DEPTH = 128
_SEARCHES: dict = {}


def _build(kernels):
    legal, play, to_move, terminal, result, playout = kernels

    @nb.njit(cache=False)
    def negamax(states, moves, ply, depth, alpha, beta, counters):
        state = states[ply]
        counters[0] += 1
        if terminal(state):
            r = result(state, to_move(state))
            return (2.0 * r - 1.0) * (WIN - ply)
        if depth == 0:
            counters[1] = 1
            return 0.0
        n = legal(state, moves[ply])
        best = -math.inf
        child = states[ply + 1]
        for i in range(n):
            child[:] = state
            play(child, moves[ply, i])
            v = -negamax(states, moves, ply + 1, depth - 1, -beta, -alpha, counters)
            if v > best:
                best = v
            if v > alpha:
                alpha = v
            if alpha >= beta:
                break
        return best

    @nb.njit(cache=False)
    def root(state, depth, max_moves, counters):
        """(best move, its score) at a fixed depth; counters = [nodes, cut-off happened]."""
        states = np.empty((depth + 2, state.shape[0]), state.dtype)
        moves = np.empty((depth + 2, max_moves), np.int64)
        states[0] = state
        n = legal(state, moves[0])
        best_move, best = moves[0, 0], -math.inf
        alpha, beta = -math.inf, math.inf
        for i in range(n):
            states[1] = state
            play(states[1], moves[0, i])
            v = -negamax(states, moves, 1, depth - 1, -beta, -alpha, counters)
            if v > best:
                best, best_move = v, moves[0, i]
            if v > alpha:
                alpha = v
        return best_move, best

    return root


def alphabeta(game, depth=None, seconds=None):
    """Best move of a compiled ``game`` by negamax alpha-beta: (move, score, depth reached, nodes).

    depth: fixed depth (>= 1); seconds: time budget for iterative deepening (> 0); one of them.
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
    search = _SEARCHES.get(game.kernels)
    if search is None:
        search = _SEARCHES[game.kernels] = _build(game.kernels)
    m = max(1, int(game.max_moves))
    total = 0
    if depth is not None:
        counters = np.zeros(2, np.int64)
        move, score = search(game.state, depth, m, counters)
        return int(move), float(score) + 0.0, depth, int(counters[0])
    search(game.state, 1, m, np.zeros(2, np.int64))  # compile (first use) outside the clock
    start = time.perf_counter()
    last, ratio = 0.0, 4.0
    best = None
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
