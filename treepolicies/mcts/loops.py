"""The compiled executors: loops around the one iteration of :mod:`treepolicies.mcts.steps`.

Each executor is compiled once per :class:`~treepolicies.mcts.steps.Config` (and per policy in a
specialised loop) as a closure over the config's key text, so numba caches it on disk
(:func:`build`).  Arguments as in treepolicies.mcts.steps; ``early`` the iterations left in the
whole budget at the start of the call, for the early stop of a robust final move (-1: none)::

    single(tree, dag, par, root_state, pk, params, pkr, rparams, x, opts, n_iter, solver, early,
           max_depth) -> (iterations, status)
        ``n_iter`` iterations in one thread (0: compile and return)
    tree_worker(... as single ..., c_start, vl, ctl) -> iterations
        one of N threads on one storage (tree parallelism, treepolicies.mcts.parallel): iterations
        are claimed from ``ctl[C_CLAIMED]`` until ``n_iter`` are; ``ctl[C_STOP]`` the stop status;
        ``c_start`` the root's visits at the start of the call
    leaf_master(... as single ..., states, values, rngs, plies, nplies, sync) -> (iterations, status)
    leaf_helper(k, tree, states, values, rngs, plies, nplies, sync, opts) -> 0
        leaf parallelism (Cazenave & Jouandeau 2007): thread 0 descends, expands and backs up; the
        playout of slot k >= 1 is played by thread k or, if thread k has not taken it when slot 0
        is done, by thread 0 (a compare-and-swap on its claim word), with stream ``rngs[k]`` from
        ``states[k]``, so the result does not depend on who played it
    eval_descents(... as single but n_iter: want ..., vl, batch) -> (descents, status)
    eval_finish(... , k, start, solver, mix, vl, batch) -> (iterations, status)
        the two compiled halves of a batch of the leaf-evaluator executor
        (treepolicies.mcts.evaluate): up to ``want`` descents with a virtual loss between them;
        then, with the evaluator's priors and values in ``batch``, the expansions and backups

``pk`` is not read by a specialised loop (the policy's code is compiled in).  ``pkr, rparams``:
the root policy, or the tree policy again when there is none (unused: the config says so).
"""
from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from bandits.compiling import track
from bandits.stats import COUNT
from treepolicies.mcts import calls
from bandits.borrow import borrowed
from treepolicies.mcts.atomics import atomic_add, atomic_cas, atomic_load, atomic_xchg, cpu_yield
from treepolicies.mcts.parallel import leader_safe_locked, undo
from treepolicies.mcts.steps import (BAD_RAISE, BAD_REWARD, EARLY, FULL_STATUS, LEAF_PLAYOUT, LEAF_TERMINAL, PROVEN, RUNNING,
                                     position_of, backup_step, config_of_game, descend, expand_with, iterate,
                                     leaf_exact, playout_value, prove_leaf, virtual_loss_leaf, claim, undo_descent, is_locked)
from treepolicies.mcts.tree import leader_is_safe

__all__ = ["build", "EvalBatch", "C_CLAIMED", "C_STOP", "L_GEN", "L_NODE", "L_DEPTH", "L_QUIT", "L_CLAIM",
           "SPINS_BEFORE_YIELD", "EXECUTORS"]

#: slots of the control array of a tree-parallel run: iterations claimed, the stop status
C_CLAIMED, C_STOP = 0, 2
#: slots of the leaf-parallel sync array: generation, the leaf's row, its depth, quit; slot k's
#: claim word at L_CLAIM + k (0 free, 1 taken, 2 done)
L_GEN, L_NODE, L_DEPTH, L_QUIT, L_CLAIM = 0, 1, 2, 3, 8
SPINS_BEFORE_YIELD = 200


class EvalBatch(NamedTuple):
    """The descents of one batch of the leaf-evaluator executor (B = eval_batch, M = max_moves).

    states (B, S) the leaves' positions; paths (B, D) int64 the rows taken; plies (B, L) int64
    (RAVE); depth (B,), nplies (B,), leaf (B,) the row each ended at, kind (B,) steps.LEAF_*,
    value (B,) float64 the exact leaves' values; moves (B, M) int64 and counts (B,) the legal moves
    of the leaves awaiting the evaluator (padded with -1); priors (B, M) and evals (B,) float64 the
    evaluator's normalised priors and values (written between the halves); waiting (C,) int32 the
    positions awaiting the evaluator (all 0 between batches; one array shared by the batches of all
    threads).
    """

    states: np.ndarray
    paths: np.ndarray
    plies: np.ndarray
    depth: np.ndarray
    nplies: np.ndarray
    leaf: np.ndarray
    kind: np.ndarray
    value: np.ndarray
    moves: np.ndarray
    counts: np.ndarray
    priors: np.ndarray
    evals: np.ndarray
    waiting: np.ndarray


# ------------------------------------------------------------------------------------------------
# the executors' bodies (inlined into the entry points :func:`build` makes)


@nb.njit(cache=True, inline="always")
def _single(cfg, pk, params, pkr, rparams, tree, dag, par, root_state, x, opts, n_iter, solver, early, max_depth):
    done = 0
    while done < n_iter:
        if solver and tree.proven[0] >= 0.0:
            return done, PROVEN
        status, node = iterate(cfg, pk, params, pkr, rparams, tree, dag, par, root_state, x, solver, opts, 0.0,
                               max_depth)
        if status != RUNNING:
            return done, status
        if x.abort[0] != 0:
            return done, BAD_RAISE
        done += 1
        if early >= 0 and leader_is_safe(tree, early - done):
            return done, EARLY
    return done, RUNNING


@nb.njit(cache=True, nogil=True)
def _stop(ctl, status):
    atomic_cas(ctl, C_STOP, 0, status)


@nb.njit(cache=True, inline="always")
def _tree_worker(cfg, pk, params, pkr, rparams, tree, dag, par, root_state, x, opts, n_iter, solver, early,
                 max_depth, c_start, vl, ctl):
    mine = 0  # iterations this thread completed
    while atomic_load(ctl, C_STOP) == 0:
        if solver and tree.proven[0] >= 0.0:
            _stop(ctl, PROVEN)
            break
        if atomic_add(ctl, C_CLAIMED, 1) >= n_iter:
            break
        status, node, depth = descend(cfg, pk, params, pkr, rparams, tree, dag, par, root_state, x, solver, opts, vl,
                                      max_depth)
        kind = LEAF_PLAYOUT
        value = 0.0
        n_plies = depth
        if status == RUNNING:
            exact, value, kind = leaf_exact(cfg, tree, dag, node, x.s, opts, solver)
            if not exact:
                value, n_plies = playout_value(cfg, tree.mover[node], x.s, x.plies, depth, x.rng, opts)
            if not (0.0 <= value <= 1.0):
                status = BAD_REWARD
        if status != RUNNING:
            undo(tree, x.path, depth, vl, par)
            _stop(ctl, status)
            break
        backup_step(cfg, pk, params, pkr, rparams, tree, dag, par, node, x.path, depth, value, x, x.plies, n_plies,
                    solver, opts, vl, solver and kind == LEAF_TERMINAL)
        mine += 1
        if x.abort[0] != 0:
            _stop(ctl, BAD_RAISE)
        elif solver and tree.proven[0] >= 0.0:
            _stop(ctl, PROVEN)
        elif early >= 0 and (mine & 7) == 0 and leader_safe_locked(tree, early - (tree.stats[COUNT, 0] - c_start),
                                                                    vl, par):
            _stop(ctl, EARLY)  # (checked every 8th iteration of a thread: a stop never comes too early)
    return mine


@nb.njit(cache=True, inline="always")
def _leaf_slot(cfg, tree, k, states, values, rngs, plies, nplies, sync, opts):
    """Slot k's playout from the published leaf (module docstring), then its claim word says done."""
    node = sync[L_NODE]
    values[k], nplies[k] = playout_value(cfg, tree.mover[node], states[k], plies[k], sync[L_DEPTH], rngs[k], opts)
    atomic_xchg(sync, L_CLAIM + k, 2)


@nb.njit(cache=True, inline="always")
def _leaf_master(cfg, pk, params, pkr, rparams, tree, dag, par, root_state, x, opts, n_iter, solver, early,
                 max_depth, states, values, rngs, plies, nplies, sync):
    slots = states.shape[0]
    done = 0
    status = RUNNING
    while done < n_iter:
        if solver and tree.proven[0] >= 0.0:
            status = PROVEN
            break
        status, node, depth = descend(cfg, pk, params, pkr, rparams, tree, dag, par, root_state, x, solver, opts, 0.0,
                                      max_depth)
        if status != RUNNING:
            break
        exact, value, kind = leaf_exact(cfg, tree, dag, node, x.s, opts, solver)
        if exact:  # a terminal or proven leaf is backed up once, without playouts
            if not (0.0 <= value <= 1.0):
                status = BAD_REWARD
                break
            mark = solver and kind == LEAF_TERMINAL
            prove_leaf(cfg, tree, dag, node, value, mark)
            backup_step(cfg, pk, params, pkr, rparams, tree, dag, par, node, x.path, depth, value, x, x.plies, depth,
                        solver, opts, 0.0, mark)
            done += 1
        else:
            m = min(slots, n_iter - done)
            for k in range(1, m):
                states[k, :] = x.s
                plies[k, :depth] = x.plies[:depth]
            sync[L_NODE] = node
            sync[L_DEPTH] = depth
            for k in range(1, slots):  # (seq_cst: the states and the leaf above are visible first)
                atomic_xchg(sync, L_CLAIM + k, 0 if k < m else 2)
            atomic_add(sync, L_GEN, 1)
            values[0], nplies[0] = playout_value(cfg, tree.mover[node], x.s, x.plies, depth, x.rng, opts)
            for k in range(1, m):  # the slots no helper has taken yet
                if atomic_cas(sync, L_CLAIM + k, 0, 1) == 0:
                    _leaf_slot(cfg, tree, k, states, values, rngs, plies, nplies, sync, opts)
            for k in range(1, m):
                spins = 0
                while atomic_load(sync, L_CLAIM + k) != 2:
                    spins += 1
                    if spins >= SPINS_BEFORE_YIELD:
                        cpu_yield()
                        spins = 0
            bad = False
            for k in range(m):
                if not (0.0 <= values[k] <= 1.0):
                    bad = True
            if bad:
                status = BAD_REWARD
                break
            for k in range(m):
                if k == 0:
                    backup_step(cfg, pk, params, pkr, rparams, tree, dag, par, node, x.path, depth, values[0], x,
                                x.plies, nplies[0], solver, opts, 0.0, False)
                else:
                    backup_step(cfg, pk, params, pkr, rparams, tree, dag, par, node, x.path, depth, values[k], x,
                                plies[k], nplies[k], solver, opts, 0.0, False)
                done += 1
                if early >= 0 and leader_is_safe(tree, early - done):
                    break
        if x.abort[0] != 0:
            status = BAD_RAISE
            break
        if early >= 0 and leader_is_safe(tree, early - done):
            status = EARLY
            break
    atomic_xchg(sync, L_QUIT, 1)
    atomic_add(sync, L_GEN, 1)
    return done, status


@nb.njit(cache=True, inline="always")
def _leaf_helper(cfg, k, tree, states, values, rngs, plies, nplies, sync, opts):
    seen = 0  # (the driver zeroes sync before the threads start)
    while True:
        spins = 0
        while atomic_load(sync, L_GEN) == seen:
            spins += 1
            if spins >= SPINS_BEFORE_YIELD:
                cpu_yield()
                spins = 0
        seen = atomic_load(sync, L_GEN)
        if atomic_load(sync, L_QUIT) != 0:
            return 0
        if atomic_cas(sync, L_CLAIM + k, 0, 1) == 0:
            _leaf_slot(cfg, tree, k, states, values, rngs, plies, nplies, sync, opts)


@nb.njit(cache=True, inline="always")
def _eval_descents(cfg, pk, params, pkr, rparams, tree, dag, par, root_state, x, opts, want, solver, max_depth, vl,
                   b):
    """Up to ``want`` descents, each to a leaf that is exact (proven or terminal: its value in
    ``b.value``, a terminal one proven at once with the solver) or awaits the evaluator (its legal
    moves in ``b.moves``); a descent that reaches a position already awaiting (in any thread's batch)
    ends the batch and is not counted.  Each counted descent keeps a virtual loss on its path (one
    thread: added after the descent; tree parallelism: V per step, as its iterations do).
    (descents, status)."""
    g = config_of_game(cfg)
    k = 0
    while k < want:
        status, node, depth = descend(cfg, pk, params, pkr, rparams, tree, dag, par, root_state, x, solver, opts, vl,
                                      max_depth)
        if status != RUNNING:
            undo_descent(cfg, tree, x.path, depth, vl, par)
            return k, status
        exact, value, kind = leaf_exact(cfg, tree, dag, node, x.s, opts, solver)
        q = position_of(cfg, dag, node)
        if exact:
            if not (0.0 <= value <= 1.0):
                undo_descent(cfg, tree, x.path, depth, vl, par)
                return k, BAD_REWARD
            prove_leaf(cfg, tree, dag, node, value, solver and kind == LEAF_TERMINAL)
        else:
            if not claim(cfg, b.waiting, q):  # a collision: the batch ends here
                undo_descent(cfg, tree, x.path, depth, vl, par)
                break
            row = b.moves[k]
            row[:] = -1
            b.counts[k] = calls.legal(g, x.s, row)
        b.states[k, :] = x.s
        b.paths[k, :depth] = x.path[:depth]
        b.plies[k, :depth] = x.plies[:depth]
        b.depth[k] = depth
        b.nplies[k] = depth
        b.leaf[k] = node
        b.kind[k] = kind
        b.value[k] = value
        virtual_loss_leaf(cfg, tree, dag, node, b.paths[k], depth, 1.0)
        k += 1
    return k, RUNNING


@nb.njit(cache=True, inline="always")
def _eval_finish(cfg, pk, params, pkr, rparams, tree, dag, par, root_state, x, opts, k, start, solver, mix, vl, b):
    """The second half of a batch of ``k`` descents: the virtual losses removed, the exact leaves
    backed up, then each evaluated leaf expanded with its priors and backed up with
    ``(1 - mix) v + mix z`` (v the evaluator's value for the leaf's mover, z a playout's).
    (iterations recorded, status).  FULL_STATUS: no room for an expansion; once the storage has
    grown, call again with ``start`` = 1, which goes on with the evaluated leaves not yet done."""
    g = config_of_game(cfg)
    locked = is_locked(cfg)
    done = 0
    if start == 0:
        for i in range(k):
            virtual_loss_leaf(cfg, tree, dag, b.leaf[i], b.paths[i], b.depth[i], -1.0)
        for i in range(k):
            if b.kind[i] != LEAF_PLAYOUT:
                backup_step(cfg, pk, params, pkr, rparams, tree, dag, par, b.leaf[i], b.paths[i], b.depth[i],
                            b.value[i], x, b.plies[i], b.nplies[i], solver, opts, vl,
                            locked and solver and b.kind[i] == LEAF_TERMINAL)
                done += 1
    for i in range(k):
        if b.kind[i] != LEAF_PLAYOUT:
            continue
        node = b.leaf[i]
        q = position_of(cfg, dag, node)
        s = b.states[i]
        to_move = calls.to_move(g, s)
        if expand_with(cfg, pk, params, pkr, rparams, tree, dag, q, b.moves[i], b.counts[i], b.priors[i], to_move,
                       x, opts) != 0:
            return done, FULL_STATUS
        who = tree.mover[node]
        v = b.evals[i] if who == to_move else 1.0 - b.evals[i]
        value = v
        n_plies = b.nplies[i]
        if mix > 0.0:
            for j in range(s.shape[0]):
                x.s[j] = s[j]
            z, n_plies = playout_value(cfg, who, x.s, b.plies[i], n_plies, x.rng, opts)
            if not (0.0 <= z <= 1.0):
                return done, BAD_REWARD
            value = (1.0 - mix) * v + mix * z
        backup_step(cfg, pk, params, pkr, rparams, tree, dag, par, node, b.paths[i], b.depth[i], value, x, b.plies[i],
                    n_plies, solver, opts, vl, False)
        b.waiting[q] = 0
        b.kind[i] = -1  # (done: a call after growth goes on after it)
        done += 1
    return done, RUNNING


# ------------------------------------------------------------------------------------------------
# entry points: closures over the config's key (and a specialised loop's policy key)

#: the executors build() makes
EXECUTORS = ("single", "tree_worker", "leaf_master", "leaf_helper", "eval_descents", "eval_finish")
_BUILT: dict = {}


def build(executor: str, ckey: str, pkey: str | None = None):
    """The compiled entry point of ``executor`` for config key ``ckey`` (steps.config_key) and, for a
    specialised loop, the policy key ``pkey`` (bandits.registry.policy_key); made once per process,
    compiled once per machine (numba's disk cache)."""
    hit = _BUILT.get((executor, ckey, pkey))
    if hit is None:
        hit = _BUILT[(executor, ckey, pkey)] = track(_MAKERS[executor](ckey, pkey))
    return hit


def _make_single(ckey, pkey):
    if pkey is None:
        @nb.njit(cache=True, nogil=True, error_model="numpy")
        def single(tree, dag, par, root_state, pk, params, pkr, rparams, x, opts, n_iter, solver, early, max_depth):
            return _single(ckey, pk, borrowed(params), pkr, borrowed(rparams), borrowed(tree), borrowed(dag),
                           borrowed(par), borrowed(root_state), borrowed(x), borrowed(opts), n_iter, solver, early,
                           max_depth)
        return single

    @nb.njit(cache=True, nogil=True, error_model="numpy")
    def single_policy(tree, dag, par, root_state, pk, params, pkr, rparams, x, opts, n_iter, solver, early, max_depth):
        return _single(ckey, pkey, borrowed(params), pkr, borrowed(rparams), borrowed(tree), borrowed(dag),
                       borrowed(par), borrowed(root_state), borrowed(x), borrowed(opts), n_iter, solver, early,
                       max_depth)
    return single_policy


def _make_tree_worker(ckey, pkey):
    if pkey is None:
        @nb.njit(cache=True, nogil=True, error_model="numpy")
        def tree_worker(tree, dag, par, root_state, pk, params, pkr, rparams, x, opts, n_iter, solver, early,
                        max_depth, c_start, vl, ctl):
            return _tree_worker(ckey, pk, borrowed(params), pkr, borrowed(rparams), borrowed(tree), borrowed(dag),
                                borrowed(par), borrowed(root_state), borrowed(x), borrowed(opts), n_iter, solver, early,
                                max_depth, c_start, vl, borrowed(ctl))
        return tree_worker

    @nb.njit(cache=True, nogil=True, error_model="numpy")
    def tree_worker_policy(tree, dag, par, root_state, pk, params, pkr, rparams, x, opts, n_iter, solver, early,
                           max_depth, c_start, vl, ctl):
        return _tree_worker(ckey, pkey, borrowed(params), pkr, borrowed(rparams), borrowed(tree), borrowed(dag),
                            borrowed(par), borrowed(root_state), borrowed(x), borrowed(opts), n_iter, solver, early,
                            max_depth, c_start, vl, borrowed(ctl))
    return tree_worker_policy


def _make_leaf_master(ckey, pkey):
    if pkey is None:
        @nb.njit(cache=True, nogil=True, error_model="numpy")
        def leaf_master(tree, dag, par, root_state, pk, params, pkr, rparams, x, opts, n_iter, solver, early,
                        max_depth, states, values, rngs, plies, nplies, sync):
            return _leaf_master(ckey, pk, borrowed(params), pkr, borrowed(rparams), borrowed(tree), borrowed(dag),
                                borrowed(par), borrowed(root_state), borrowed(x), borrowed(opts), n_iter, solver, early,
                                max_depth, borrowed(states), borrowed(values), borrowed(rngs), borrowed(plies),
                                borrowed(nplies), borrowed(sync))
        return leaf_master

    @nb.njit(cache=True, nogil=True, error_model="numpy")
    def leaf_master_policy(tree, dag, par, root_state, pk, params, pkr, rparams, x, opts, n_iter, solver, early,
                           max_depth, states, values, rngs, plies, nplies, sync):
        return _leaf_master(ckey, pkey, borrowed(params), pkr, borrowed(rparams), borrowed(tree), borrowed(dag),
                            borrowed(par), borrowed(root_state), borrowed(x), borrowed(opts), n_iter, solver, early,
                            max_depth, borrowed(states), borrowed(values), borrowed(rngs), borrowed(plies),
                            borrowed(nplies), borrowed(sync))
    return leaf_master_policy


def _make_leaf_helper(ckey, pkey):
    @nb.njit(cache=True, nogil=True, error_model="numpy")
    def leaf_helper(k, tree, states, values, rngs, plies, nplies, sync, opts):
        return _leaf_helper(ckey, k, borrowed(tree), borrowed(states), borrowed(values), borrowed(rngs),
                            borrowed(plies), borrowed(nplies), borrowed(sync), borrowed(opts))
    return leaf_helper


def _make_eval_descents(ckey, pkey):
    if pkey is None:
        @nb.njit(cache=True, nogil=True, error_model="numpy")
        def eval_descents(tree, dag, par, root_state, pk, params, pkr, rparams, x, opts, want, solver, max_depth, vl,
                          b):
            return _eval_descents(ckey, pk, borrowed(params), pkr, borrowed(rparams), borrowed(tree), borrowed(dag),
                                  borrowed(par), borrowed(root_state), borrowed(x), borrowed(opts), want, solver,
                                  max_depth, vl, borrowed(b))
        return eval_descents

    @nb.njit(cache=True, nogil=True, error_model="numpy")
    def eval_descents_policy(tree, dag, par, root_state, pk, params, pkr, rparams, x, opts, want, solver, max_depth,
                             vl, b):
        return _eval_descents(ckey, pkey, borrowed(params), pkr, borrowed(rparams), borrowed(tree), borrowed(dag),
                              borrowed(par), borrowed(root_state), borrowed(x), borrowed(opts), want, solver, max_depth,
                              vl, borrowed(b))
    return eval_descents_policy


def _make_eval_finish(ckey, pkey):
    if pkey is None:
        @nb.njit(cache=True, nogil=True, error_model="numpy")
        def eval_finish(tree, dag, par, root_state, pk, params, pkr, rparams, x, opts, k, start, solver, mix, vl, b):
            return _eval_finish(ckey, pk, borrowed(params), pkr, borrowed(rparams), borrowed(tree), borrowed(dag),
                                borrowed(par), borrowed(root_state), borrowed(x), borrowed(opts), k, start, solver, mix,
                                vl, borrowed(b))
        return eval_finish

    @nb.njit(cache=True, nogil=True, error_model="numpy")
    def eval_finish_policy(tree, dag, par, root_state, pk, params, pkr, rparams, x, opts, k, start, solver, mix, vl,
                           b):
        return _eval_finish(ckey, pkey, borrowed(params), pkr, borrowed(rparams), borrowed(tree), borrowed(dag),
                            borrowed(par), borrowed(root_state), borrowed(x), borrowed(opts), k, start, solver, mix, vl,
                            borrowed(b))
    return eval_finish_policy


_MAKERS = {"single": _make_single, "tree_worker": _make_tree_worker, "leaf_master": _make_leaf_master,
           "leaf_helper": _make_leaf_helper, "eval_descents": _make_eval_descents, "eval_finish": _make_eval_finish}
