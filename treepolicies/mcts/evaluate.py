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


from treepolicies.mcts.executors import drive, grow, new_batch, scratch
from treepolicies.mcts.loops import EvalBatch
from treepolicies.mcts.steps import BAD_RAISE, FULL_STATUS, LEAF_PLAYOUT, RUNNING

__all__ = ["run_evaluated", "MAX_BATCH"]

MAX_BATCH = 4096


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


def _carried(old: EvalBatch, new: EvalBatch) -> EvalBatch:
    """``new`` (arrays for the grown storage) holding ``old``'s descents."""
    for name in EvalBatch._fields:
        src, dst = getattr(old, name), getattr(new, name)
        if name == "waiting":
            continue
        if name in ("paths", "plies"):
            dst[:, :src.shape[1]] = src
        else:
            dst[...] = src
    return new


def run_evaluated(run, tree, streams, iterations, deadline, early, node_cap):
    """The evaluator executor (module docstring): batches of ``eval_batch`` descents (compiled,
    treepolicies.mcts.loops.eval_descents), one call of the evaluator on the leaves that await it,
    then their expansions and backups (compiled, eval_finish).  With several streams (threads:
    ``parallel`` tree or leaf) the descents of a batch, and then its leaves' expansions, playouts and
    backups, are spread over the threads on the one storage (its locks and virtual losses:
    treepolicies.mcts.parallel), and the evaluator is still called once per batch.  Returns
    (iterations, stop reason or a BAD_* status)."""
    from concurrent.futures import ThreadPoolExecutor

    o = run.options
    descents, finish = run.entry("eval_descents"), run.entry("eval_finish")
    fn, size, mix = run.evaluator, int(o.eval_batch), float(o.value_mix)
    threads = len(streams)
    vl = run.vl if threads > 1 else 0.0
    if threads > 1:
        from treepolicies.mcts.parallel import new_par

        tree.par = new_par(tree.capacity)
    state = {}

    def remake():
        old = state.get("b")
        waiting = np.zeros(tree.capacity, np.int32)
        if old is not None:
            waiting[:old[0].waiting.shape[0]] = old[0].waiting
        path = (lambda: None) if threads == 1 else (lambda: np.empty(tree.capacity, np.int64))
        state["x"] = [scratch(run, tree, st.state, path()) for st in streams]
        share = -(-size // threads)
        new = [new_batch(run, tree, share, waiting) for _ in streams]
        state["b"] = [_carried(a, b) for a, b in zip(old, new)] if old is not None else new

    remake()

    def call(fn_, args_list):
        if threads == 1:
            return [fn_(*args_list[0])]
        return [f.result() for f in [pool.submit(fn_, *a) for a in args_list]]

    def step(chunk, left):
        """One batch (``chunk`` bounds its size: the iterations left)."""
        if o.solver and tree.proven[0] >= 0.0:
            return 0, 3  # PROVEN
        want = min(size, chunk)
        shares = [want // threads + (1 if t < want % threads else 0) for t in range(threads)]
        max_depth = run.max_depth(tree)
        out = call(descents, [(*run.args(tree, x, tree.par), w, o.solver, max_depth, vl, b)
                              for x, w, b in zip(state["x"], shares, state["b"])])
        ks = [k for k, _ in out]
        bad = [st for _, st in out if st != RUNNING]
        if not bad and run.abort[0] != 0:
            bad = [BAD_RAISE]
        if bad:
            return 0, bad[0]
        rows = [(t, i) for t, (b, k) in enumerate(zip(state["b"], ks)) for i in np.flatnonzero(b.kind[:k] == LEAF_PLAYOUT)]
        if rows:
            bs = state["b"]
            priors, values = _call(fn, np.stack([bs[t].states[i] for t, i in rows]),
                                   np.stack([bs[t].moves[i] for t, i in rows]),
                                   np.array([bs[t].counts[i] for t, i in rows], np.int64))
            for j, (t, i) in enumerate(rows):
                n = int(bs[t].counts[i])
                bs[t].priors[i, :n] = _normalised(priors[j], n)
                bs[t].evals[i] = values[j]
        done = 0
        start = 0
        todo = list(range(threads))
        while todo:
            out = call(finish, [(*run.args(tree, state["x"][t], tree.par), ks[t], start, o.solver, mix, vl,
                                 state["b"][t]) for t in todo])
            done += sum(n for n, _ in out)
            status = next((st for _, st in out if st not in (RUNNING, FULL_STATUS)), RUNNING)
            if status != RUNNING:
                return done, status
            todo = [t for t, (_, st) in zip(todo, out) if st == FULL_STATUS]
            if todo:  # grow and go on with the leaves not yet done
                if not grow(tree, node_cap):
                    for b in state["b"]:
                        b.waiting[:] = 0
                    return done, FULL_STATUS
                remake()
                start = 1
        if run.abort[0] != 0:
            return done, BAD_RAISE
        if early and _leader(tree, left - done):
            return done, 2  # EARLY
        return done, RUNNING

    with ThreadPoolExecutor(max(1, threads), thread_name_prefix="banditree-eval") as pool:
        return drive(step, iterations, deadline, lambda: False, threads)


def _leader(tree, remaining) -> bool:
    from treepolicies.mcts.tree import leader_is_safe

    return bool(leader_is_safe(tree.arrays, remaining))
