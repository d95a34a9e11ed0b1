"""Connect Four (7 columns x 6 rows) as a compiled bitboard game, with the seeds' Python interface.

Bitboard layout (Pons, "Solving Connect 4", 2016): column c occupies bits 7c .. 7c+5 (bottom to
top), bit 7c+6 is an always-empty sentinel so that shifts never wrap between columns.  A player
has four in a row iff for some direction d in {1 (vertical), 7 (horizontal), 6, 8 (diagonals)}:
``m = b & (b >> d); m & (m >> 2d) != 0``.

State: ``int64[4]`` = [first player's stones, second player's stones, moves played, status];
status -1 while running, 0 or 1 for the winner, 2 for a draw (board full).  Move codes are columns
0..6; ``legal`` lists them centre first (3, 2, 4, 1, 5, 0, 6), which helps alpha-beta.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from bandits.rng import randint
from treepolicies.games import CompiledGame, GameKernels, Rollout
from treepolicies.games.bitboard import FIRST, MOVES, SECOND, STATUS, result, terminal, to_move, value

__all__ = ["ConnectFour"]

WIDTH, HEIGHT = 7, 6
_ORDER = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)
_A, _B, _N, _STATUS = FIRST, SECOND, MOVES, STATUS  # the shared bitboard layout


@nb.njit(cache=True, inline="always")
def _top(col):
    return np.int64(1) << (7 * col + HEIGHT - 1)


@nb.njit(cache=True, inline="always")
def _bottom(col):
    return np.int64(1) << (7 * col)


@nb.njit(cache=True)
def four_in_a_row(b):
    """True if bitboard ``b`` holds four aligned stones (module docstring)."""
    m = b & (b >> 7)
    if m & (m >> 14):
        return True
    m = b & (b >> 6)
    if m & (m >> 12):
        return True
    m = b & (b >> 8)
    if m & (m >> 16):
        return True
    m = b & (b >> 1)
    if m & (m >> 2):
        return True
    return False


@nb.njit(cache=True)
def legal(state, out):
    """Columns that are not full, centre first; none once the game is over."""
    if state[_STATUS] >= 0:
        return 0
    mask = state[_A] | state[_B]
    n = 0
    for col in _ORDER:
        if mask & _top(col) == 0:
            out[n] = col
            n += 1
    return n


@nb.njit(cache=True)
def play(state, move):
    """Drop a stone of the player to move into column ``move`` (which must not be full)."""
    p = state[_N] & 1
    mask = state[_A] | state[_B]
    bit = (mask + _bottom(move)) & (np.int64(0b111111) << (7 * move))
    b = state[p] | bit
    state[p] = b
    state[_N] += 1
    if four_in_a_row(b):
        state[_STATUS] = p
    elif state[_N] == WIDTH * HEIGHT:
        state[_STATUS] = 2


@nb.njit(cache=True)
def _random_column(state, rng):
    """A uniformly random non-full column (rejection sampling over the 7 columns)."""
    mask = state[_A] | state[_B]
    col = randint(rng, WIDTH)
    while mask & _top(col):
        col = randint(rng, WIDTH)
    return col


@nb.njit(cache=True)
def random_rollout(state, rng, plies, cap):
    """Uniformly random non-full columns until the game ends or ``cap`` plies (treepolicies.games.Rollout)."""
    n = 0
    while state[_STATUS] < 0 and n != cap:
        col = _random_column(state, rng)
        if n < plies.shape[0]:
            plies[n] = 2 * col + (state[_N] & 1)
        play(state, col)
        n += 1
    return n


@nb.njit(cache=True)
def playout(state, rng):
    """Uniformly random non-full columns until the game ends (rejection sampling over 7 columns).
    The draws of :func:`random_rollout`, written out without its ply records and cap: a Connect
    Four playout is so short that they, or numba's inlining of a shared helper, cost it 15-30 %
    of the search's speed."""
    while state[_STATUS] < 0:
        mask = state[_A] | state[_B]
        col = randint(rng, WIDTH)
        while mask & _top(col):
            col = randint(rng, WIDTH)
        play(state, col)


@nb.njit(cache=True)
def winning_column(state, player):
    """A column (centre first) where a stone of ``player`` completes four in a row, or -1."""
    mask = state[_A] | state[_B]
    for col in _ORDER:
        if mask & _top(col) == 0:
            bit = (mask + _bottom(col)) & (np.int64(0b111111) << (7 * col))
            if four_in_a_row(state[player] | bit):
                return col
    return -1


@nb.njit(cache=True)
def heuristic_rollout(state, rng, plies, cap):
    """Light playout: take an immediate win, else block the opponent's immediate win, else a
    uniformly random column (the Rollout contract of treepolicies.games)."""
    n = 0
    while state[_STATUS] < 0 and n != cap:
        p = state[_N] & 1
        col = winning_column(state, p)
        if col < 0:
            col = winning_column(state, 1 - p)
        if col < 0:
            col = _random_column(state, rng)
        if n < plies.shape[0]:
            plies[n] = 2 * col + p
        play(state, col)
        n += 1
    return n


_CENTRE = np.array([1.0, 2.0, 3.0, 4.0, 3.0, 2.0, 1.0])


@nb.njit(cache=True)
def heuristic_prior(state, moves, n, out):
    """Priors of moves[:n] (``prior=heuristic``): weight 4 - |column - 3| (the centre, which joins
    the most lines), times 20 for an immediate win and 10 for blocking the opponent's; normalised."""
    p = state[_N] & 1
    win = winning_column(state, p)
    block = winning_column(state, 1 - p)
    total = 0.0
    for j in range(n):
        w = _CENTRE[moves[j]]
        if moves[j] == win:
            w *= 20.0
        elif moves[j] == block:
            w *= 10.0
        out[j] = w
        total += w
    for j in range(n):
        out[j] /= total


_BOTTOM = np.int64(sum(1 << (7 * c) for c in range(WIDTH)))


@nb.njit(cache=True)
def search_key(state):
    """The position's key for transpositions, exact (Pons 2016): the stones of the player to move
    plus the mask of all stones plus the bottom row; below every column's stones the sum carries
    into the first empty cell, so the key is unique for every position."""
    p = state[_N] & 1
    return state[p] + (state[_A] | state[_B]) + _BOTTOM


KERNELS = GameKernels(legal, play, to_move, terminal, result, playout)
PRIORS = {"heuristic": heuristic_prior}
ROLLOUTS = {"random": Rollout(random_rollout, value), "heuristic": Rollout(heuristic_rollout, value)}


class ConnectFour(CompiledGame):
    """Connect Four, 7 x 6.  ``ConnectFour.from_string(diagram)`` reads 6 rows (top first) of
    ``x`` (first player), ``o``, ``.``; the player to move follows from the stone counts."""

    kernels = KERNELS
    max_moves = WIDTH
    name = "connect4"
    rollouts = ROLLOUTS
    priors = PRIORS
    #: position key kernel for transpositions (treepolicies.mcts.dag)
    key_kernel = staticmethod(search_key)
    move_codes = WIDTH
    max_plies = WIDTH * HEIGHT

    def __init__(self):
        self.state = np.array([0, 0, 0, -1], dtype=np.int64)

    @classmethod
    def from_string(cls, diagram: str) -> "ConnectFour":
        rows = [r.replace(" ", "") for r in diagram.strip().splitlines() if r.strip()]
        if len(rows) != HEIGHT or any(len(r) != WIDTH or set(r) - set("xo.") for r in rows):
            raise ValueError(f"diagram must be {HEIGHT} rows of {WIDTH} characters from 'x', 'o', '.'")
        game = cls()
        counts = [0, 0]
        for r, row in enumerate(rows):
            for c, ch in enumerate(row):
                if ch == ".":
                    continue
                height = HEIGHT - 1 - r
                if height > 0 and rows[r + 1][c] == ".":
                    raise ValueError(f"floating stone at row {r}, column {c} of the diagram")
                p = 0 if ch == "x" else 1
                game.state[p] |= np.int64(1) << (7 * c + height)
                counts[p] += 1
        if counts[0] - counts[1] not in (0, 1):
            raise ValueError(f"diagram has {counts[0]} x and {counts[1]} o: x moves first and they alternate")
        game.state[_N] = counts[0] + counts[1]
        for p in (0, 1):
            if four_in_a_row(game.state[p]):
                game.state[_STATUS] = p
        if game.state[_STATUS] < 0 and game.state[_N] == WIDTH * HEIGHT:
            game.state[_STATUS] = 2
        return game

    def __str__(self) -> str:
        a, b = int(self.state[_A]), int(self.state[_B])
        rows = []
        for h in range(HEIGHT - 1, -1, -1):
            rows.append("".join("x" if a >> (7 * c + h) & 1 else "o" if b >> (7 * c + h) & 1 else "."
                                for c in range(WIDTH)))
        return "\n".join(rows)
