"""Transpositions: positions reached by different move orders share one node (the tree becomes a DAG).

``search(game, policy, iterations=N, transpositions=True)`` on a compiled game with a position key
kernel (``game.key_kernel(state) -> int64``: the Zobrist hash mixed with the player to move, the ko
point and the passes for Go and NoGo (a 64-bit hash: two positions share a key with probability
about 2**-64 per pair); exact keys from the bitboards for Connect Four and tic-tac-toe), or on a
Python game whose class defines ``__hash__`` over its position (:func:`python_key`; the same
steps in Python, :func:`run_transposed_python`).

Layout.  Rows of the tree arrays are *edges*: row c is the move ``move[c]`` from the position that
owns the block of children it belongs to (``parent[c]``, a canonical row), with that edge's
statistics (``stats[:, c]``: the iterations that took this move from that position).  Each row also
names the position it leads to, ``canon[c]``: its canonical row, the first row that reached that
position; the children block of a position (``first``, ``nchild``), its policy state (``pstate``)
and its visit count ``pvis`` live on its canonical row and are shared by every edge into it.  A hash
table (open addressing, ``tkeys`` / ``trows``, at least twice as many slots as rows) maps position
keys to canonical rows.

Backup rule (Childs, Brodeur & Kocsis 2008 call the family "UCT on a DAG"; this is the update along
the path only, with the statistics on the edges): an iteration records its result on each edge of
the path it descended, and counts one visit of each position on it (``pvis``).  Nothing is
propagated to other parents of a shared position, so no result is counted twice, and a position's
bandit sees, as its t, how many iterations reached it by any move order.  The invariant the tests
check: for every position P other than the root, ``pvis[P]`` = the sum of ``COUNT`` over the edges
into P; ``pvis[root]`` = the iterations; an expanded position's out-edges hold ``pvis[P] - 1``
visits (its first arrival ended there, as a leaf), the root's all of them.

Expansion at a position's second arrival (the root at once), as in the tree; when the child
chosen at an expansion is a position already in the table, the descent goes on from it, so every
arrival at a position but its first passes through one of its children.  A descent is cut at
``game.max_plies`` edges (a cycle is possible in Go through captures), and continues with a
playout.  MCTS-Solver works on the DAG: a proof belongs to a position (its canonical row), the
selection skips edges into proven positions, and proofs go up the path of the iteration that made
them (a position proven through one path serves every path into it).

RAVE / GRAVE, first-play urgency, priors and progressive widening work on the DAG as in the tree
(:func:`pick_view`, treepolicies.amaf, treepolicies.view): AMAF statistics live on the edges, as
the visits do, and an iteration credits the out-edges of each position it chose at
(:func:`treepolicies.amaf.amaf_update_path`, whatever path led there); the blend's N is the
position's visits, and GRAVE's reference is the closest position with enough visits on the
iteration's own path (:func:`grave_reference`); a position's children are sorted by prior at its
expansion; widening counts the position's visits (``pvis``); ``fpu=parent`` takes the position's
mean over its out-edges (:func:`first_play_urgency`: the rows into a position are other parents'
statistics).  Tree reuse keeps the positions reachable from the move played
(:func:`extract_subdag`).  A leaf evaluator works on the DAG too
(:func:`treepolicies.evaluate.run_evaluated_dag`): a new position is evaluated and expanded at its
first arrival (the AlphaZero way; without an evaluator, at its second), a batch's virtual losses
go on the path's edges and positions (:func:`virtual_loss_path`), and the backup is
:func:`backup_path`, so the invariant holds with the root's out-edges at ``pvis[root] - 1``.
Memory: 4 + 8 + 8 bytes per row more, plus 24 bytes per table slot (two slots per row).
"""
from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np

from bandits.kernels import record_row, select_row
from bandits.stats import COUNT, FIRST, SUM, record, refresh
from bandits.stats import ISQRT as ISQRT_ROW
from bandits.stats import MEAN as MEAN_ROW
from bandits.stats import SUMSQ as SUMSQ_ROW
from treepolicies.mcts.amaf import blend_with
from treepolicies.mcts.experience import child_rows
from treepolicies.mcts.atomics import lock, unlock
from treepolicies.mcts.options import FPU_INF, FPU_VALUE, O_FPU, O_FPU_MODE, O_RAVE, O_WIDEN_K
from treepolicies.mcts.view import prior_rows, widened

__all__ = ["DagArrays", "new_dag", "grow_dag", "dag_bytes_per_row", "lookup", "insert", "link", "mask_proven",
           "pick", "pick_view", "first_play_urgency", "grave_reference", "prove", "prove_path", "prove_path_locked", "backup_path",
           "virtual_loss_path", "root_proofs", "offers_hash", "python_key", "extract_subdag", "reroot_dag",
           "new_root"]


class DagArrays(NamedTuple):
    """The transposition arrays beside a tree's (module docstring)."""

    canon: np.ndarray   # (C,) int32   canonical row of the position each row leads to (-1: not linked yet)
    pvis: np.ndarray    # (C,) float64 visits of the position (on its canonical row)
    pkey: np.ndarray    # (C,) int64   key of the position (on its canonical row)
    tkeys: np.ndarray   # (H,) int64   hash table keys
    trows: np.ndarray   # (H,) int32   hash table rows (-1: empty slot)


def dag_bytes_per_row() -> int:
    """Bytes the transpositions add per row: canon, pvis, pkey and two table slots of 12 bytes."""
    return 4 + 8 + 8 + 2 * 12


def _slots(capacity: int) -> int:
    h = 2
    while h < 2 * capacity:
        h *= 2
    return h


def new_dag(capacity: int) -> DagArrays:
    h = _slots(capacity)
    return DagArrays(np.full(capacity, -1, np.int32), np.zeros(capacity), np.zeros(capacity, np.int64),
                     np.zeros(h, np.int64), np.full(h, -1, np.int32))


def grow_dag(dag: DagArrays, capacity: int, used: int) -> DagArrays:
    """The arrays for ``capacity`` rows, the first ``used`` kept and the table rebuilt."""
    new = new_dag(capacity)
    new.canon[:used] = dag.canon[:used]
    new.pvis[:used] = dag.pvis[:used]
    new.pkey[:used] = dag.pkey[:used]
    _rehash(new, used)
    return new


@nb.njit(cache=True)
def _slot(key, mask):
    h = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(h >> np.uint64(40)) & mask


@nb.njit(cache=True)
def lookup(dag, key):
    """The canonical row of ``key``, or -1."""
    mask = dag.tkeys.shape[0] - 1
    i = _slot(key, mask)
    while dag.trows[i] >= 0:
        if dag.tkeys[i] == key:
            return dag.trows[i]
        i = (i + 1) & mask
    return -1


@nb.njit(cache=True)
def insert(dag, key, row):
    mask = dag.tkeys.shape[0] - 1
    i = _slot(key, mask)
    while dag.trows[i] >= 0:
        i = (i + 1) & mask
    dag.tkeys[i] = key
    dag.trows[i] = row
    dag.pkey[row] = key


@nb.njit(cache=True)
def _rehash(dag, used):
    for r in range(used):
        if dag.canon[r] == r:
            insert(dag, dag.pkey[r], r)


@nb.njit(cache=True)
def link(dag, c, key):
    """canon[c] = the canonical row of the position (of ``key``) that edge c leads to; c itself if new."""
    q = lookup(dag, key)
    if q < 0:
        insert(dag, key, c)
        q = c
    dag.canon[c] = q


@nb.njit(cache=True)
def mask_proven(tree, dag, f, n, valid):
    """MCTS-Solver's mask on the DAG: valid[j] stays True only for edges f + j into positions not
    proven (read through canon); False, with valid reset to all True, when every edge is masked."""
    any_valid = False
    for j in range(n):
        q = dag.canon[f + j]
        ok = valid[j] and (q < 0 or tree.proven[q] < 0.0)
        valid[j] = ok
        any_valid = any_valid or ok
    if not any_valid:
        for j in range(n):
            valid[j] = True
    return any_valid


@nb.njit(cache=True, error_model="numpy")
def pick(pk, params, tree, dag, p, valid, rng, work, solver):
    """The edge the policy picks at position p (t = the position's visits); with the solver, edges
    into proven positions are masked out (all of them proven: the first edge)."""
    f = tree.first[p]
    n = tree.nchild[p]
    if solver and not mask_proven(tree, dag, f, n, valid):
        return f
    arm = select_row(pk, params, tree.pstate[p], tree.astate[:, f:f + n], tree.stats[:, f:f + n], valid[:n],
                     dag.pvis[p], rng, work[:n])
    if solver:
        for j in range(n):
            valid[j] = True
    if arm < 0 or arm >= n:
        return -1
    return f + arm


@nb.njit(cache=True)
def first_play_urgency(tree, p, opts):
    """The FIRST row's value at position p (treepolicies.view's rule on the DAG): a number, +inf, or
    with ``fpu=parent`` the position's mean for the player choosing there minus the reduction.  A
    position's statistics live on its out-edges (the rows into it belong to other parents), so its
    mean is that of the iterations that left it: sum of the out-edges' rewards / their visits (all
    seen by the chooser), 1/2 before any."""
    mode = opts[O_FPU_MODE]
    if mode == FPU_INF:
        return np.inf
    if mode == FPU_VALUE:
        return opts[O_FPU]
    f = tree.first[p]
    total, visits = 0.0, 0.0
    if f >= 0:
        for j in range(tree.nchild[p]):
            total += tree.stats[SUM, f + j]
            visits += tree.stats[COUNT, f + j]
    return (total / visits if visits > 0.0 else 0.5) - opts[O_FPU]


@nb.njit(cache=True)
def grave_reference(dag, path, depth, ref):
    """GRAVE's reference on the DAG: the closest position with at least ``ref`` visits on the path
    of this iteration, from the position reached by ``path[:depth]`` back to the root (the root if
    none has; treepolicies.amaf)."""
    for d in range(depth - 1, -1, -1):
        q = dag.canon[path[d]]
        if dag.pvis[q] >= ref:
            return q
    return 0


@nb.njit(cache=True, error_model="numpy")
def pick_view(pk, params, tree, dag, p, valid, rng, work, solver, opts, view, r, cmap):
    """:func:`pick` with RAVE / GRAVE, first-play urgency, priors and progressive widening
    (treepolicies.amaf, treepolicies.view): the policy sees the out-edges' statistics (RAVE-blended
    with the position's visits as N and ``r`` as GRAVE's reference) with the PRIOR and FIRST rows,
    and only the first ceil(k n^alpha) edges (n = the position's visits; edges in prior order)."""
    f = tree.first[p]
    n = tree.nchild[p]
    m = widened(dag.pvis[p], n, opts) if opts[O_WIDEN_K] > 0.0 else n
    if opts[O_RAVE] > 0.0:
        blend_with(tree, p, dag.pvis[p], r, opts, view, cmap)
    for j in range(n):
        valid[j] = j < m
        if opts[O_RAVE] <= 0.0:
            child_rows(tree, f + j, j, n, opts, view)
    if view.shape[0] > FIRST:
        prior_rows(tree, f, n, opts, view, first_play_urgency(tree, p, opts))
    if solver and not mask_proven(tree, dag, f, n, valid):
        return f
    arm = select_row(pk, params, tree.pstate[p], tree.astate[:, f:f + n], view[:, :n], valid[:n],
                     dag.pvis[p], rng, work[:n])
    for j in range(n):
        valid[j] = True
    if arm < 0 or arm >= n:
        return -1
    return f + arm


@nb.njit(cache=True)
def prove(tree, dag, q):
    """MCTS-Solver's rule (treepolicies.tree) at position q, reading its children's proofs through
    their positions: proven a win for the chooser if one child is, else with the best child value
    once every child is proven.  True if q is (now) proven."""
    f = tree.first[q]
    n = tree.nchild[q]
    if f < 0:
        return tree.proven[q] >= 0.0
    best = -1.0
    complete = True
    for j in range(n):
        r = dag.canon[f + j]
        v = tree.proven[r] if r >= 0 else -1.0
        if v < 0.0:
            complete = False
        elif v > best:
            best = v
    chooser = tree.mover[f]
    if best == 1.0 or complete:
        tree.proven[q] = best if tree.mover[q] == chooser else 1.0 - best
        return True
    return False


@nb.njit(cache=True, nogil=True)
def prove_path(tree, dag, path, depth):
    """After an iteration that reached a proven position: proofs go up its path ``path[:depth]``
    (:func:`prove` at each position that chose an edge of it) while they hold."""
    _prove_path(tree, dag, path, depth, tree.meta, False)


@nb.njit(cache=True, nogil=True)
def prove_path_locked(tree, dag, path, depth, locks):
    """:func:`prove_path` for tree parallelism: each position proven under its lock."""
    _prove_path(tree, dag, path, depth, locks, True)


@nb.njit(cache=True, nogil=True, inline="always")
def _prove_path(tree, dag, path, depth, locks, locked):
    for i in range(depth - 1, -1, -1):
        q = tree.parent[path[i]]
        if locked:
            lock(locks, q)
        held = tree.proven[q] >= 0.0 or prove(tree, dag, q)
        if locked:
            unlock(locks, q)
        if not held:
            break


@nb.njit(cache=True, error_model="numpy")
def backup_path(pk, params, pkr, rparams, rooted, tree, dag, path, depth, who, value):
    """The backup rule on the DAG (module docstring) for an iteration that descended the edges
    ``path[:depth]`` with result ``value`` for player ``who``: each edge records the result for the
    player who took it (its policy's record: ``pkr, rparams``, the root policy, at the root when
    ``rooted``), each position on the path counts one visit (``pvis``), and the root's row records
    the iteration."""
    stats, mover = tree.stats, tree.mover
    for i in range(depth):
        c = path[i]
        q = tree.parent[c]
        f = tree.first[q]
        n = tree.nchild[q]
        v = value if mover[c] == who else 1.0 - value
        if rooted and q == 0:
            record_row(pkr, rparams, tree.pstate[q], tree.astate[:, f:f + n], stats[:, f:f + n], c - f, v)
        else:
            record_row(pk, params, tree.pstate[q], tree.astate[:, f:f + n], stats[:, f:f + n], c - f, v)
        dag.pvis[dag.canon[c]] += 1.0
    dag.pvis[0] += 1.0
    record(stats, 0, value if mover[0] == who else 1.0 - value)


@nb.njit(cache=True)
def virtual_loss_path(tree, dag, path, depth, sign):
    """Add (sign = 1) or remove (sign = -1) a virtual loss on the DAG: one visit with reward 0 on
    each edge of ``path[:depth]`` and the root's row, and one visit of each position on the path
    (treepolicies.evaluate's batching, on the DAG's rows)."""
    stats = tree.stats
    for i in range(-1, depth):
        c = 0 if i < 0 else path[i]
        stats[COUNT, c] += sign
        refresh(stats, c)
        dag.pvis[0 if i < 0 else dag.canon[c]] += sign


def root_proofs(tree) -> None:
    """The root moves' proofs read through their positions (for the final move after a DAG search)."""
    f, n = int(tree.first[0]), int(tree.nchild[0])
    if f >= 0:
        for c in range(f, f + n):
            q = int(tree.dag.canon[c])
            if q >= 0:
                tree.proven[c] = tree.proven[q]


# -- a Python game's positions: its hash() ------------------------------------------------------------

def offers_hash(game) -> bool:
    """True when a game searched through its Python methods has a position key: a key kernel, or a
    class that defines ``__hash__`` (of its position: equal positions, equal hashes), not the
    identity hash every object has."""
    if getattr(game, "key_kernel", None) is not None and isinstance(getattr(game, "state", None), np.ndarray):
        return True
    return type(game).__hash__ not in (None, object.__hash__)


def python_key(game) -> int:
    """The position key of a game searched through its Python methods: its key kernel's where it
    has one (a compiled game searched with ``compiled=False``: the same keys as the compiled DAG
    loop), else ``hash(game)`` as a 64-bit integer (Python's hashes of tuples, strings and bytes are
    64-bit: two positions share a key with probability about 2**-64 per pair when the game hashes
    its whole position, e.g. ``hash((board, to_move))``)."""
    kernel = getattr(game, "key_kernel", None)
    if kernel is not None and isinstance(getattr(game, "state", None), np.ndarray):
        return int(kernel(game.state))
    return int(np.int64(hash(game)))


# -- tree reuse: the sub-DAG of a played move -----------------------------------------------------------

@nb.njit(cache=True)
def extract_subdag(src, sdag, edge, dst, ddag):
    """Copy the positions reachable from the position that root edge ``edge`` leads to into ``dst`` /
    ``ddag`` (that position becomes row 0); returns the rows copied, or -1 if ``dst`` is too small.

    Rows are edges, so each copied row keeps its edge's move, mover, statistics, policy arm state,
    AMAF rows and prior; a position's own data (children block, policy state, visits, key, proof)
    moves to its new canonical row, the first copied edge into it (breadth first).  Edges never
    linked stay unlinked.  The new root's statistics are its visits with the mean of the edge into
    it; the hash table is rebuilt.
    """
    cap = dst.parent.shape[0]
    q = sdag.canon[edge]
    if q < 0 or cap < 1:
        return -1
    with_amaf = src.amaf.shape[1] == src.parent.shape[0] and dst.amaf.shape[1] == cap
    with_prior = src.prior.shape[0] == src.parent.shape[0] and dst.prior.shape[0] == cap
    new_of = np.full(src.parent.shape[0], -1, np.int64)   # old canonical row -> new canonical row
    order = np.empty(cap, np.int64)                        # new canonical rows in BFS order
    # the root: position q
    new_of[q] = 0
    order[0] = 0
    old_pos = np.empty(cap, np.int64)                      # new canonical row -> old canonical row
    old_pos[0] = q
    dst.parent[0] = -1
    dst.move[0] = -1
    dst.mover[0] = src.mover[edge]
    n_root = sdag.pvis[q]
    for i in range(dst.stats.shape[0]):
        dst.stats[i, 0] = 0.0
    if n_root > 0.0:
        m = src.stats[MEAN_ROW, edge]
        dst.stats[COUNT, 0] = n_root
        dst.stats[SUM, 0] = m * n_root
        dst.stats[SUMSQ_ROW, 0] = src.stats[SUMSQ_ROW, edge] * n_root / max(src.stats[COUNT, edge], 1.0)
        dst.stats[MEAN_ROW, 0] = m
        dst.stats[ISQRT_ROW, 0] = 1.0 / np.sqrt(n_root)
    else:
        dst.stats[ISQRT_ROW, 0] = np.inf
    dst.astate[:, 0] = src.astate[:, edge]
    if with_amaf:
        dst.amaf[:, 0] = 0.0
    if with_prior:
        dst.prior[0] = 0.0
    ddag.canon[0] = 0
    size = 1
    queued = 1
    head = 0
    while head < queued:
        p_new = order[head]
        p_old = old_pos[p_new]
        head += 1
        # the position's own data
        dst.pstate[p_new, :] = src.pstate[p_old, :]
        dst.proven[p_new] = src.proven[p_old]
        ddag.pvis[p_new] = sdag.pvis[p_old]
        ddag.pkey[p_new] = sdag.pkey[p_old]
        f, n = src.first[p_old], src.nchild[p_old]
        dst.nchild[p_new] = n if f >= 0 else 0
        if f < 0:
            dst.first[p_new] = -1
            continue
        if size + n > cap:
            return -1
        dst.first[p_new] = size
        for j in range(n):
            c, r = f + j, size + j
            dst.parent[r] = p_new
            dst.move[r] = src.move[c]
            dst.mover[r] = src.mover[c]
            dst.stats[:, r] = src.stats[:, c]
            dst.astate[:, r] = src.astate[:, c]
            if with_amaf:
                dst.amaf[:, r] = src.amaf[:, c]
            if with_prior:
                dst.prior[r] = src.prior[c]
            dst.first[r] = -1
            dst.nchild[r] = 0
            dst.proven[r] = -1.0
            t = sdag.canon[c]
            if t < 0:
                ddag.canon[r] = -1
            elif new_of[t] >= 0:
                ddag.canon[r] = new_of[t]
            else:  # a position met for the first time: this row becomes its canonical row
                new_of[t] = r
                ddag.canon[r] = r
                old_pos[r] = t
                order[queued] = r
                queued += 1
        size += n
    dst.meta[0] = size
    _rehash(ddag, size)
    return size


def reroot_dag(tree, edge, new):
    """Fill ``new`` (an empty Tree of the same capacity) with the sub-DAG below root edge ``edge``
    of ``tree`` (treepolicies.search.reroot); returns False if there is none."""
    new.dag = new_dag(new.capacity)
    size = extract_subdag(tree.arrays, tree.dag, int(edge), new.arrays, new.dag)
    if size < 0:
        new.dag = None
        return False
    return True


def new_root(tree, key: int) -> None:
    """Give ``tree`` its transposition arrays, the root (row 0) linked under position key ``key``
    (a tree re-rooted for reuse keeps its own)."""
    if tree.dag is None:
        tree.dag = new_dag(tree.capacity)
        tree.dag.canon[0] = 0
        insert(tree.dag, int(key), 0)
