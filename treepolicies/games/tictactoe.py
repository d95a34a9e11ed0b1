"""Tic-tac-toe as a compiled array game (bitboards), with the seeds' Python interface.

State: ``int64[4]`` = [X stones, O stones, moves played, status]; stones are 9-bit masks with
cell ``3 * row + col`` at bit ``3 * row + col`` (row 0 at the top); status is -1 while the game
runs, 0 or 1 for the winner, 2 for a draw.  X (player 0) moves first.  Move codes are cells 0..8.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from bandits.rng import randint
from treepolicies.games import CompiledGame, GameKernels, Rollout
from treepolicies.games.bitboard import FIRST, MOVES, SECOND, STATUS, result, terminal, to_move, value

__all__ = ["TicTacToe"]

_LINES = np.array([0b000000111, 0b000111000, 0b111000000, 0b001001001, 0b010010010, 0b100100100,
                   0b100010001, 0b001010100], dtype=np.int64)
_FULL = 0b111111111
_X, _O, _N, _STATUS = FIRST, SECOND, MOVES, STATUS  # the shared bitboard layout


@nb.njit(cache=True)
def legal(state, out):
    """Empty cells in index order; none once the game is over."""
    if state[_STATUS] >= 0:
        return 0
    occupied = state[_X] | state[_O]
    n = 0
    for cell in range(9):
        if not (occupied >> cell) & 1:
            out[n] = cell
            n += 1
    return n


@nb.njit(cache=True)
def play(state, move):
    p = state[_N] & 1
    stones = state[p] | (np.int64(1) << move)
    state[p] = stones
    state[_N] += 1
    for line in _LINES:
        if stones & line == line:
            state[_STATUS] = p
            return
    if state[_N] == 9:
        state[_STATUS] = 2


@nb.njit(cache=True)
def _random_cell(state, rng):
    """A uniformly random empty cell (rejection sampling over the 9 cells)."""
    occupied = state[_X] | state[_O]
    cell = randint(rng, 9)
    while (occupied >> cell) & 1:
        cell = randint(rng, 9)
    return cell


@nb.njit(cache=True)
def random_rollout(state, rng, plies, cap):
    """Uniformly random empty cells until the game ends or ``cap`` plies (treepolicies.games.Rollout)."""
    n = 0
    while state[_STATUS] < 0 and n != cap:
        cell = _random_cell(state, rng)
        if n < plies.shape[0]:
            plies[n] = 2 * cell + (state[_N] & 1)
        play(state, cell)
        n += 1
    return n


@nb.njit(cache=True)
def playout(state, rng):
    """Uniformly random empty cells until the game ends: the draws of :func:`random_rollout`, written
    out without its ply records and cap (which cost a short playout a noticeable share of its speed)."""
    while state[_STATUS] < 0:
        occupied = state[_X] | state[_O]
        cell = randint(rng, 9)
        while (occupied >> cell) & 1:
            cell = randint(rng, 9)
        play(state, cell)


_WEIGHT = np.array([2.0, 1.0, 2.0, 1.0, 3.0, 1.0, 2.0, 1.0, 2.0])  # lines through a cell: centre 4, corners 3, edges 2


@nb.njit(cache=True)
def heuristic_prior(state, moves, n, out):
    """Priors of moves[:n] (``prior=heuristic``): centre 3, corners 2, edges 1, times 20 for a cell
    that completes a line of the player to move and 10 for one that blocks the opponent's; normalised."""
    p = state[_N] & 1
    mine, theirs = state[p], state[1 - p]
    total = 0.0
    for j in range(n):
        bit = np.int64(1) << moves[j]
        w = _WEIGHT[moves[j]]
        won = False
        blocked = False
        for line in _LINES:
            if (mine | bit) & line == line:
                won = True
            if (theirs | bit) & line == line:
                blocked = True
        if won:
            w *= 20.0
        elif blocked:
            w *= 10.0
        out[j] = w
        total += w
    for j in range(n):
        out[j] /= total


@nb.njit(cache=True)
def search_key(state):
    """The position's key for transpositions, exact: X's 9 bits, then O's."""
    return state[_X] | (state[_O] << 9)


KERNELS = GameKernels(legal, play, to_move, terminal, result, playout)
PRIORS = {"heuristic": heuristic_prior}
ROLLOUTS = {"random": Rollout(random_rollout, value)}


class TicTacToe(CompiledGame):
    """Tic-tac-toe (3 x 3).  ``TicTacToe.from_string(diagram)`` reads rows of ``x``, ``o``, ``.``."""

    kernels = KERNELS
    max_moves = 9
    name = "tictactoe"
    rollouts = ROLLOUTS
    priors = PRIORS
    #: position key kernel for transpositions (treepolicies.mcts.dag)
    key_kernel = staticmethod(search_key)
    move_codes = 9
    max_plies = 9

    def __init__(self):
        self.state = np.array([0, 0, 0, -1], dtype=np.int64)

    @classmethod
    def from_string(cls, diagram: str) -> "TicTacToe":
        """Position from three rows of ``x`` / ``o`` / ``.`` (top row first); X moves first."""
        rows = [r.replace(" ", "") for r in diagram.strip().splitlines() if r.strip()]
        if len(rows) != 3 or any(len(r) != 3 or set(r) - set("xo.") for r in rows):
            raise ValueError(f"diagram must be 3 rows of 3 characters from 'x', 'o', '.', got {diagram!r}")
        xs = [3 * i + j for i, r in enumerate(rows) for j, ch in enumerate(r) if ch == "x"]
        os_ = [3 * i + j for i, r in enumerate(rows) for j, ch in enumerate(r) if ch == "o"]
        if len(xs) - len(os_) not in (0, 1):
            raise ValueError(f"diagram has {len(xs)} x and {len(os_)} o: x moves first and they alternate")
        game = cls()
        for k in range(len(xs) + len(os_)):  # replay alternately so status is computed by the rules
            cell = xs[k // 2] if k % 2 == 0 else os_[k // 2]
            if game.terminal():
                raise ValueError(f"diagram continues after the game ended: {diagram!r}")
            game.play(cell)
        return game

    def __str__(self) -> str:
        x, o = int(self.state[_X]), int(self.state[_O])
        cells = ["x" if x >> c & 1 else "o" if o >> c & 1 else "." for c in range(9)]
        return "\n".join("".join(cells[3 * r:3 * r + 3]) for r in range(3))
