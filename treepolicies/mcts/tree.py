"""The search tree as arrays, and the compiled kernels that select, expand and back up on it.

The tree is a struct of arrays (as in DeepMind's mctx), passed to compiled code as one named
record, :class:`TreeArrays` (``Tree.arrays``; compiled code reads its fields by name).  Node 0 is
the root.  With ``C`` the capacity (nodes), ``S = max(1, state_width)``
and ``A = max(1, arm_state_width)`` of the node policy:

    parent  (C,) int32      parent node (-1 for the root)
    move    (C,) int64      move that leads from the parent into the node
    first   (C,) int32      first child (-1: not expanded); children are contiguous
    nchild  (C,) int32      number of children
    mover   (C,) int8       player who made ``move`` (the root: the player who did not move next)
    proven  (C,) float64    proven value for ``mover`` (1 win, 0.5 draw, 0 loss), -1 unknown (solver)
    stats   (NSTAT, C)      per-node statistics (bandits.stats): the node as an arm of its parent
    pstate  (C, S) float64  node policy state of the node as a bandit (over its children)
    astate  (A, C) float64  per-arm policy state of the node as an arm of its parent
    meta    (2,) int64      meta[0] = nodes in use
    path    (C,) int64      scratch: the moves taken by one descent (a depth never exceeds the
                            node count)
    amaf    (4, C) float64  RAVE / GRAVE statistics of the node as a move of its parent
                            (:mod:`treepolicies.amaf`); (4, 1) and unused in a tree without RAVE
    prior   (C,) float64    prior probability of the node as a move of its parent (a game's prior
                            kernel; :mod:`treepolicies.view`); (1,) and unused without priors

The node policy is passed to every kernel as ``pk`` and its ``params``: its
:class:`bandits.kernels.PolicyKernels` (first-class function values: these kernels are compiled
once, for every policy), or its key as a compile-time string (the policy's code compiled into
them: a search loop specialised for one policy, :mod:`treepolicies.compiled`).  The kernels that
run policy code use numba's numpy error model, as index policies are written for
(:mod:`bandits.index`).  Memory per node: 4 + 8 + 4 + 4 + 1 + 8 + 8 NSTAT + 8 S + 8 A + 8 bytes
= 77 + 8 (S + A) bytes with NSTAT = 5: 93 B for UCB1, KL-UCB and epsilon-greedy (S = A = 1),
101 B for Thompson sampling (A = 2), 141 B for modified improved UCB (S = 7), 157 B for improved
UCB (S = 7, A = 3); RAVE adds 32 B (the four AMAF rows), priors 8 B.

Rewards are in [0, 1] and seen from the player who moved into a node (``mover``), so a node's policy,
choosing among its children rows ``first : first + nchild``, maximises its own player's value.
Node p is a bandit whose arms are its children: the policy sees ``stats[:, f:f+n]``,
``astate[:, f:f+n]`` and ``pstate[p]``, and ``t`` = the visit count of p (``stats[COUNT, p]``).
The per-arm arrays are field-major (bandits.stats), so the children's statistics are contiguous
rows and a selection over them compiles to SIMD code, as in the testbed.

A game of other than two players, with chance nodes or general-sum keeps one value per player
instead (:func:`backup_values`; max^n, Luckhardt & Irani 1986): an iteration's result is the
vector ``values`` of every player's reward (and a last entry for the chance player, whose rows
are never chosen by a policy), and each row records the entry of its own mover.

Expansion creates all children of a node at once with zero counts; the policy's "untried arms
first" rule then decides the order in which they are first visited.  A leaf is expanded when it is
reached a second time (the root at once), so one node is first visited per iteration, as in
Kocsis & Szepesvari (2006).

MCTS-Solver (Winands, Bjornsson & Saito, 2008), optional: a terminal node is proven with its result;
a node is proven a win for the player to move there as soon as one child is a proven win for that
player, and proven with the best child value once every child is proven (draws included).
Selection then descends only into unproven children (a proven child's value is known exactly;
skipping proven draws as well as proven losses is the pruning rule of score-bounded MCTS,
Cazenave & Saffidine 2010, for exact bounds, and is what lets the solver prove draws, e.g. the
empty tic-tac-toe board); a proven node is not descended into, its proven value is backed up.
"""
from __future__ import annotations

import math

from typing import NamedTuple

import numba as nb
import numpy as np

from bandits.kernels import handed_down, init_row, record_row, select_row
from bandits.stats import COUNT, ISQRT, MEAN, NSTAT, record, refresh

__all__ = ["Tree", "TreeArrays", "select_child", "select_among", "expand", "backup", "mark_terminal",
           "backup_rooted", "backup_values", "should_expand", "leader_is_safe", "extract_subtree", "virtual_loss", "init_nodes", "try_prove", "reinit_node",
           "bytes_per_node", "FULL", "OK", "NO_CHILD", "AMAF_N", "AMAF_W", "OPP_N", "OPP_W"]

OK, FULL = 0, 1
NO_CHILD = -1
UNKNOWN = -1.0


def bytes_per_node(state_width: int, arm_state_width: int, amaf: bool = False, prior: bool = False) -> int:
    """Bytes one node takes (module docstring): 77 + 8 (max(1, S) + max(1, A)), + 32 with RAVE,
    + 8 with priors."""
    return 77 + 8 * (max(1, state_width) + max(1, arm_state_width)) + (32 if amaf else 0) + (8 if prior else 0)


class TreeArrays(NamedTuple):
    """The node arrays of one tree, as compiled code receives them (module docstring for the layout).

    New per-node data (an enhancement's statistics, priors, position keys) is a new field here,
    allocated by :class:`Tree` and copied by :meth:`Tree.grow` and :func:`extract_subtree`
    (docs/contracts.md, "Room for what comes next").
    """

    parent: np.ndarray
    move: np.ndarray
    first: np.ndarray
    nchild: np.ndarray
    mover: np.ndarray
    proven: np.ndarray
    stats: np.ndarray
    pstate: np.ndarray
    astate: np.ndarray
    meta: np.ndarray
    path: np.ndarray
    amaf: np.ndarray
    prior: np.ndarray


#: TreeArrays fields whose nodes run along the last axis (field-major); the others along the first
_NODES_LAST = ("stats", "astate", "amaf")
#: rows of TreeArrays.amaf
AMAF_N, AMAF_W, OPP_N, OPP_W = 0, 1, 2, 3


def _allocate(capacity: int, s: int, a: int, amaf: bool = False, prior: bool = False) -> TreeArrays:
    return TreeArrays(
        parent=np.empty(capacity, np.int32), move=np.empty(capacity, np.int64),
        first=np.empty(capacity, np.int32), nchild=np.empty(capacity, np.int32),
        mover=np.empty(capacity, np.int8), proven=np.empty(capacity, np.float64),
        stats=np.empty((NSTAT, capacity), np.float64), pstate=np.zeros((capacity, s), np.float64),
        astate=np.empty((a, capacity), np.float64), meta=np.zeros(2, np.int64), path=np.empty(capacity, np.int64),
        amaf=np.zeros((4, capacity if amaf else 1), np.float64), prior=np.zeros(capacity if prior else 1, np.float64))


class Tree:
    """Array storage for one search tree (see the module docstring for the layout).

    Parameters
    ----------
    capacity : int
        Nodes allocated now (grown by :meth:`grow` up to the search's node cap).
    state_width, arm_state_width : int
        The node policy's widths (``Policy.state_width``, ``Policy.arm_state_width``).
    amaf : bool
        Keep the RAVE statistics (``amaf`` rows for every node; :mod:`treepolicies.amaf`).
    prior : bool
        Keep a prior per node (``prior``; :mod:`treepolicies.view`).

    Attributes besides the arrays (``tree.parent`` ... ``tree.path`` read ``tree.arrays``), set by
    the search that builds the tree:

    policy_spec   spec of the node policy the tree was built with (a reused tree must match)
    compiled      True when built by the compiled driver (move codes are the game's own)
    root_key      bytes naming the root position (compiled games), or None
    root_state    compiled games: the root position's state array (to re-root), else None
    kernels       compiled games: their GameKernels, else None
    codes, objects  Python driver: move object -> code and code -> move object
    options       the search options (treepolicies.options.SearchOptions) it was built with
    """

    def __init__(self, capacity: int, state_width: int, arm_state_width: int, amaf: bool = False,
                 prior: bool = False):
        if capacity < 1:
            raise ValueError(f"capacity must be >= 1, got {capacity}")
        self.has_amaf, self.has_prior = bool(amaf), bool(prior)
        self.options = None
        self.dag = None  # treepolicies.transpositions.DagArrays of a search with transpositions
        self.par = None  # treepolicies.parallel.ParArrays of a tree-parallel search (locks, pending, ends)
        self.arrays = _allocate(capacity, max(1, state_width), max(1, arm_state_width), self.has_amaf,
                                self.has_prior)
        self.policy_spec: str | None = None
        self.compiled: bool = False
        self.root_key: bytes | None = None
        self.root_state: np.ndarray | None = None
        self.kernels = None
        self.codes: dict = {}
        self.objects: list = []

    def __getattr__(self, name):
        # tree.parent, tree.stats, ... : the fields of tree.arrays
        if name in TreeArrays._fields:
            return getattr(self.__dict__["arrays"], name)
        raise AttributeError(f"{type(self).__name__!s} has no attribute {name!r}")

    @property
    def capacity(self) -> int:
        return self.arrays.parent.shape[0]

    @property
    def size(self) -> int:
        """Nodes in use."""
        return int(self.arrays.meta[0])

    def init_root(self, mover: int) -> None:
        """Make the tree a single unvisited root whose ``mover`` is the player not to move."""
        init_nodes(self.arrays, 0, 1, -1, mover)
        self.arrays.meta[0] = 1

    def grow(self, capacity: int) -> None:
        """Enlarge to ``capacity`` nodes, keeping the nodes in use."""
        n = self.size
        fields = {}
        for name, old in zip(TreeArrays._fields, self.arrays):
            if name == "meta" or (name == "amaf" and not self.has_amaf) or (name == "prior" and not self.has_prior):
                fields[name] = old
            elif name in _NODES_LAST:
                new = np.empty((old.shape[0], capacity), old.dtype)
                new[:, :n] = old[:, :n]
                fields[name] = new
            else:
                new = np.empty((capacity,) + old.shape[1:], old.dtype)
                new[:n] = old[:n]
                fields[name] = new
        self.arrays = TreeArrays(**fields)

    def root_children(self):
        """(moves, visits, means) of the root's children; means seen by the player to move at the root."""
        f, n = int(self.first[0]), int(self.nchild[0])
        if f < 0:
            return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0)
        return (self.move[f:f + n].copy(), self.stats[COUNT, f:f + n].astype(np.int64),
                self.stats[MEAN, f:f + n].copy())


@nb.njit(cache=True)
def init_nodes(tree, start, n, parent_node, mover_value):
    """Fresh rows start .. start+n-1: zero statistics (ISQRT = inf), unexpanded, unproven."""
    parent, move, first, nchild, mover, proven, stats, pstate, astate, meta = (
        tree.parent, tree.move, tree.first, tree.nchild, tree.mover, tree.proven, tree.stats, tree.pstate,
        tree.astate, tree.meta)
    amaf = tree.amaf
    with_amaf = amaf.shape[1] == parent.shape[0]
    prior = tree.prior
    with_prior = prior.shape[0] == parent.shape[0]
    for c in range(start, start + n):
        parent[c] = parent_node
        move[c] = -1
        first[c] = -1
        nchild[c] = 0
        mover[c] = mover_value
        proven[c] = UNKNOWN
        for j in range(NSTAT):
            stats[j, c] = 0.0
        stats[ISQRT, c] = math.inf
        for j in range(pstate.shape[1]):
            pstate[c, j] = 0.0
        for j in range(astate.shape[0]):
            astate[j, c] = 0.0
        if with_amaf:
            for j in range(4):
                amaf[j, c] = 0.0
        if with_prior:
            prior[c] = 0.0


@nb.njit(cache=True)
def should_expand(tree, node):
    """True when an unexpanded node is to be expanded now: the root, or a node already visited."""
    parent, move, first, nchild, mover, proven, stats, pstate, astate, meta = (
        tree.parent, tree.move, tree.first, tree.nchild, tree.mover, tree.proven, tree.stats, tree.pstate,
        tree.astate, tree.meta)
    return first[node] < 0 and (parent[node] < 0 or stats[COUNT, node] > 0.0)


@nb.njit(cache=True, error_model="numpy")
def expand(tree, node, moves, n, child_mover, pk, params, valid):
    """Create the ``n`` children of ``node`` (moves[:n]) and initialise its policy state.

    Returns FULL (nothing changed) when the tree has no room for n more nodes, else OK.
    """
    parent, move, first, nchild, mover, proven, stats, pstate, astate, meta = (
        tree.parent, tree.move, tree.first, tree.nchild, tree.mover, tree.proven, tree.stats, tree.pstate,
        tree.astate, tree.meta)
    f = meta[0]
    if f + n > parent.shape[0]:
        return FULL
    init_nodes(tree, f, n, node, child_mover)
    for j in range(n):
        move[f + j] = moves[j]
    first[node] = f
    nchild[node] = n
    meta[0] = f + n
    init_row(pk, params, pstate[node], astate[:, f:f + n], valid[:n])
    return OK


@nb.njit(cache=True, error_model="numpy")
def select_child(tree, node, pk, params, valid, rng, work, solver):
    """The child the node policy picks: select_row on the children rows (module docstring).

    With ``solver``, proven children are masked out (``valid`` is then used as scratch); if all are
    (the node is then proven itself and not normally descended into), the first child is returned.
    Returns NO_CHILD (-1) when the policy's select kernel returns an arm outside 0..n-1.
    """
    f = tree.first[node]
    return _select_in(tree, node, tree.stats[:, f:f + tree.nchild[node]], pk, params, valid, rng, work, solver)


@nb.njit(cache=True, error_model="numpy")
def select_among(tree, node, view, pk, params, valid, rng, work, solver):
    """:func:`select_child` with the policy shown ``view`` ((NSTAT, n) statistics of the children,
    e.g. the RAVE-blended ones of :mod:`treepolicies.amaf`) instead of the children's own."""
    return _select_in(tree, node, view, pk, params, valid, rng, work, solver)


@nb.njit(cache=True, inline="always", error_model="numpy")
def _select_in(tree, node, view, pk, params, valid, rng, work, solver):
    """The body of :func:`select_child` and :func:`select_among`, compiled into each (as a call of
    its own, with the view as an argument, it cost plain UCT on Connect Four about 20 % of its
    iterations per second, measured against the code before the enhancements)."""
    parent, move, first, nchild, mover, proven, stats, pstate, astate, meta = (
        tree.parent, tree.move, tree.first, tree.nchild, tree.mover, tree.proven, tree.stats, tree.pstate,
        tree.astate, tree.meta)
    f = first[node]
    n = nchild[node]
    if solver:
        any_valid = False
        for j in range(n):
            ok = valid[j] and proven[f + j] < 0.0  # (valid may hold a widening mask)
            valid[j] = ok
            any_valid = any_valid or ok
        if not any_valid:
            for j in range(n):
                valid[j] = True
            return f
    if handed_down(pk) and parent[node] >= 0:  # what the parent's policy wrote for this node (SHOT's budget)
        pstate[node, 0] = astate[0, node]
    arm = select_row(pk, params, pstate[node], astate[:, f:f + n], view, valid[:n],
                     stats[COUNT, node], rng, work[:n])
    if arm < 0 or arm >= n:  # a broken policy kernel: callers stop and report it (never a wrong node)
        return NO_CHILD
    if solver:
        for j in range(n):
            valid[j] = True
    return f + arm


@nb.njit(cache=True, error_model="numpy")
def reinit_node(tree, node, pk, params, valid):
    """The bandit state of ``node`` (its own and its children's per-arm state) made afresh by the
    policy ``pk``, its statistics kept (a reused tree's new root with a root policy of its own)."""
    f = tree.first[node]
    n = tree.nchild[node]
    init_row(pk, params, tree.pstate[node], tree.astate[:, f:f + n], valid[:n])


@nb.njit(cache=True)
def mark_terminal(tree, node, value):
    """Record that ``node`` is terminal with result ``value`` for its mover (a proof)."""
    tree.proven[node] = value


@nb.njit(cache=True)
def try_prove(tree, node):
    """Prove ``node`` from its children's proofs if possible; True if it is (now) proven."""
    parent, move, first, nchild, mover, proven, stats, pstate, astate, meta = (
        tree.parent, tree.move, tree.first, tree.nchild, tree.mover, tree.proven, tree.stats, tree.pstate,
        tree.astate, tree.meta)
    f = first[node]
    n = nchild[node]
    if f < 0:
        return proven[node] >= 0.0
    best = -1.0
    complete = True
    for j in range(n):
        v = proven[f + j]
        if v < 0.0:
            complete = False
        elif v > best:
            best = v
    chooser = mover[f]
    if best == 1.0 or complete:
        proven[node] = best if mover[node] == chooser else 1.0 - best
        return True
    return False


@nb.njit(cache=True, error_model="numpy")
def backup(tree, leaf, value, pk, params, solver):
    """Back up ``value`` (the result for ``mover[leaf]``) from ``leaf`` to the root.

    At each edge (p -> c): record_row on p's children rows with the value seen by mover[c]; the
    value flips (v -> 1 - v) when the mover changes.  The root's own count is recorded too, so
    every node's visit count is stats[COUNT, node].  With ``solver``, proofs propagate upwards.
    """
    _backup(tree, leaf, value, pk, params, pk, params, False, solver)


@nb.njit(cache=True, error_model="numpy")
def backup_rooted(tree, leaf, value, pk, params, pkr, rparams, rooted, solver):
    """:func:`backup` with ``pkr, rparams`` (a root policy) recording the root's edge when ``rooted``."""
    _backup(tree, leaf, value, pk, params, pkr, rparams, rooted, solver)


@nb.njit(cache=True, inline="always", error_model="numpy")
def _backup(tree, leaf, value, pk, params, pkr, rparams, rooted, solver):
    parent, mover, proven, stats, pstate, astate, first, nchild = (
        tree.parent, tree.mover, tree.proven, tree.stats, tree.pstate, tree.astate, tree.first, tree.nchild)
    node = leaf
    v = value
    proving = solver and proven[leaf] >= 0.0
    while parent[node] >= 0:
        p = parent[node]
        f = first[p]
        n = nchild[p]
        if rooted and p == 0:
            record_row(pkr, rparams, pstate[p], astate[:, f:f + n], stats[:, f:f + n], node - f, v)
        else:
            record_row(pk, params, pstate[p], astate[:, f:f + n], stats[:, f:f + n], node - f, v)
        if mover[p] != mover[node]:
            v = 1.0 - v
        if proving and proven[p] < 0.0:
            proving = try_prove(tree, p)
        node = p
    record(stats, node, v)


@nb.njit(cache=True, error_model="numpy")
def backup_values(tree, leaf, values, pk, params, pkr, rparams, rooted):
    """Back up an iteration of a general game (module docstring): ``values`` (N + 1,) the result for
    each of the N players and, last, for the chance player (the mover of a chance node's children:
    mover N); each row from ``leaf`` to the root's children records ``values[mover[row]]`` in its
    parent's bandit (the root policy's at the root when ``rooted``), and the root
    ``values[mover[0]]`` (the search sets the root's mover to the player to move there)."""
    parent, mover, stats, pstate, astate, first, nchild = (
        tree.parent, tree.mover, tree.stats, tree.pstate, tree.astate, tree.first, tree.nchild)
    node = leaf
    while parent[node] >= 0:
        p = parent[node]
        f = first[p]
        n = nchild[p]
        v = values[mover[node]]
        if rooted and p == 0:
            record_row(pkr, rparams, pstate[p], astate[:, f:f + n], stats[:, f:f + n], node - f, v)
        else:
            record_row(pk, params, pstate[p], astate[:, f:f + n], stats[:, f:f + n], node - f, v)
        node = p
    record(stats, node, values[mover[node]])


@nb.njit(cache=True)
def leader_is_safe(tree, remaining):
    """True when the most visited root child cannot be overtaken in ``remaining`` more iterations.

    Most visits minus second-most visits > remaining (ties are never safe).
    """
    parent, move, first, nchild, mover, proven, stats, pstate, astate, meta = (
        tree.parent, tree.move, tree.first, tree.nchild, tree.mover, tree.proven, tree.stats, tree.pstate,
        tree.astate, tree.meta)
    f = first[0]
    n = nchild[0]
    if f < 0 or n < 2:
        return f >= 0
    a = -1.0
    b = -1.0
    for j in range(f, f + n):
        c = stats[COUNT, j]
        if c > a:
            b = a
            a = c
        elif c > b:
            b = c
    return a - b > remaining


@nb.njit(cache=True)
def extract_subtree(src, new_root, dst):
    """Copy the subtree of ``new_root`` in ``src`` into ``dst`` (breadth first, root at 0).

    Returns the number of nodes copied, or -1 if ``dst`` is too small.  Children stay contiguous.
    """
    sp, sm, sf, sn, smv, spr, sst, sps, sas = (src.parent, src.move, src.first, src.nchild, src.mover,
                                               src.proven, src.stats, src.pstate, src.astate)
    dp, dm, df, dn, dmv, dpr, dst_, dps, das, dmeta = (dst.parent, dst.move, dst.first, dst.nchild, dst.mover,
                                                       dst.proven, dst.stats, dst.pstate, dst.astate, dst.meta)
    cap = dp.shape[0]
    if cap < 1:
        return -1
    # copy the new root
    old = np.empty(cap, np.int64)  # old index of each new node
    old[0] = new_root
    size = 1
    head = 0
    while head < size:
        o = old[head]
        f = sf[o]
        n = sn[o]
        if f >= 0:
            if size + n > cap:
                return -1
            df[head] = size
            for j in range(n):
                old[size + j] = f + j
                dp[size + j] = head
            size += n
        else:
            df[head] = -1
        dn[head] = n if f >= 0 else 0
        head += 1
    sam, dam = src.amaf, dst.amaf
    with_amaf = sam.shape[1] == sp.shape[0] and dam.shape[1] == cap
    spri, dpri = src.prior, dst.prior
    with_prior = spri.shape[0] == sp.shape[0] and dpri.shape[0] == cap
    for i in range(size):
        o = old[i]
        if with_amaf:
            dam[:, i] = sam[:, o]
        if with_prior:
            dpri[i] = spri[o]
        dm[i] = sm[o]
        dmv[i] = smv[o]
        dpr[i] = spr[o]
        dst_[:, i] = sst[:, o]
        dps[i, :] = sps[o, :]
        das[:, i] = sas[:, o]
    dp[0] = -1
    dmeta[0] = size
    return size


@nb.njit(cache=True)
def virtual_loss(tree, leaf, sign):
    """Add (sign = 1) or remove (sign = -1) one visit with reward 0 at every node from ``leaf`` to the
    root (COUNT +- 1, SUM unchanged, MEAN and 1/sqrt(COUNT) recomputed: bandits.stats.refresh)."""
    stats = tree.stats
    node = leaf
    while node >= 0:
        stats[COUNT, node] += sign
        refresh(stats, node)
        node = tree.parent[node]
