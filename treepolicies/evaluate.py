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
``value_mix = 0``: the descent's only.  Transpositions: :func:`run_evaluated_dag` runs the same
batches on the DAG (treepolicies.transpositions).  A terminal leaf's result and the playout's are
scaled by the reward bounds in force, as in the playout loops.
"""
from __future__ import annotations

import time
from typing import NamedTuple

import numba as nb
import numpy as np

from bandits.stats import COUNT, NVIEW, refresh
from treepolicies.options import O_LO, O_PRIOR, O_SCALE
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
        stats[COUNT, node] += sign
        refresh(stats, node)
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


def _evaluate(fn, game, k, m, states):
    """One call of the evaluator on the leaf positions ``states`` (B', S): their legal moves
    (B', M) padded with -1, their counts (B',), the priors (B', >= M) and the values (B',)."""
    buf = np.empty(m, np.int64)
    moves = np.full((len(states), m), -1, np.int64)
    counts = np.zeros(len(states), np.int64)
    for i, s in enumerate(states):
        counts[i] = k.legal(s, buf)
        moves[i, :counts[i]] = buf[:counts[i]]
    priors, values = _call(fn, game, states, moves, counts)
    return moves, counts, priors, values


def _scaled(game, run, value):
    """A game result scaled to [0, 1] by the bounds in force (a clear error outside them)."""
    v = (float(value) - run.opts[O_LO]) * run.opts[O_SCALE]
    if not 0.0 <= v <= 1.0:
        from treepolicies.search import _bad_reward

        _bad_reward(game, run)
    return v


def _mixed(game, run, k, state, player, v, mix, rng, plies, n_plies):
    """The leaf value for ``player``, ``(1 - mix) v + mix z`` with z a playout's result from
    ``state`` (mix = 0: v, no playout); with ``plies`` (RAVE) the playout's plies are written from
    ``plies[n_plies:]``.  Returns (value, n_plies)."""
    if mix <= 0.0:
        return v, n_plies
    s = state.copy()
    if run.kernel is not None:  # the rollout option (rollout=, rollout_cap=; RAVE's recorded plies)
        cap = run.options.rollout_cap
        out = plies[n_plies:] if plies is not None else _NO_PLIES
        n_plies += int(run.kernel.play(s, rng, out, -1 if cap is None else cap))
        z = _scaled(game, run, run.kernel.value(s, player))
    else:
        k.playout(s, rng)
        z = _scaled(game, run, k.result(s, player))
    return (1.0 - mix) * v + mix * z, n_plies


_NO_PLIES = np.empty(0, np.int64)


class _Descent(NamedTuple):
    """One descent of a batch: the leaf (a row), the rows it descended (a DAG's path; empty in the
    tree, where the parents give it), its depth, the leaf's state, RAVE's plies and their count."""

    leaf: int
    path: np.ndarray
    depth: int
    state: np.ndarray
    plies: np.ndarray
    n_plies: int


class _Scratch:
    """What one evaluator search works with: the policy, the compiled game, scratch arrays."""

    def __init__(self, game, policy, stream, run):
        self.pk, self.params, self.rng = policy.kernels, policy.params, stream.state
        self.k = game.kernels
        self.m = m = max(1, int(game.max_moves))
        self.valid, self.work = np.ones(m, np.bool_), np.empty(m)
        self.view = np.empty((NVIEW, m))
        codes = max(1, int(getattr(game, "move_codes", 0) or m))
        self.cmap = np.full(codes, -1, np.int64)
        self.seen = np.full(2 * codes, -1, np.int64)
        self.opts = run.opts.copy()
        self.opts[O_PRIOR] = 1.0  # the evaluator's priors are the children's priors
        self.rave = bool(run.options.rave)
        self.opp = run.options.grave_ref > 0
        self.ref = float(run.options.grave_ref)
        self.longest = max(1, int(getattr(game, "max_plies", 0) or 0), m)

    def replay(self, root_state, moves):
        """The state after playing ``moves`` from the root, and RAVE's plies of them
        (``2 * move + player``, room left for a playout's)."""
        s = root_state.copy()
        plies = np.empty(len(moves) + self.longest + 1 if self.rave else 0, np.int64)
        for i, mv in enumerate(moves):
            if self.rave:
                plies[i] = 2 * int(mv) + int(self.k.to_move(s))
            self.k.play(s, int(mv))
        return s, plies


def run_evaluated(game, tree, policy, stream, iterations, deadline, solver, early, node_cap, run, fn, batch, mix,
                  grow, bad_arm):
    """The evaluator loop (module docstring) for a compiled game; returns (iterations, stop reason, calls)."""
    from treepolicies.amaf import amaf_update
    from treepolicies.view import descend_view

    sc = _Scratch(game, policy, stream, run)
    pk, params, rng, k = sc.pk, sc.params, sc.rng, sc.k
    root_state = game.state
    done = 0
    calls = 0

    def finish(d, value):  # the real backup of one descent (value for the leaf's mover)
        backup(tree.arrays, d.leaf, value, pk, params, bool(solver))
        if sc.rave:
            amaf_update(tree.arrays, d.leaf, d.plies, d.n_plies, d.depth, sc.seen, value, sc.opp)

    while iterations is None or done < iterations:
        if deadline is not None and time.perf_counter() >= deadline:
            return done, "seconds", calls
        if solver and tree.proven[0] >= 0.0:
            return done, "proven", calls
        want = batch if iterations is None else min(batch, iterations - done)
        pending = []  # descents to leaves awaiting the evaluator, in order of arrival
        exact = []    # (descent, value) of terminal / proven leaves
        firsts = set()
        for _ in range(want):
            arrays = tree.arrays
            node, depth = descend_view(arrays, pk, params, sc.valid, rng, sc.work, bool(solver), tree.path, sc.opts,
                                       sc.view, sc.cmap)
            if node < 0:
                bad_arm(policy)
            s, plies = sc.replay(root_state, tree.path[:depth])  # (the tree's path holds the moves)
            d = _Descent(node, _NO_PLIES, depth, s, plies, depth)
            if solver and tree.proven[node] >= 0.0:
                exact.append((d, float(tree.proven[node])))
                virtual_loss(arrays, node, 1.0)
                continue
            if k.terminal(s):
                value = _scaled(game, run, k.result(s, int(tree.mover[node])))
                if solver:
                    mark_terminal(arrays, node, value)
                exact.append((d, value))
                virtual_loss(arrays, node, 1.0)
                continue
            if node in firsts:  # a collision: the batch ends here (this descent is not an iteration)
                break
            firsts.add(node)
            pending.append(d)
            virtual_loss(arrays, node, 1.0)
        for d, _ in exact:
            virtual_loss(tree.arrays, d.leaf, -1.0)
        for d in pending:
            virtual_loss(tree.arrays, d.leaf, -1.0)
        for d, value in exact:
            finish(d, value)
            done += 1
        if pending:
            moves, counts, priors, values = _evaluate(fn, game, k, sc.m, np.stack([d.state for d in pending]))
            calls += 1
            for i, d in enumerate(pending):
                to_move = int(k.to_move(d.state))
                if not _expand(tree, d.leaf, moves[i], int(counts[i]), priors[i], to_move, sc, grow):
                    return done, "node_cap", calls
                player = int(tree.arrays.mover[d.leaf])
                v = float(values[i])  # for the player to move at the leaf
                value, n = _mixed(game, run, k, d.state, player, v if player == to_move else 1.0 - v, mix, rng,
                                  d.plies if sc.rave else None, d.n_plies)
                finish(d._replace(n_plies=n), value)
                done += 1
        if not pending and not exact:  # pragma: no cover - every batch makes at least one descent
            break
        if early and leader_is_safe(tree.arrays, iterations - done):
            return done, "early", calls
    return done, "iterations", calls


def _expand(tree, node, moves, n, prior, to_move, sc, grow, dag=False):
    """Expand ``node`` with the evaluator's priors over ``moves[:n]`` (children in decreasing prior
    order, their PRIOR row); on a DAG the new edges are not linked yet.  False if the tree is full
    and cannot grow."""
    from treepolicies.view import order_by_prior

    p = _normalised(prior, n)
    mv = moves[:n].copy()
    order_by_prior(mv, p, n)
    while expand(tree.arrays, node, mv, n, to_move, sc.pk, sc.params, sc.valid) == FULL:
        if not grow():
            return False
    f = int(tree.arrays.first[node])
    tree.arrays.prior[f:f + n] = p
    if dag:
        tree.dag.canon[f:f + n] = -1
    return True


def run_evaluated_dag(game, tree, policy, stream, iterations, deadline, solver, early, node_cap, run, fn, batch, mix,
                      grow, bad_arm):
    """The evaluator loop on the DAG of ``transpositions=True`` (treepolicies.transpositions): the
    same batches, virtual losses and leaf values as :func:`run_evaluated`, with the DAG's descent
    (a known position is gone through, a new one is the leaf, evaluated and expanded at once), its
    backup along the path only (:func:`~treepolicies.transpositions.backup_path`), its virtual loss
    on the path's edges and positions, and its proofs.  Returns (iterations, stop reason, calls)."""
    from treepolicies.amaf import amaf_update_path
    from treepolicies.transpositions import (_pick_view, backup_path, grave_reference, grow_dag, link, prove_path,
                                             root_proofs, virtual_loss_path)

    sc = _Scratch(game, policy, stream, run)
    pk, params, rng, k = sc.pk, sc.params, sc.rng, sc.k
    key = game.key_kernel
    root_state = game.state
    max_plies = int(getattr(game, "max_plies", 0) or sc.m)
    done = 0
    calls = 0

    def grow_both():
        used = tree.size
        if not grow():
            return False
        tree.dag = grow_dag(tree.dag, tree.capacity, used)
        return True

    def descend():
        """One descent from the root: (the rows taken, their number, the last row, the state)."""
        arrays, dag = tree.arrays, tree.dag
        first, canon, proven, path = arrays.first, dag.canon, arrays.proven, arrays.path
        max_depth = max(1, min(tree.capacity - 1, max_plies))
        s = root_state.copy()
        row, depth = 0, 0
        while first[canon[row]] >= 0 and depth < max_depth and not (solver and proven[canon[row]] >= 0.0):
            q = canon[row]
            r = grave_reference(dag, path, depth, sc.ref) if sc.ref > 0.0 else q
            c = _pick_view(pk, params, arrays, dag, q, sc.valid, rng, sc.work, bool(solver), sc.opts, sc.view, r,
                           sc.cmap)
            if c < 0:
                bad_arm(policy)
            path[depth] = c
            depth += 1
            k.play(s, int(arrays.move[c]))
            if canon[c] < 0:
                link(dag, c, int(key(s)))
            row = c
        return path[:depth].copy(), depth, row, s

    def finish(d, who, value):  # the real backup of one descent (value for ``who``, the leaf's mover)
        backup_path(pk, params, tree.arrays, tree.dag, d.path, d.depth, who, value)
        if sc.rave:
            amaf_update_path(tree.arrays, d.path, d.plies, d.n_plies, d.depth, sc.seen, who, value, sc.opp)
        if solver and tree.proven[tree.dag.canon[d.leaf]] >= 0.0:
            prove_path(tree.arrays, tree.dag, d.path, d.depth)

    while iterations is None or done < iterations:
        if deadline is not None and time.perf_counter() >= deadline:
            break
        if solver and tree.proven[0] >= 0.0:
            root_proofs(tree)
            return done, "proven", calls
        want = batch if iterations is None else min(batch, iterations - done)
        pending = []  # descents to positions awaiting the evaluator, in order of arrival
        exact = []    # (descent, value) of terminal / proven positions
        waiting = set()
        for _ in range(want):
            path, depth, row, s = descend()
            arrays, dag = tree.arrays, tree.dag
            q = int(dag.canon[row])
            _, plies = sc.replay(root_state, arrays.move[path]) if sc.rave else (None, _NO_PLIES)
            d = _Descent(row, path, depth, s, plies, depth)
            if solver and arrays.proven[q] >= 0.0:
                exact.append((d, float(arrays.proven[q])))
            elif k.terminal(s):
                value = _scaled(game, run, k.result(s, int(arrays.mover[row])))
                if solver:
                    arrays.proven[q] = value
                exact.append((d, value))
            elif q in waiting:  # a collision: the batch ends here (this descent is not an iteration)
                break
            else:  # a new position, or one the descent was cut at (max_plies: a cycle)
                waiting.add(q)
                pending.append(d)
            virtual_loss_path(arrays, dag, path, depth, 1.0)
        for d in [e[0] for e in exact] + pending:
            virtual_loss_path(tree.arrays, tree.dag, d.path, d.depth, -1.0)
        for d, value in exact:
            finish(d, int(tree.arrays.mover[d.leaf]), value)
            done += 1
        if pending:
            moves, counts, priors, values = _evaluate(fn, game, k, sc.m, np.stack([d.state for d in pending]))
            calls += 1
            for i, d in enumerate(pending):
                q = int(tree.dag.canon[d.leaf])
                to_move = int(k.to_move(d.state))
                if tree.first[q] < 0 and not _expand(tree, q, moves[i], int(counts[i]), priors[i], to_move, sc,
                                                     grow_both, dag=True):
                    root_proofs(tree)
                    return done, "node_cap", calls
                who = int(tree.arrays.mover[d.leaf])
                v = float(values[i])  # for the player to move at the leaf
                value, n = _mixed(game, run, k, d.state, who, v if who == to_move else 1.0 - v, mix, rng,
                                  d.plies if sc.rave else None, d.n_plies)
                finish(d._replace(n_plies=n), who, value)
                done += 1
        if not pending and not exact:  # pragma: no cover - every batch makes at least one descent
            break
        if early and leader_is_safe(tree.arrays, iterations - done):
            root_proofs(tree)
            return done, "early", calls
    root_proofs(tree)
    reason = "seconds" if deadline is not None and time.perf_counter() >= deadline and (
        iterations is None or done < iterations) else "iterations"
    return done, reason, calls
