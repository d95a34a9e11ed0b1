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
from treepolicies.amaf import amaf_update, amaf_update_path
from treepolicies.options import O_LO, O_PRIOR, O_SCALE
from treepolicies.transpositions import (_pick_view, backup_path, grave_reference, grow_dag, link, prove_path,
                                         root_proofs, virtual_loss_path)
from treepolicies.tree import FULL, backup, expand, leader_is_safe, mark_terminal
from treepolicies.view import descend_view, order_by_prior

__all__ = ["EVALUATORS", "register_evaluator", "get_evaluator", "virtual_loss", "run_evaluated", "run_evaluated_dag",
           "compile_steps", "MAX_BATCH"]

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


def compile_steps(game, run) -> None:
    """Compile (or load), outside the search's clock, the game kernels the evaluator loop calls from
    Python (legal, play, to_move, terminal, result; the key kernel with transpositions) and the
    playout ``value_mix > 0`` mixes in: one playout from a copy of the position, a scratch stream."""
    ready = (game.kernels, run.kernel, game.state.dtype, run.options.value_mix > 0.0, run.options.transpositions)
    if ready in _STEPS_READY:
        return
    from bandits.compiling import notice

    k = game.kernels
    rng = np.zeros(4, np.uint64)
    rng[0] = 1
    with notice(f"the {getattr(game, 'name', type(game).__name__)} kernels the evaluator calls"):
        s = game.state.copy()
        buf = np.empty(max(1, int(game.max_moves)), np.int64)
        if not k.terminal(s) and k.legal(s, buf) > 0:
            k.to_move(s)
            k.play(s, int(buf[0]))
        if run.options.transpositions:
            game.key_kernel(s)
        k.result(s, 0)
        if run.options.value_mix > 0.0:
            if run.kernel is not None:
                run.kernel.play(s, rng, _NO_PLIES, -1)
                run.kernel.value(s, 0)
            else:
                k.playout(s, rng)
    _STEPS_READY.add(ready)


#: what compile_steps has compiled (or loaded) in this process
_STEPS_READY: set = set()


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
    sc = _Scratch(game, policy, stream, run)
    return _batches(_TreeSteps(game, tree, policy, sc, run, solver, grow, bad_arm), game, tree, sc, run, iterations,
                    deadline, solver, early, fn, batch, mix)


def run_evaluated_dag(game, tree, policy, stream, iterations, deadline, solver, early, node_cap, run, fn, batch, mix,
                      grow, bad_arm):
    """The evaluator loop on the DAG of ``transpositions=True`` (treepolicies.transpositions): the
    same batches, virtual losses and leaf values as :func:`run_evaluated`, with the DAG's descent
    (a known position is gone through, a new one is the leaf, evaluated and expanded at once), its
    backup along the path only (:func:`~treepolicies.transpositions.backup_path`), its virtual loss
    on the path's edges and positions, and its proofs.  Returns (iterations, stop reason, calls)."""
    sc = _Scratch(game, policy, stream, run)
    out = _batches(_DagSteps(game, tree, policy, sc, run, solver, grow, bad_arm), game, tree, sc, run, iterations,
                   deadline, solver, early, fn, batch, mix)
    root_proofs(tree)  # the root moves' proofs, read through their positions, for the final move
    return out


def _batches(steps, game, tree, sc, run, iterations, deadline, solver, early, fn, batch, mix):
    """The batched loop of both drivers (module docstring); ``steps`` descends, adds and removes
    virtual losses, expands and backs up in the tree (:class:`_TreeSteps`) or the DAG (:class:`_DagSteps`)."""
    k = sc.k
    done = 0
    calls = 0
    while iterations is None or done < iterations:
        if deadline is not None and time.perf_counter() >= deadline:
            return done, "seconds", calls
        if solver and tree.proven[0] >= 0.0:
            return done, "proven", calls
        want = batch if iterations is None else min(batch, iterations - done)
        pending = []  # (descent, leaf, its mover) awaiting the evaluator, in order of arrival
        exact = []    # (descent, its mover, value) of terminal / proven leaves
        waiting = set()
        for _ in range(want):
            d, leaf, who, value = steps.descend()
            if value is not None:
                exact.append((d, who, value))
            elif leaf in waiting:  # a collision: the batch ends here (this descent is not an iteration)
                break
            else:
                waiting.add(leaf)
                pending.append((d, leaf, who))
            steps.vloss(d, 1.0)
        for e in exact + pending:
            steps.vloss(e[0], -1.0)
        for d, who, value in exact:
            steps.finish(d, who, value)
            done += 1
        if pending:
            moves, counts, priors, values = _evaluate(fn, game, k, sc.m, np.stack([e[0].state for e in pending]))
            calls += 1
            for i, (d, leaf, who) in enumerate(pending):
                to_move = int(k.to_move(d.state))
                if not steps.expand(leaf, moves[i], int(counts[i]), priors[i], to_move):
                    return done, "node_cap", calls
                v = float(values[i])  # for the player to move at the leaf
                value, n = _mixed(game, run, k, d.state, who, v if who == to_move else 1.0 - v, mix, sc.rng,
                                  d.plies if sc.rave else None, d.n_plies)
                steps.finish(d._replace(n_plies=n), who, value)
                done += 1
        if not pending and not exact:  # pragma: no cover - every batch makes at least one descent
            break
        if early and leader_is_safe(tree.arrays, iterations - done):
            return done, "early", calls
    return done, "iterations", calls


class _TreeSteps:
    """The tree's steps of :func:`_batches`: descend_view to an unexpanded node, a virtual loss
    from it to the root, the backup up its parents, RAVE's update of its plies."""

    def __init__(self, game, tree, policy, sc, run, solver, grow, bad_arm):
        self.game, self.tree, self.policy, self.sc, self.run = game, tree, policy, sc, run
        self.solver, self.grow, self.bad_arm = bool(solver), grow, bad_arm
        self.root_state = game.state

    def descend(self):
        """(descent, leaf node, the leaf's mover, exact value or None)."""
        sc, tree = self.sc, self.tree
        arrays = tree.arrays
        node, depth = descend_view(arrays, sc.pk, sc.params, sc.valid, sc.rng, sc.work, self.solver, tree.path,
                                   sc.opts, sc.view, sc.cmap)
        if node < 0:
            self.bad_arm(self.policy)
        s, plies = sc.replay(self.root_state, tree.path[:depth])  # (the tree's path holds the moves)
        d = _Descent(node, _NO_PLIES, depth, s, plies, depth)
        who = int(arrays.mover[node])
        if self.solver and arrays.proven[node] >= 0.0:
            return d, node, who, float(arrays.proven[node])
        if sc.k.terminal(s):
            value = _scaled(self.game, self.run, sc.k.result(s, who))
            if self.solver:
                mark_terminal(arrays, node, value)
            return d, node, who, value
        return d, node, who, None

    def vloss(self, d, sign):
        virtual_loss(self.tree.arrays, d.leaf, sign)

    def expand(self, node, moves, n, prior, to_move):
        return _expand(self.tree, node, moves, n, prior, to_move, self.sc, self.grow)

    def finish(self, d, who, value):  # (value is for who, the leaf's mover)
        sc = self.sc
        backup(self.tree.arrays, d.leaf, value, sc.pk, sc.params, self.solver)
        if sc.rave:
            amaf_update(self.tree.arrays, d.leaf, d.plies, d.n_plies, d.depth, sc.seen, value, sc.opp)


class _DagSteps(_TreeSteps):
    """The DAG's steps of :func:`_batches` (treepolicies.transpositions): a descent through known
    positions to a new one (or one cut at ``max_plies``), virtual losses on its path's edges and
    positions, the backup along the path only, RAVE's update along it, proofs up it."""

    def __init__(self, game, tree, policy, sc, run, solver, grow, bad_arm):
        super().__init__(game, tree, policy, sc, run, solver, grow, bad_arm)
        self.key = game.key_kernel
        self.max_plies = int(getattr(game, "max_plies", 0) or sc.m)

    def grow_both(self):
        tree = self.tree
        used = tree.size
        if not self.grow():
            return False
        tree.dag = grow_dag(tree.dag, tree.capacity, used)
        return True

    def descend(self):
        """(descent, the leaf's position, the mover into it, exact value or None); the descent's
        leaf is the last row taken."""
        sc, tree, solver = self.sc, self.tree, self.solver
        arrays, dag = tree.arrays, tree.dag
        first, canon, proven, path = arrays.first, dag.canon, arrays.proven, arrays.path
        max_depth = max(1, min(tree.capacity - 1, self.max_plies))
        s = self.root_state.copy()
        row, depth = 0, 0
        while first[canon[row]] >= 0 and depth < max_depth and not (solver and proven[canon[row]] >= 0.0):
            q = int(canon[row])  # (Python ints: the types compiled before the clock)
            r = int(grave_reference(dag, path, depth, sc.ref)) if sc.ref > 0.0 else q
            c = _pick_view(sc.pk, sc.params, arrays, dag, q, sc.valid, sc.rng, sc.work, solver, sc.opts, sc.view, r,
                           sc.cmap)
            if c < 0:
                self.bad_arm(self.policy)
            path[depth] = c
            depth += 1
            sc.k.play(s, int(arrays.move[c]))
            if canon[c] < 0:
                link(dag, c, int(self.key(s)))
            row = c
        path = path[:depth].copy()
        _, plies = sc.replay(self.root_state, arrays.move[path]) if sc.rave else (None, _NO_PLIES)
        d = _Descent(row, path, depth, s, plies, depth)
        q = int(canon[row])
        who = int(arrays.mover[row])
        if solver and proven[q] >= 0.0:
            return d, q, who, float(proven[q])
        if sc.k.terminal(s):
            value = _scaled(self.game, self.run, sc.k.result(s, who))
            if solver:
                proven[q] = value
            return d, q, who, value
        return d, q, who, None  # a new position, or one the descent was cut at (max_plies: a cycle)

    def vloss(self, d, sign):
        virtual_loss_path(self.tree.arrays, self.tree.dag, d.path, d.depth, sign)

    def expand(self, q, moves, n, prior, to_move):
        if self.tree.first[q] >= 0:  # (cut at max_plies: evaluated again, not expanded again)
            return True
        return _expand(self.tree, q, moves, n, prior, to_move, self.sc, self.grow_both, dag=True)

    def finish(self, d, who, value):
        sc, tree = self.sc, self.tree
        backup_path(sc.pk, sc.params, tree.arrays, tree.dag, d.path, d.depth, who, value)
        if sc.rave:
            amaf_update_path(tree.arrays, d.path, d.plies, d.n_plies, d.depth, sc.seen, who, value, sc.opp)
        if self.solver and tree.proven[tree.dag.canon[d.leaf]] >= 0.0:
            prove_path(tree.arrays, tree.dag, d.path, d.depth)


def _expand(tree, node, moves, n, prior, to_move, sc, grow, dag=False):
    """Expand ``node`` with the evaluator's priors over ``moves[:n]`` (children in decreasing prior
    order, their PRIOR row); on a DAG the new edges are not linked yet.  False if the tree is full
    and cannot grow."""
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
