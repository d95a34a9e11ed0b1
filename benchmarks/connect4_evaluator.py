"""A small hand-written Connect Four leaf evaluator, plugged in through the evaluator interface.

    banditree match --plugin benchmarks/connect4_evaluator.py --game connect4 \\
        --a "puct:c=1.5,evaluator=c4_windows,eval_batch=8" --b ucb1:c=0.5 --playouts 1000 --games 100

Value (for the player to move): over the 69 windows of four cells, a window holding only the
mover's stones scores +1, +4, +16 for 1, 2, 3 stones, only the opponent's the same negated; the
value is the logistic 1 / (1 + exp(-score / 16)).  Priors: the game's heuristic prior kernel
(``treepolicies.games.connect4.heuristic_prior``: centre columns, immediate wins and blocks).
A stand-in for a trained network: the library needs none; a numpy or torch model plugs in the same way.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from treepolicies import register_evaluator
from treepolicies.games.connect4 import HEIGHT, WIDTH, heuristic_prior


def _windows() -> np.ndarray:
    out = []
    for c in range(WIDTH):
        for r in range(HEIGHT):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(c + k * dc, r + k * dr) for k in range(4)]
                if all(0 <= x < WIDTH and 0 <= y < HEIGHT for x, y in cells):
                    out.append(sum(1 << (7 * x + y) for x, y in cells))
    return np.array(out, dtype=np.int64)


WINDOWS = _windows()  # 69 of them
assert WINDOWS.size == 69


@nb.njit(cache=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@nb.njit(cache=True)
def window_values(states, windows):
    """(B,) values for the player to move of (B, 4) Connect Four states (module docstring)."""
    out = np.empty(states.shape[0])
    for b in range(states.shape[0]):
        p = states[b, 2] & 1
        mine, theirs = states[b, p], states[b, 1 - p]
        score = 0.0
        for w in windows:
            a, o = _popcount(mine & w), _popcount(theirs & w)
            if o == 0 and a > 0:
                score += 4.0 ** (a - 1)
            elif a == 0 and o > 0:
                score -= 4.0 ** (o - 1)
        out[b] = 1.0 / (1.0 + np.exp(-score / 16.0))
    return out


def c4_windows(states, moves, counts):
    """The evaluator (treepolicies.mcts.evaluate): heuristic priors and window values."""
    priors = np.zeros(moves.shape)
    for b in range(states.shape[0]):
        heuristic_prior(states[b], moves[b], int(counts[b]), priors[b])
    return priors, window_values(states, WINDOWS)


register_evaluator("c4_windows", c4_windows)
