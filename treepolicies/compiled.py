"""The whole MCTS loop compiled for one compiled game: generated once per :class:`GameKernels`.

``make_loop(kernels)`` returns an njit function that closes over the game's kernels and calls the
tree kernels of :mod:`treepolicies.tree` (selection, expansion, backup: the same functions the
Python-driven path calls), so one iteration never leaves compiled code::

    run(tree, path, root_state, kind, params, valid, rng, work, moves, n_iter, solver, early)
        -> (iterations done, status)

    tree        Tree.arrays            path  (C,) int64   scratch for the moves of one descent
    root_state  the game's state array (not modified)
    kind, params                       the node policy (bandits.Policy.kind / .params)
    valid (M,) bool all True, work (M,) float64, moves (M,) int64   with M = game.max_moves
    rng   (4,) uint64                  the search's stream, advanced in place
    n_iter                             iterations to run at most
    solver                             MCTS-Solver proofs (treepolicies.tree)
    early                              iterations left in the whole budget at the start of this call,
                                       for the early stop of a robust final move; -1: no early stop

Status codes: RUNNING (n_iter done), FULL (the tree has no room to expand; the iteration was not
counted), EARLY (the leading root move cannot be overtaken), PROVEN (the root is proven).

To make a new compiled game searchable, give it a GameKernels tuple (treepolicies.games); nothing
here changes.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from treepolicies.tree import FULL, backup, descend, expand, leader_is_safe, mark_terminal, select_child, should_expand

__all__ = ["make_loop", "RUNNING", "FULL_STATUS", "EARLY", "PROVEN"]

RUNNING, FULL_STATUS, EARLY, PROVEN = 0, 1, 2, 3

_LOOPS: dict = {}


def make_loop(kernels):
    """The compiled search loop for a game's kernels (built once per kernels tuple, then reused)."""
    loop = _LOOPS.get(kernels)
    if loop is None:
        loop = _build(kernels)
        _LOOPS[kernels] = loop
    return loop


def _build(kernels):
    legal, play, to_move, terminal, result, playout = kernels

    # Not cached on disk: numba keys a cached closure on its captured dispatchers, which differ in
    # every process, so each process compiles this loop once (about 2-3 s) per game.
    @nb.njit(cache=False)
    def run(tree, path, root_state, kind, params, valid, rng, work, moves, n_iter, solver, early):
        move = tree[1]
        mover = tree[4]
        proven = tree[5]
        s = np.empty_like(root_state)
        done = 0
        while done < n_iter:
            if solver and proven[0] >= 0.0:
                return done, PROVEN
            node, depth = descend(tree, kind, params, valid, rng, work, solver, path)
            s[:] = root_state
            for i in range(depth):
                play(s, path[i])
            if solver and proven[node] >= 0.0:
                value = proven[node]
            else:
                if not terminal(s) and should_expand(tree, node):
                    n = legal(s, moves)
                    if expand(tree, node, moves, n, to_move(s), kind, params, valid) == FULL:
                        return done, FULL_STATUS
                    node = select_child(tree, node, kind, params, valid, rng, work, solver)
                    play(s, move[node])
                if terminal(s):
                    value = result(s, mover[node])
                    if solver:
                        mark_terminal(tree, node, value)
                else:
                    playout(s, rng)
                    value = result(s, mover[node])
            backup(tree, node, value, kind, params, solver)
            done += 1
            if early >= 0 and leader_is_safe(tree, early - done):
                return done, EARLY
        return done, RUNNING

    return run
