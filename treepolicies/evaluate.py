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
"""
from __future__ import annotations

import math
import time

import numba as nb
import numpy as np

from bandits.stats import COUNT, ISQRT, MEAN, NVIEW, SUM
from treepolicies.options import O_PRIOR
from treepolicies.tree import FULL, backup, expand, leader_is_safe, mark_terminal

__all__ = ["EVALUATORS", "register_evaluator", "get_evaluator", "virtual_loss", "run_evaluated", "MAX_BATCH"]

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


@nb.njit(cache=True)
def virtual_loss(tree, leaf, sign):
    """Add (sign = 1) or remove (sign = -1) one visit with reward 0 at every node from ``leaf`` to the root."""
    stats = tree.stats
    node = leaf
    while node >= 0:
        n = stats[COUNT, node] + sign
        stats[COUNT, node] = n
        if n > 0.0:
            stats[MEAN, node] = stats[SUM, node] / n
            stats[ISQRT, node] = 1.0 / math.sqrt(n)
        else:
            stats[MEAN, node] = 0.0
            stats[ISQRT, node] = math.inf
        node = tree.parent[node]


def _call(fn, game, states, moves, counts):
    try:
        priors, values = fn(states, moves, counts)
    except Exception as exc:  # a user's function: say whose error it is, in one line
        raise ValueError(f"evaluator {getattr(fn, '__name__', fn)!r} failed: {type(exc).__name__}: {exc}") from exc
    priors = np.asarray(priors, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    b = len(counts)
    if priors.ndim != 2 or priors.shape[0] != b or priors.shape[1] < int(counts.max(initial=0)) or values.shape[0] != b:
        raise ValueError(f"evaluator must return priors of shape ({b}, >= {int(counts.max(initial=0))}) and {b} values, "
                         f"got {priors.shape} and {values.shape}")
    if not np.all((values >= 0.0) & (values <= 1.0)):
        raise ValueError(f"evaluator values must lie in [0, 1] (for the player to move), got {values[~((values >= 0) & (values <= 1))][:3]}")
    return priors, values


def _normalised(row, n):
    p = np.array(row[:n], dtype=np.float64)
    if not np.all(np.isfinite(p)) or np.any(p < 0) or p.sum() <= 0:
        return np.full(n, 1.0 / n)
    return p / p.sum()


def run_evaluated(game, tree, policy, stream, iterations, deadline, solver, early, node_cap, run, fn, batch, mix,
                  grow, bad_arm):
    """The evaluator loop (module docstring) for a compiled game; returns (iterations, stop reason)."""
    from treepolicies.view import descend_view, order_by_prior

    pk, params, rng = policy.kernels, policy.params, stream.state
    k = game.kernels
    m = max(1, int(game.max_moves))
    valid, work = np.ones(m, np.bool_), np.empty(m)
    view = np.empty((NVIEW, m))
    codes = max(1, int(getattr(game, "move_codes", 0) or m))
    cmap = np.full(codes, -1, np.int64)
    opts = run.opts.copy()
    opts[O_PRIOR] = 1.0  # the evaluator's priors are the children's priors
    root_state = game.state
    buf = np.empty(m, np.int64)
    done = 0
    calls = 0

    def leaf_state(depth):
        s = root_state.copy()
        for i in range(depth):
            k.play(s, int(tree.path[i]))
        return s

    while iterations is None or done < iterations:
        if deadline is not None and time.perf_counter() >= deadline:
            return done, "seconds", calls
        if solver and tree.proven[0] >= 0.0:
            return done, "proven", calls
        want = batch if iterations is None else min(batch, iterations - done)
        pending = []  # (leaf, state, to_move) awaiting the evaluator; leaves in order of arrival
        exact = []    # (leaf, value) of terminal / proven leaves
        firsts = {}
        for _ in range(want):
            arrays = tree.arrays
            node, depth = descend_view(arrays, pk, params, valid, rng, work, bool(solver), tree.path, opts, view, cmap)
            if node < 0:
                bad_arm(policy)
            if solver and tree.proven[node] >= 0.0:
                exact.append((node, float(tree.proven[node])))
                virtual_loss(arrays, node, 1.0)
                continue
            s = leaf_state(depth)
            if k.terminal(s):
                value = float(k.result(s, int(tree.mover[node])))
                if solver:
                    mark_terminal(arrays, node, value)
                exact.append((node, value))
                virtual_loss(arrays, node, 1.0)
                continue
            if node in firsts:  # a collision: the batch ends here (this descent is not an iteration)
                break
            firsts[node] = len(firsts)
            pending.append((node, s))
            virtual_loss(arrays, node, 1.0)
        for node, _ in exact:
            virtual_loss(tree.arrays, node, -1.0)
        for node, _ in pending:
            virtual_loss(tree.arrays, node, -1.0)
        for node, value in exact:
            backup(tree.arrays, node, value, pk, params, bool(solver))
            done += 1
        if pending:
            unique = {}
            for node, s in pending:
                unique.setdefault(node, s)
            leaves = list(unique)
            states = np.stack([unique[n] for n in leaves])
            moves = np.full((len(leaves), m), -1, np.int64)
            counts = np.zeros(len(leaves), np.int64)
            for i, s in enumerate(states):
                counts[i] = k.legal(s, buf)
                moves[i, :counts[i]] = buf[:counts[i]]
            priors, values = _call(fn, game, states, moves, counts)
            calls += 1
            leaf_value = {}
            for i, node in enumerate(leaves):
                n = int(counts[i])
                p = _normalised(priors[i], n)
                mv = moves[i, :n].copy()
                order_by_prior(mv, p, n)
                to_move = int(k.to_move(states[i]))
                while expand(tree.arrays, node, mv, n, to_move, pk, params, valid) == FULL:
                    if not grow():
                        return done, "node_cap", calls
                f = int(tree.arrays.first[node])
                tree.arrays.prior[f:f + n] = p
                v = float(values[i])  # for the player to move at the leaf
                v = v if int(tree.arrays.mover[node]) == to_move else 1.0 - v
                if mix > 0.0:
                    s = states[i].copy()
                    player = int(tree.arrays.mover[node])
                    if run.kernel is not None:  # the rollout option (rollout=, rollout_cap=)
                        cap = run.options.rollout_cap
                        run.kernel.play(s, rng, s[:0], -1 if cap is None else cap)
                        z = float(run.kernel.value(s, player))
                    else:
                        k.playout(s, rng)
                        z = float(k.result(s, player))
                    v = (1.0 - mix) * v + mix * z
                leaf_value[node] = v
            for node, _ in pending:
                backup(tree.arrays, node, leaf_value[node], pk, params, bool(solver))
                done += 1
        if not pending and not exact:  # pragma: no cover - every batch makes at least one descent
            break
        if early and leader_is_safe(tree.arrays, iterations - done):
            return done, "early", calls
    return done, "iterations", calls
