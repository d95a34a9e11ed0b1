"""Leaf evaluators (the AlphaZero path): a user's function instead of, or mixed with, the playout.

``search(game, policy, iterations=N, evaluator=fn, eval_batch=B, value_mix=lam)`` with a compiled
game calls

    fn(states, moves, counts) -> (priors, values)

    states  (B', S)  the leaf positions' state arrays (the game's dtype; B' <= B)
    moves   (B', M) int64   each position's legal move codes, padded with -1 (M = game.max_moves)
    counts  (B',)  int64    how many of each row are moves
    priors  (B', M) array-like   non-negative weights over those moves (normalised here; zeros or
                                 a non-finite row: uniform)
    values  (B',)  array-like    the value of each position for the player to move there, in [0, 1]

A numpy or torch model plugs in through this function (convert tensors to numpy before
returning); the library needs no network of its own.  Named evaluators for the command line and
player specs (``evaluator=NAME``) are registered with :func:`register_evaluator`, e.g. in a
``--plugin`` file.

The iteration (Silver et al. 2017): descend with the node policy to an unexpanded node; a terminal
one is scored exactly; otherwise it is evaluated, expanded at once with the evaluator's priors as
the children's priors (PUCT's P; the children stored in decreasing prior order), and the value

    v = (1 - value_mix) * v_evaluator + value_mix * z_playout

is backed up (``value_mix`` = 0: no playout; AlphaGo's lambda).  The root is evaluated first for
its priors.

Batching: up to ``eval_batch`` descents are made before one call.  Each descent adds a *virtual
loss* of one visit with reward 0 to every node on its path (COUNT + 1, SUM unchanged: MEAN and
1/sqrt(n) recomputed), so the next descents of the batch are steered elsewhere; the virtual losses
are removed before the real backups.  A leaf reached twice in one batch is evaluated and expanded
once: a descent that reaches a leaf already waiting ends the batch (it is not counted).  Policies' own per-node state (improved UCB's episodes, say)
sees only the real backups.  Everything runs in one thread in a fixed order: same seed, same
batch size, same result.

RAVE / GRAVE: each iteration credits the AMAF rows (treepolicies.amaf) from its plies, the moves of
its descent and, with ``value_mix > 0``, its playout's (the game's rollout kernel records them);
``value_mix = 0``: the descent's only.  Transpositions: the same
batches run on the DAG (treepolicies.mcts.dag).  A terminal leaf's result and the playout's are
scaled by the reward bounds in force, as in the playout loops.
"""
from __future__ import annotations

import numpy as np

from treepolicies.mcts.executors import drive, grow, scratch
from treepolicies.mcts.loops import EvalBatch
from treepolicies.mcts.steps import FULL_STATUS, LEAF_PLAYOUT, RUNNING

__all__ = ["EVALUATORS", "register_evaluator", "get_evaluator", "run_evaluated", "new_batch", "MAX_BATCH"]

MAX_BATCH = 4096

#: name -> evaluator function (module docstring)
EVALUATORS: dict = {}


def register_evaluator(name: str, fn) -> None:
    """Make ``fn`` (module docstring) known as ``evaluator=name`` in player specs and the command line."""
    if not isinstance(name, str) or not name.strip() or not callable(fn):
        raise ValueError(f"register_evaluator needs a name and a callable, got {name!r}, {fn!r}")
    EVALUATORS[name.strip().lower()] = fn


def get_evaluator(evaluator):
    """A callable from a callable or a registered name (ValueError naming the registered ones)."""
    if evaluator is None or callable(evaluator):
        return evaluator
    name = str(evaluator).strip().lower()
    if name not in EVALUATORS:
        raise ValueError(f"unknown evaluator {evaluator!r}; registered evaluators: "
                         f"{', '.join(EVALUATORS) or '(none; treepolicies.register_evaluator in a --plugin file)'}")
    return EVALUATORS[name]


def _call(fn, states, moves, counts):
    """The user's function on copies of the leaves (a clear one-line error for anything it gets wrong)."""
    try:
        priors, values = fn(states.copy(), moves.copy(), counts.copy())
    except Exception as exc:  # a user's function: say whose error it is, in one line
        raise ValueError(f"evaluator {getattr(fn, '__name__', fn)!r} failed: {type(exc).__name__}: {exc}") from exc
    priors = np.asarray(priors, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    b = len(counts)
    if priors.ndim != 2 or priors.shape[0] != b or priors.shape[1] < int(counts.max(initial=0)) or values.shape[0] != b:
        raise ValueError(f"evaluator must return priors of shape ({b}, >= {int(counts.max(initial=0))}) and {b} values, "
                         f"got {priors.shape} and {values.shape}")
    if not np.all((values >= 0.0) & (values <= 1.0)):
        raise ValueError(f"evaluator values must lie in [0, 1] (for the player to move), got "
                         f"{values[~((values >= 0) & (values <= 1))][:3]}")
    return priors, values


def _normalised(row, n):
    """Priors over n moves: the row's first n weights normalised (zeros or a non-finite row: uniform)."""
    p = np.array(row[:n], dtype=np.float64)
    if not np.all(np.isfinite(p)) or np.any(p < 0) or p.sum() <= 0:
        return np.full(n, 1.0 / n)
    return p / p.sum()


def new_batch(run, tree, size) -> EvalBatch:
    """The arrays of a batch of ``size`` descents (treepolicies.mcts.loops.EvalBatch)."""
    game = run.game
    m = max(1, int(game.max_moves))
    x = scratch(run, tree, np.zeros(4, np.uint64))
    return EvalBatch(states=np.empty((size,) + game.state.shape, game.state.dtype),
                     paths=np.empty((size, tree.capacity), np.int64), plies=np.empty((size, x.plies.shape[0]), np.int64),
                     depth=np.zeros(size, np.int64), nplies=np.zeros(size, np.int64), leaf=np.zeros(size, np.int64),
                     kind=np.zeros(size, np.int64), value=np.zeros(size), moves=np.full((size, m), -1, np.int64),
                     counts=np.zeros(size, np.int64), priors=np.zeros((size, m)), evals=np.zeros(size),
                     waiting=np.zeros(tree.capacity, np.int8))


def run_evaluated(run, tree, stream, iterations, deadline, early, node_cap):
    """The evaluator executor (module docstring): batches of ``eval_batch`` descents (compiled,
    treepolicies.mcts.loops.eval_descents), one call of the evaluator on the leaves that await it,
    then their expansions and backups (compiled, eval_finish).  Returns (iterations, stop reason
    or a BAD_* status)."""
    o = run.options
    descents, finish = run.entry("eval_descents"), run.entry("eval_finish")
    fn, size, mix = run.evaluator, int(o.eval_batch), float(o.value_mix)
    state = {}

    def remake():
        state["x"] = scratch(run, tree, stream.state)
        state["b"] = new_batch(run, tree, size)

    remake()
    calls = [0]

    def step(chunk, left):
        """One batch (``chunk`` bounds its size: the iterations left)."""
        x, b = state["x"], state["b"]
        if o.solver and tree.proven[0] >= 0.0:
            return 0, 3  # PROVEN
        want = min(size, chunk)
        k, status = descents(*run.args(tree, x), want, o.solver, run.max_depth(tree), b)
        if status != RUNNING:
            return 0, status
        pending = np.flatnonzero(b.kind[:k] == LEAF_PLAYOUT)
        if pending.size:
            priors, values = _call(fn, b.states[pending], b.moves[pending], b.counts[pending])
            calls[0] += 1
            for j, i in enumerate(pending):
                n = int(b.counts[i])
                b.priors[i, :n] = _normalised(priors[j], n)
                b.evals[i] = values[j]
        done, status = finish(*run.args(tree, x), k, 0, o.solver, mix, b)
        while status == FULL_STATUS:  # grow and go on with the leaves not yet done
            if not _grow_batch():
                b.waiting[:] = 0
                return done, FULL_STATUS
            x, b = state["x"], state["b"]
            more, status = finish(*run.args(tree, x), k, 1, o.solver, mix, b)
            done += more
        if status == RUNNING and early and _leader(tree, left - done):
            return done, 2  # EARLY
        return done, status

    def _grow_batch():
        old = state["b"]
        if not grow(tree, node_cap):
            return False
        remake()
        b = state["b"]
        for name in EvalBatch._fields:  # the batch's descents carry over into the grown arrays
            src, dst = getattr(old, name), getattr(b, name)
            if name == "waiting":
                dst[:src.shape[0]] = src
            elif name == "paths":
                dst[:, :src.shape[1]] = src
            elif name == "plies":
                dst[:, :src.shape[1]] = src
            else:
                dst[...] = src
        return True

    done, reason = drive(step, iterations, deadline, lambda: False)
    return done, reason


def _leader(tree, remaining) -> bool:
    from treepolicies.mcts.tree import leader_is_safe

    return bool(leader_is_safe(tree.arrays, remaining))
