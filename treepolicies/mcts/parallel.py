"""The storages under locks: what tree parallelism's threads do to one shared tree or DAG (docs/parallel.md).

Tree parallelism (Chaslot, Winands & van den Herik 2008, "Parallel Monte-Carlo tree search"; the
virtual loss of Segal 2010 and AlphaGo) runs the iteration of :mod:`treepolicies.mcts.steps` in N
threads at once on one storage (the executor "tree" of :mod:`treepolicies.mcts.loops`), with these
rules for sharing:

* every row has a spinlock word (:mod:`treepolicies.mcts.atomics`); position q's lock (a tree
  node, or a DAG position's canonical row) guards the statistics and per-arm policy state of its
  children (columns ``first[q] : first[q] + nchild[q]``), its own policy state ``pstate[q]``, its
  expansion, its children's AMAF rows, its proof and, on the DAG, its visits ``pvis[q]``.  A
  thread holds one lock at a time (no deadlock);
* virtual loss: the child picked gets V visits with no reward at once (COUNT += V, SUM unchanged,
  MEAN and 1/sqrt(COUNT) recomputed), so the other threads see a worse, more visited child and
  spread out; ``pend[c]`` counts the descents in flight through c.  The backup removes the V visits
  and records the real one under the same lock.  The real visit count of c is
  ``COUNT[c] - V pend[c]``, read when c is picked (under its chooser's lock); a tree node is
  expanded at its second real visit (a DAG position at its second arrival: ``pvis`` holds no
  virtual visits);
* expansion (:func:`expand_locked`) under the node's lock: the rows come from a compare-and-swap
  on the row counter (``meta[0]``), are initialised, and are published by writing ``first[q]``
  last and releasing the lock, so no row is created twice and none lost;
* the DAG's hash table has one lock of its own (``par.table``): an edge is linked to its position
  (:func:`link_locked`) under it;
* ``ends[n]`` counts the iterations that ended at tree node n (a playout, a terminal or proven
  node), so that after the search every node's count = the sum of its children's counts +
  ``ends[n]`` (the invariant the tests check, with ``pend`` = 0).

With the solver a terminal leaf's proof is written under its parent's lock (the DAG: its own), and
proofs go up the path as in the single-threaded backup (a proof is a game-theoretic value: two
threads proving the same node write the same value).  Not deterministic: the threads' interleaving
decides which thread sees which statistics.
"""
from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from bandits.kernels import init_row, record_row
from bandits.stats import COUNT, record, refresh
from treepolicies.mcts.atomics import atomic_cas, atomic_load, lock, unlock
from treepolicies.mcts.dag import link
from treepolicies.mcts.tree import FULL, OK, try_prove, init_nodes

__all__ = ["ParArrays", "new_par", "grow_par", "no_par", "expand_locked", "backup_locked", "backup_path_locked",
           "link_locked", "undo", "leader_safe_locked"]


class ParArrays(NamedTuple):
    """Per-row arrays of a tree-parallel search (module docstring); 1-element placeholders in a
    single-threaded one (:func:`no_par`)."""

    locks: np.ndarray  # (C,) int32 spinlock words, 0 free
    pend: np.ndarray   # (C,) int32 descents in flight through the row (each added V visits)
    ends: np.ndarray   # (C,) int64 iterations that ended at the row
    table: np.ndarray  # (1,) int32 the DAG hash table's lock


def new_par(capacity: int) -> ParArrays:
    return ParArrays(np.zeros(capacity, np.int32), np.zeros(capacity, np.int32), np.zeros(capacity, np.int64),
                     np.zeros(1, np.int32))


def no_par() -> ParArrays:
    """The placeholders a single-threaded executor passes (nothing is locked or counted)."""
    return new_par(1)


def grow_par(par: ParArrays, capacity: int) -> ParArrays:
    """The arrays for ``capacity`` rows, the counts kept: ``ends``, and ``pend`` (the leaf evaluator's
    batch grows the storage while its descents are pending); no lock is held while it grows."""
    new = new_par(capacity)
    n = par.locks.shape[0]
    new.ends[:n] = par.ends
    new.pend[:n] = par.pend
    return new


@nb.njit(cache=True, nogil=True, error_model="numpy")
def expand_locked(tree, dag, q, moves, n, child_mover, pk, params, valid, pbuf, with_prior, dag_rows):
    """treepolicies.mcts.tree.expand for a node whose lock the caller holds: the rows from a CAS on
    meta[0]; with ``with_prior`` their priors from ``pbuf``, on a DAG (``dag_rows``) not linked yet."""
    meta = tree.meta
    cap = tree.parent.shape[0]
    while True:
        f = atomic_load(meta, 0)
        if f + n > cap:
            return FULL
        if atomic_cas(meta, 0, f, f + n) == f:
            break
    init_nodes(tree, f, n, q, child_mover)
    for j in range(n):
        tree.move[f + j] = moves[j]
        if with_prior:
            tree.prior[f + j] = pbuf[j]
        if dag_rows:
            dag.canon[f + j] = -1
    init_row(pk, params, tree.pstate[q], tree.astate[:, f:f + n], valid[:n])
    tree.nchild[q] = n
    tree.first[q] = f
    return OK


@nb.njit(cache=True, nogil=True, error_model="numpy")
def backup_locked(tree, leaf, value, pk, params, pkr, rparams, rooted, solver, vl, par, mark):
    """treepolicies.mcts.tree.backup with the locks: each edge p -> c under p's lock removes c's
    virtual loss and records the result; ``mark``: the leaf is terminal, proven with ``value`` first.
    ``ends[leaf]`` += 1 under the leaf's parent's lock (the root's own for the root)."""
    parent, mover, proven, stats, first, nchild = (tree.parent, tree.mover, tree.proven, tree.stats, tree.first,
                                                   tree.nchild)
    locks, pend, ends = par.locks, par.pend, par.ends
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
        if rooted and p == 0:
            record_row(pkr, rparams, tree.pstate[p], tree.astate[:, f:f + n], stats[:, f:f + n], node - f, v)
        else:
            record_row(pk, params, tree.pstate[p], tree.astate[:, f:f + n], stats[:, f:f + n], node - f, v)
        if mover[p] != mover[node]:
            v = 1.0 - v
        if proving and proven[p] < 0.0:
            proving = try_prove(tree, p)
        if parent[p] < 0:
            record(stats, p, v)
        unlock(locks, p)
        node = p


@nb.njit(cache=True, nogil=True, error_model="numpy")
def backup_path_locked(pk, params, pkr, rparams, rooted, tree, dag, par, path, depth, who, value, vl, mark, solver):
    """treepolicies.mcts.dag.backup_path with the locks: each edge c = path[i] under the lock of the
    position that chose it removes c's virtual loss and records the result for the player who took
    it; each position's visit under its own lock; ``mark``: the leaf position is proven with ``value``."""
    stats, mover, locks, pend = tree.stats, tree.mover, par.locks, par.pend
    if mark:
        q = dag.canon[path[depth - 1]] if depth > 0 else 0
        lock(locks, q)
        tree.proven[q] = value
        unlock(locks, q)
    for i in range(depth):
        c = path[i]
        q = tree.parent[c]
        f = tree.first[q]
        n = tree.nchild[q]
        v = value if mover[c] == who else 1.0 - value
        lock(locks, q)
        stats[COUNT, c] -= vl
        pend[c] -= 1
        if rooted and q == 0:
            record_row(pkr, rparams, tree.pstate[q], tree.astate[:, f:f + n], stats[:, f:f + n], c - f, v)
        else:
            record_row(pk, params, tree.pstate[q], tree.astate[:, f:f + n], stats[:, f:f + n], c - f, v)
        unlock(locks, q)
        r = dag.canon[c]
        lock(locks, r)
        dag.pvis[r] += 1.0
        unlock(locks, r)
    lock(locks, 0)
    dag.pvis[0] += 1.0
    record(stats, 0, value if mover[0] == who else 1.0 - value)
    unlock(locks, 0)


@nb.njit(cache=True, nogil=True)
def link_locked(dag, table, c, key):
    """treepolicies.mcts.dag.link under the hash table's lock (another thread may have linked c)."""
    lock(table, 0)
    if dag.canon[c] < 0:
        link(dag, c, key)
    unlock(table, 0)


@nb.njit(cache=True, nogil=True)
def undo(tree, path, depth, vl, par):
    """Remove the virtual losses of a descent that took the rows ``path[:depth]`` and stopped (each
    under the lock of the row's chooser, ``parent``)."""
    stats, locks, pend = tree.stats, par.locks, par.pend
    for i in range(depth - 1, -1, -1):
        c = path[i]
        p = tree.parent[c]
        lock(locks, p)
        stats[COUNT, c] -= vl
        pend[c] -= 1
        refresh(stats, c)
        unlock(locks, p)


@nb.njit(cache=True, nogil=True)
def leader_safe_locked(tree, remaining, vl, par):
    """treepolicies.mcts.tree.leader_is_safe on the real counts (COUNT - V pend), under the root's lock."""
    locks, pend = par.locks, par.pend
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
