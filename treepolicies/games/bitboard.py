"""What the two bitboard games (tic-tac-toe, Connect Four) share: the state layout and its queries.

State: an int64 array ``[stones of player 0, stones of player 1, moves played, status]`` with
status -1 while the game goes on, the winner (0 or 1) once someone has a line, 2 for a draw.
"""
from __future__ import annotations

import numba as nb

FIRST, SECOND, MOVES, STATUS = 0, 1, 2, 3
ONGOING, DRAW = -1, 2


@nb.njit(cache=True)
def to_move(state):
    """Player to move: 0 after an even number of moves, else 1."""
    return state[MOVES] & 1


@nb.njit(cache=True)
def terminal(state):
    return state[STATUS] >= 0


@nb.njit(cache=True)
def result(state, player):
    """1 if ``player`` won, 0.5 for a draw, 0 for a loss (at a terminal state)."""
    s = state[STATUS]
    if s == DRAW:
        return 0.5
    return 1.0 if s == player else 0.0


@nb.njit(cache=True)
def value(state, player):
    """``result`` at a terminal state; an unfinished position (a capped rollout) counts as a draw."""
    if state[STATUS] < 0:
        return 0.5
    return result(state, player)
