"""Parallel MCTS on one machine: tree parallelism with virtual loss, and leaf parallelism (docs/parallel.md).

``search(game, policy, ..., threads=N, parallel="tree"|"root"|"leaf", virtual_loss=V)``; with
``threads=1`` (the default) the search is the single-threaded one, unchanged.  Root parallelism (N
independent trees) lives in :mod:`treepolicies.search`; this module holds the two modes that share
one tree, each a compiled loop per game (cached on disk like :mod:`treepolicies.compiled`'s) run by
N Python threads at once: the loops are compiled ``nogil=True``, so the threads run in parallel.

Tree parallelism (Chaslot, Winands & van den Herik 2008, "Parallel Monte-Carlo tree search"; the
virtual loss of Segal 2010 and AlphaGo).  N threads run whole iterations on the one tree; an
iteration is the single-threaded one (selection, expansion at a node's second visit, a random
playout, backup), with these rules for sharing:

* every node has a spinlock word (:mod:`treepolicies.atomics`); node p's lock guards the
  statistics and per-arm policy state of p's children (columns ``first[p] : first[p]+nchild[p]``),
  p's own policy state ``pstate[p]``, its expansion and the proofs of its children.  A thread holds
  one lock at a time (no deadlock): while it selects p's child (policy index reads and any policy
  state the select kernel advances), while it expands p, and while it backs up one edge p -> c;
* virtual loss: the selected child gets V visits with no reward at once (COUNT += V, SUM unchanged,
  MEAN and 1/sqrt(COUNT) recomputed), so the other threads see a worse, more visited child and
  spread out; ``pend[c]`` counts the descents in flight through c.  The backup removes the V visits
  and records the real one under the same lock.  The real visit count of c is
  ``COUNT[c] - V pend[c]``, read when c is selected (under p's lock); expansion at the second
  real visit (a node that had real visits when selected);
* expansion under the node's lock: the node is re-checked under it, its children are allocated by a
  compare-and-swap on the node counter (``meta[0]``), initialised, and published by the unlock, so
  no node is created twice and none lost; a thread that finds the node expanded selects a child;
* the root's own count is updated under the root's lock; a node's ``t`` (its own count, written
  under its parent's lock) is read without it (an aligned 8-byte read: it may miss iterations in
  flight);
* ``ends[n]`` counts the iterations of this search that ended at node n (a leaf's playout, a
  terminal or proven node), so that, after the search, every node's count = the sum of its
  children's counts + ``ends[n]`` (the invariant tests/test_parallel.py checks, with ``pend`` = 0).

With the solver a terminal leaf's proof is written under its parent's lock, and proofs go up the
path as in the single-threaded backup (a proof is a game-theoretic value: two threads proving the
same node write the same value).  The early stop of a robust final move is checked after every
8th iteration of each thread, under the root's lock, with the real counts and the iterations still
to come (so it never stops too early, and at most 8 iterations a thread late).
Not deterministic: the threads' interleaving decides which thread sees which statistics.

Leaf parallelism (Cazenave & Jouandeau 2007).  One thread descends and expands exactly as the
single-threaded loop does; then N playouts start from the leaf at once, one per thread (slot k
plays with stream k), and the master backs up the N results in slot order (each is an iteration).
The helpers wait for the next leaf spinning (yielding the core after a few hundred tries); a slot
no helper has taken when the master's own playout is done is played by the master (each slot is
claimed by a compare-and-swap), so a helper waiting for a core on a busy machine costs little.  A
terminal or proven leaf is backed up once, without playouts.  Because every slot has its own
stream and the order of the backups is fixed, leaf parallelism gives the same result for the same
seed and thread count (only its speed depends on the machine).

Streams: with T threads the search's stream (its ``seed``) is used as thread 0's and T - 1 further
streams come from ``stream.spawn()`` in order, for threads (leaf: slots) 1..T-1; root parallelism
spawns T streams, one per tree (treepolicies.search).
"""
from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numba as nb
import numpy as np

from bandits.compiling import notice, track
from bandits.kernels import init_row, record_row
from bandits.stats import COUNT, record, refresh
from treepolicies.atomics import atomic_add, atomic_cas, atomic_load, atomic_xchg, cpu_yield, lock, unlock
from treepolicies.compiled import (BAD_ARM, BAD_REWARD, EARLY, FULL_STATUS, PROVEN, RUNNING, _GAMES, _legal,
                                   _play, _playout, _result, _terminal, _to_move, game_key)
from treepolicies.tree import (FULL, NO_CHILD, OK, _try_prove, backup, descend, expand, init_nodes, leader_is_safe,
                               mark_terminal, select_child, should_expand)

__all__ = ["MODES", "MAX_THREADS", "MAX_VIRTUAL_LOSS", "check_parallel", "ParArrays", "new_par", "grow_par",
           "make_tree_loop", "make_leaf_loop", "run_tree_parallel", "run_leaf_parallel"]

MODES = ("tree", "root", "leaf")
#: threads of one search: at most this many (more than the cores only time-slices them)
MAX_THREADS = 256
#: virtual loss: visits (an integer) added to a child while a descent through it is in flight
MAX_VIRTUAL_LOSS = 1000
SPINS_BEFORE_YIELD = 200

#: slots of the control array of one tree-parallel run (iterations claimed, the stop status)
C_CLAIMED, C_STOP = 0, 2
#: slots of the leaf-parallel sync array: generation, the leaf's mover, quit; slot k's claim at L_CLAIM + k
#: (0 free, 1 taken, 2 done)
L_GEN, L_MOVER, L_QUIT, L_CLAIM = 0, 1, 2, 8


def check_parallel(threads, parallel, virtual_loss):
    """(threads, parallel, virtual_loss) checked: ValueError naming the argument and its range."""
    if isinstance(threads, (bool, np.bool_)) or not isinstance(threads, (int, np.integer)) \
            or not 1 <= threads <= MAX_THREADS:
        raise ValueError(f"threads must be an integer in 1..{MAX_THREADS}, got {threads!r}")
    if parallel not in MODES:
        raise ValueError(f"parallel must be one of {', '.join(MODES)}, got {parallel!r}")
    ok = not isinstance(virtual_loss, (bool, np.bool_)) and isinstance(virtual_loss, (int, float, np.integer,
                                                                                      np.floating))
    if ok:
        ok = math.isfinite(float(virtual_loss)) and float(virtual_loss).is_integer() \
            and 0 <= virtual_loss <= MAX_VIRTUAL_LOSS
    if not ok:
        raise ValueError(f"virtual_loss must be an integer in 0..{MAX_VIRTUAL_LOSS}, got {virtual_loss!r}")
    return int(threads), parallel, int(virtual_loss)


class ParArrays(NamedTuple):
    """Per-node arrays of a tree-parallel search (module docstring)."""

    locks: np.ndarray  # (C,) int32 spinlock words, 0 free
    pend: np.ndarray   # (C,) int32 descents in flight through the node (each added V visits)
    ends: np.ndarray   # (C,) int64 iterations of this search that ended at the node


def new_par(capacity: int) -> ParArrays:
    return ParArrays(np.zeros(capacity, np.int32), np.zeros(capacity, np.int32), np.zeros(capacity, np.int64))


def grow_par(par: ParArrays, capacity: int) -> ParArrays:
    new = new_par(capacity)
    n = par.locks.shape[0]
    new.ends[:n] = par.ends  # (locks and pending descents are all zero between runs)
    return new


# ---------------------------------------------------------------------------------------------
# tree kernels under locks


@nb.njit(cache=True, nogil=True)
def _undo(tree, node, vl, locks, pend):
    """Remove the virtual losses of a descent that stopped at ``node`` (each under its parent's lock)."""
    parent, stats = tree.parent, tree.stats
    while parent[node] >= 0:
        p = parent[node]
        lock(locks, p)
        stats[COUNT, node] -= vl
        pend[node] -= 1
        refresh(stats, node)
        unlock(locks, p)
        node = p


@nb.njit(cache=True, nogil=True, error_model="numpy")
def _expand_locked(tree, node, moves, n, child_mover, pk, params, valid):
    """expand() for a node whose lock the caller holds: the rows come from a CAS on meta[0]."""
    meta = tree.meta
    cap = tree.parent.shape[0]
    while True:
        f = atomic_load(meta, 0)
        if f + n > cap:
            return FULL
        if atomic_cas(meta, 0, f, f + n) == f:
            break
    init_nodes(tree, f, n, node, child_mover)
    for j in range(n):
        tree.move[f + j] = moves[j]
    init_row(pk, params, tree.pstate[node], tree.astate[:, f:f + n], valid[:n])
    tree.nchild[node] = n
    tree.first[node] = f
    return OK


@nb.njit(cache=True, nogil=True, error_model="numpy")
def _backup_locked(tree, leaf, value, pk, params, solver, vl, locks, pend, mark, ends):
    """backup() with the locks: each edge p -> c under p's lock removes c's virtual loss and records
    the result (tree.backup's rule); ``mark``: the leaf is terminal, proven with ``value`` first.
    ``ends[leaf]`` += 1 under the leaf's parent's lock (the root's own for the root)."""
    parent, mover, proven, stats, first, nchild = (tree.parent, tree.mover, tree.proven, tree.stats, tree.first,
                                                   tree.nchild)
    node = leaf
    v = value
    if parent[leaf] < 0:  # the root itself (proven, or a root without room for its children)
        lock(locks, leaf)
        record(stats, leaf, v)
        ends[leaf] += 1
        unlock(locks, leaf)
        return
    proving = solver and (mark or proven[leaf] >= 0.0)
    while parent[node] >= 0:
        p = parent[node]
        lock(locks, p)
        if node == leaf:
            ends[leaf] += 1
            if mark:
                proven[leaf] = value
        f = first[p]
        n = nchild[p]
        stats[COUNT, node] -= vl
        pend[node] -= 1
        record_row(pk, params, tree.pstate[p], tree.astate[:, f:f + n], stats[:, f:f + n], node - f, v)
        if mover[p] != mover[node]:
            v = 1.0 - v
        if proving and proven[p] < 0.0:
            proving = _try_prove(tree, p)
        if parent[p] < 0:
            record(stats, p, v)
        unlock(locks, p)
        node = p


@nb.njit(cache=True, nogil=True)
def _leader_safe_locked(tree, remaining, vl, locks, pend):
    """leader_is_safe() on the real counts (COUNT - V pend), under the root's lock."""
    lock(locks, 0)
    f = tree.first[0]
    n = tree.nchild[0]
    safe = f >= 0
    if f >= 0 and n >= 2:
        a = -1.0
        b = -1.0
        for j in range(f, f + n):
            c = tree.stats[COUNT, j] - vl * pend[j]
            if c > a:
                b = a
                a = c
            elif c > b:
                b = c
        safe = a - b > remaining
    unlock(locks, 0)
    return safe


@nb.njit(cache=True, nogil=True)
def _stop(ctl, status):
    atomic_cas(ctl, C_STOP, 0, status)


# ---------------------------------------------------------------------------------------------
# the compiled loops


@nb.njit(cache=True, inline="always")
def _tree_worker(key, pk, tree, root_state, params, valid, rng, work, moves, s, n_iter, solver, early, c_start,
                 vl, locks, pend, ends, ctl):
    """One thread of a tree-parallel run (module docstring): iterations until ``ctl`` says stop or
    ``n_iter`` iterations are claimed by all threads together."""
    parent, first, mover, proven, stats, move = (tree.parent, tree.first, tree.mover, tree.proven, tree.stats,
                                                 tree.move)
    mine = 0  # iterations this thread completed
    while atomic_load(ctl, C_STOP) == 0:
        if solver and proven[0] >= 0.0:
            _stop(ctl, PROVEN)
            break
        if atomic_add(ctl, C_CLAIMED, 1) >= n_iter:
            break
        s[:] = root_state
        node = 0
        status = RUNNING
        value = 0.0
        mark = False
        seen = 0.0
        while True:  # selection (and expansion), one node's lock at a time
            lock(locks, node)
            if solver and proven[node] >= 0.0:
                value = proven[node]
                unlock(locks, node)
                break
            if first[node] < 0:
                if _terminal(key, s):
                    unlock(locks, node)
                    value = _result(key, s, mover[node])
                    mark = solver
                    break
                if parent[node] >= 0 and seen <= 0.0:
                    unlock(locks, node)  # a first visit: the playout starts here
                    _playout(key, s, rng)
                    value = _result(key, s, mover[node])
                    break
                n = _legal(key, s, moves)
                if _expand_locked(tree, node, moves, n, _to_move(key, s), pk, params, valid) == FULL:
                    unlock(locks, node)
                    status = FULL_STATUS
                    break
            child = select_child(tree, node, pk, params, valid, rng, work, solver)
            if child == NO_CHILD:
                unlock(locks, node)
                status = BAD_ARM
                break
            seen = stats[COUNT, child] - vl * pend[child]  # its real visits, read under the lock that guards them
            if vl > 0:
                stats[COUNT, child] += vl
                refresh(stats, child)
            pend[child] += 1
            unlock(locks, node)
            _play(key, s, move[child])
            node = child
        if status == RUNNING and not (0.0 <= value <= 1.0):
            status = BAD_REWARD
        if status != RUNNING:
            _undo(tree, node, vl, locks, pend)
            _stop(ctl, status)
            break
        _backup_locked(tree, node, value, pk, params, solver, vl, locks, pend, mark, ends)
        mine += 1
        if solver and proven[0] >= 0.0:
            _stop(ctl, PROVEN)
        elif early >= 0 and (mine & 7) == 0 and _leader_safe_locked(tree, early - (stats[COUNT, 0] - c_start), vl,
                                                                      locks, pend):
            _stop(ctl, EARLY)  # (checked every 8th iteration of a thread: a stop never comes too early)
    return mine


@nb.njit(cache=True, inline="always")
def _leaf_master(key, pk, tree, root_state, params, valid, rng, work, moves, n_iter, solver, early, states, values,
                 rngs, sync):
    """Thread 0 of a leaf-parallel run: descents, expansions, playout slot 0 and every backup.

    Slot k >= 1 of a leaf is claimed (CAS 0 -> 1 on its claim word) by helper k or, if the helper
    has not taken it when slot 0 is done, by the master itself; either plays it with stream
    ``rngs[k]`` from ``states[k]``, so the result does not depend on who played it (and a busy
    machine, whose helper threads wait for a core, costs little)."""
    move, mover, proven, path = tree.move, tree.mover, tree.proven, tree.path
    s = states[0]
    slots = states.shape[0]
    done = 0
    status = RUNNING
    while done < n_iter:
        if solver and proven[0] >= 0.0:
            status = PROVEN
            break
        node, depth = descend(tree, pk, params, valid, rng, work, solver, path)
        if node < 0:
            status = BAD_ARM
            break
        s[:] = root_state
        for i in range(depth):
            _play(key, s, path[i])
        if solver and proven[node] >= 0.0:
            backup(tree, node, proven[node], pk, params, solver)
            done += 1
        else:
            if not _terminal(key, s) and should_expand(tree, node):
                n = _legal(key, s, moves)
                if expand(tree, node, moves, n, _to_move(key, s), pk, params, valid) == FULL:
                    status = FULL_STATUS
                    break
                node = select_child(tree, node, pk, params, valid, rng, work, solver)
                if node < 0:
                    status = BAD_ARM
                    break
                _play(key, s, move[node])
            if _terminal(key, s):
                value = _result(key, s, mover[node])
                if not (0.0 <= value <= 1.0):
                    status = BAD_REWARD
                    break
                if solver:
                    mark_terminal(tree, node, value)
                backup(tree, node, value, pk, params, solver)
                done += 1
            else:
                m = min(slots, n_iter - done)
                who = mover[node]
                for k in range(1, m):
                    states[k, :] = s
                sync[L_MOVER] = who
                for k in range(1, slots):  # (seq_cst: the states and the mover above are visible first)
                    atomic_xchg(sync, L_CLAIM + k, 0 if k < m else 2)
                atomic_add(sync, L_GEN, 1)
                _playout(key, s, rng)
                values[0] = _result(key, s, who)
                for k in range(1, m):  # the slots no helper has taken yet
                    if atomic_cas(sync, L_CLAIM + k, 0, 1) == 0:
                        _playout(key, states[k], rngs[k])
                        values[k] = _result(key, states[k], who)
                        atomic_xchg(sync, L_CLAIM + k, 2)
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
                    backup(tree, node, values[k], pk, params, solver)
                    done += 1
                    if early >= 0 and leader_is_safe(tree, early - done):
                        break
        if early >= 0 and leader_is_safe(tree, early - done):
            status = EARLY
            break
    atomic_xchg(sync, L_QUIT, 1)
    atomic_add(sync, L_GEN, 1)
    return done, status


@nb.njit(cache=True, inline="always")
def _leaf_helper(key, k, states, values, rngs, sync):
    """Slot k (>= 1) of a leaf-parallel run: a playout from each new leaf the master publishes,
    unless the master took the slot first (its claim word, _leaf_master)."""
    seen = 0  # (the driver zeroes sync before the threads start)
    s = states[k]
    rng = rngs[k]
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
            _playout(key, s, rng)
            values[k] = _result(key, s, sync[L_MOVER])
            atomic_xchg(sync, L_CLAIM + k, 2)


_LOOPS: dict = {}


def _policy_key(policy):
    if policy is None:
        return None
    from bandits.registry import policy_key

    pkey, python = policy_key(policy)
    return None if python else pkey


def make_tree_loop(kernels, policy=None):
    """The compiled thread body of tree parallelism for a game (``policy``: specialised, as make_loop)."""
    pkey = _policy_key(policy)
    loop = _LOOPS.get(("tree", kernels, pkey))
    if loop is None:
        key = game_key(kernels)
        _GAMES[key] = kernels
        loop = track(_build_tree(key, pkey))
        _LOOPS[("tree", kernels, pkey)] = loop
    return loop


def make_leaf_loop(kernels, policy=None):
    """(master, helper): the compiled thread bodies of leaf parallelism for a game."""
    pkey = _policy_key(policy)
    loops = _LOOPS.get(("leaf", kernels, pkey))
    if loops is None:
        key = game_key(kernels)
        _GAMES[key] = kernels
        loops = tuple(track(f) for f in _build_leaf(key, pkey))
        _LOOPS[("leaf", kernels, pkey)] = loops
    return loops


def _build_tree(key, pkey):
    if pkey is None:
        @nb.njit(cache=True, nogil=True, error_model="numpy")
        def tree_worker(tree, root_state, pk, params, valid, rng, work, moves, s, n_iter, solver, early, c_start, vl,
                        locks, pend, ends, ctl):
            return _tree_worker(key, pk, tree, root_state, params, valid, rng, work, moves, s, n_iter, solver, early,
                                c_start, vl, locks, pend, ends, ctl)
        return tree_worker

    @nb.njit(cache=True, nogil=True, error_model="numpy")
    def tree_worker_policy(tree, root_state, pk, params, valid, rng, work, moves, s, n_iter, solver, early, c_start,
                           vl, locks, pend, ends, ctl):
        return _tree_worker(key, pkey, tree, root_state, params, valid, rng, work, moves, s, n_iter, solver, early,
                            c_start, vl, locks, pend, ends, ctl)
    return tree_worker_policy


def _build_leaf(key, pkey):
    @nb.njit(cache=True, nogil=True, error_model="numpy")
    def leaf_helper(k, states, values, rngs, sync):
        return _leaf_helper(key, k, states, values, rngs, sync)

    if pkey is None:
        @nb.njit(cache=True, nogil=True, error_model="numpy")
        def leaf_master(tree, root_state, pk, params, valid, rng, work, moves, n_iter, solver, early, states, values,
                        rngs, sync):
            return _leaf_master(key, pk, tree, root_state, params, valid, rng, work, moves, n_iter, solver, early,
                                states, values, rngs, sync)
        return leaf_master, leaf_helper

    @nb.njit(cache=True, nogil=True, error_model="numpy")
    def leaf_master_policy(tree, root_state, pk, params, valid, rng, work, moves, n_iter, solver, early, states,
                           values, rngs, sync):
        return _leaf_master(key, pkey, tree, root_state, params, valid, rng, work, moves, n_iter, solver, early,
                            states, values, rngs, sync)
    return leaf_master_policy, leaf_helper


# ---------------------------------------------------------------------------------------------
# Python drivers (chunks between which the tree may grow and the clock is read)


class _Scratch:
    """One thread's scratch arrays."""

    def __init__(self, game, stream):
        m = max(1, int(game.max_moves))
        self.valid, self.work, self.moves = np.ones(m, np.bool_), np.empty(m), np.empty(m, np.int64)
        self.s = np.empty_like(game.state)
        self.rng = stream.state


#: what compile_parallel has compiled (or loaded) in this process
_READY: set = set()


def compile_parallel(game, tree, policy, solver, parallel, specialize) -> None:
    """Compile (or load) the loops of a ``parallel`` search before its clock starts."""
    pk = policy.kernels
    rng = np.array([1, 0, 0, 0], np.uint64)
    m = max(1, int(game.max_moves))
    name = getattr(game, "name", type(game).__name__)
    pol = policy if specialize else None
    ready = (parallel, game.kernels, _policy_key(pol), pk, bool(solver), game.state.dtype)
    if ready in _READY:  # (a player searches every move: compile-check each loop once)
        return
    if parallel == "tree":
        loop = make_tree_loop(game.kernels, pol)
        par = new_par(tree.capacity)
        with notice(f"the tree-parallel search loop for {name}"):
            loop(tree.arrays, game.state.copy(), pk, policy.params, np.ones(m, np.bool_), rng, np.empty(m),
                 np.empty(m, np.int64), game.state.copy(), 0, bool(solver), -1, 0.0, 1.0, par.locks, par.pend,
                 par.ends, np.zeros(4, np.int64))
    else:
        master, helper = make_leaf_loop(game.kernels, pol)
        states = np.empty((2,) + game.state.shape, game.state.dtype)
        sync = np.zeros(L_CLAIM + 2, np.int64)
        rngs = np.ones((2, 4), np.uint64)
        with notice(f"the leaf-parallel search loop for {name}"):
            sync[L_QUIT] = 1
            sync[L_GEN] = 1
            helper(1, states, np.zeros(2), rngs, sync)  # returns at once (quit)
            sync[:] = 0
            # slots=1: the master never waits for a helper
            master(tree.arrays, game.state.copy(), pk, policy.params, np.ones(m, np.bool_), rng, np.empty(m),
                   np.empty(m, np.int64), 0, bool(solver), -1, states[:1], np.zeros(1), rngs[:1], sync)
    _READY.add(ready)


def _chunked(step, iterations, deadline, grow, threads):
    """The driver's loop: ``step(chunk, left) -> (n, status)``; grows the tree when full."""
    done = 0
    first = True
    chunk = 64 * threads if deadline is not None else iterations
    while True:
        if iterations is not None:
            chunk = min(chunk, iterations - done)
            if chunk <= 0:
                return done, "iterations"
        if deadline is not None and time.perf_counter() >= deadline and not first:
            return done, "seconds"
        first = False  # (one chunk runs whatever the clock says: a search makes at least one iteration)
        t0 = time.perf_counter()
        n, status = step(chunk, iterations - done if iterations is not None else -1)
        done += n
        if status == FULL_STATUS:
            if not grow():
                return done, "node_cap"
        elif status in (BAD_ARM, BAD_REWARD):
            return done, status
        elif status == EARLY:
            return done, "early"
        elif status == PROVEN:
            return done, "proven"
        elif deadline is not None and time.perf_counter() - t0 < 0.005:
            chunk *= 2


def run_tree_parallel(game, tree, policy, streams, iterations, deadline, solver, early, node_cap, vl, specialize,
                      grow):
    """Tree parallelism (module docstring) with one thread per stream; returns (iterations, reason or
    a BAD_* status).  ``tree.par`` holds the per-node arrays afterwards (``ends``: this search's)."""
    threads = len(streams)
    loop = make_tree_loop(game.kernels, policy if specialize else None)
    pk, params = policy.kernels, policy.params
    scratch = [_Scratch(game, st) for st in streams]
    root_state = game.state.copy()
    tree.par = new_par(tree.capacity)
    ctl = np.zeros(4, np.int64)

    def step(chunk, left):
        if tree.par.locks.shape[0] != tree.capacity:
            tree.par = grow_par(tree.par, tree.capacity)
        par = tree.par
        ctl[:] = 0
        c_start = float(tree.stats[COUNT, 0])
        left = left if early else -1
        arrays = tree.arrays
        futures = [pool.submit(loop, arrays, root_state, pk, params, sc.valid, sc.rng, sc.work, sc.moves, sc.s, chunk,
                               bool(solver), left, c_start, float(vl), par.locks, par.pend, par.ends, ctl)
                   for sc in scratch]
        done = sum(int(f.result()) for f in futures)
        return done, int(ctl[C_STOP])

    with ThreadPoolExecutor(threads, thread_name_prefix="banditree-tree") as pool:
        return _chunked(step, iterations, deadline, grow, threads)


def run_leaf_parallel(game, tree, policy, streams, iterations, deadline, solver, early, node_cap, specialize, grow):
    """Leaf parallelism (module docstring): slot k plays with streams[k]; returns (iterations, reason)."""
    slots = len(streams)
    master, helper = make_leaf_loop(game.kernels, policy if specialize else None)
    pk, params = policy.kernels, policy.params
    sc = _Scratch(game, streams[0])
    root_state = game.state.copy()
    states = np.empty((slots,) + game.state.shape, game.state.dtype)
    values = np.zeros(slots)
    rngs = np.stack([st.state for st in streams])
    sync = np.zeros(L_CLAIM + slots, np.int64)

    def step(chunk, left):
        sync[:] = 0
        futures = [pool.submit(helper, k, states, values, rngs, sync) for k in range(1, slots)]
        try:
            n, status = master(tree.arrays, root_state, pk, params, sc.valid, sc.rng, sc.work, sc.moves, chunk,
                               bool(solver), left if early else -1, states, values, rngs, sync)
        finally:
            sync[L_QUIT] = 1
            sync[L_GEN] += 1
            for f in futures:
                f.result()
        return n, status

    with ThreadPoolExecutor(max(1, slots - 1), thread_name_prefix="banditree-leaf") as pool:
        result = _chunked(step, iterations, deadline, grow, 1)
    for k in range(1, slots):  # (slot k advanced its row of rngs; slot 0 the search's own stream)
        streams[k].state[:] = rngs[k]
    return result
