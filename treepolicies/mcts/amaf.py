"""RAVE and GRAVE: all-moves-as-first statistics in the tree, and what the node policy sees.

AMAF (all moves as first; Gelly & Silver 2007, 2011).  Every node c, as the move ``move[c]`` of its
parent p, keeps in ``tree.amaf`` (rows of :mod:`treepolicies.tree`):

    AMAF_N, AMAF_W   iterations through p in which the player to move at p (``mover[c]``) played
                     ``move[c]`` at p or at any later ply of the iteration, tree part or playout,
                     and the sum of that player's results over them;
    OPP_N, OPP_W     the same for the *other* player playing ``move[c]`` after p (kept only for GRAVE,
                     whose reference node may have the other player to move).

A move counts once per iteration and node, at its first occurrence after p by that player
(Gelly & Silver 2011, Algorithm "UCT-RAVE": ``a_u not in {a_t, a_t+2, ..., a_u-2}``), so a point
played, captured and played again is credited once.  The plies of an iteration are written as
``2 * move + player`` (the :class:`treepolicies.games.Rollout` contract): the tree part from the
moves of the descent, the playout from the game's rollout kernel.

What the policy sees (``blend``): the children's statistics with each visited child's mean
replaced by

    (1 - beta) Q + beta Q_AMAF,     Q_AMAF = AMAF_W / AMAF_N,

(SUM = that mean times the child's visits; COUNT, SUMSQ and ISQRT are the child's own), with beta
from the schedule of :class:`treepolicies.options.SearchOptions`:

    "hand"  beta = sqrt(k / (3 N + k)),                 N = the parent's visits (Gelly & Silver 2007)
    "mse"   beta = n~ / (n + n~ + 4 b^2 n n~),          n = the child's visits, n~ = its AMAF count
                                                        (minimum-MSE schedule, Gelly & Silver 2011)

and beta = 0 for a child without AMAF samples.  A child never visited stays unvisited for the policy
(its own first-visit rule, e.g. untried arms first), so every policy keeps its meaning: RAVE changes
the values it compares, never its exploration counts.

GRAVE (Cazenave 2015, ``grave_ref = R``): the AMAF statistics come from the reference node r, the
closest ancestor of p (p itself included) with at least R visits (the root if none has): for each
child c of p, the child of r with the same move, its AMAF rows if the same player moves at r and p,
its OPP rows if the other.  A move that is no child of r uses p's own AMAF rows.

Memory: 4 float64 per node (32 bytes).  Reference: S. Gelly and D. Silver, "Combining online and
offline knowledge in UCT", ICML 2007; "Monte-Carlo tree search and rapid action value estimation
in computer Go", AIJ 175 (2011); T. Cazenave, "Generalized rapid action value estimation", IJCAI 2015.
"""
from __future__ import annotations

import math

import numba as nb

from bandits.stats import COUNT, MEAN, SUM
from treepolicies.mcts.atomics import lock, unlock
from treepolicies.mcts.experience import child_rows
from treepolicies.mcts.options import O_BIAS, O_K, O_MSE, O_REF
from treepolicies.mcts.tree import AMAF_N, AMAF_W, OPP_N, OPP_W

__all__ = ["rave_beta", "grave_reference", "blend", "blend_with", "amaf_update", "amaf_update_path",
           "amaf_update_locked", "credit"]


@nb.njit(cache=True)
def rave_beta(n_parent, n_child, n_amaf, opts):
    """beta of the schedule in ``opts`` (module docstring); 0 when there is no AMAF sample."""
    if n_amaf <= 0.0:
        return 0.0
    if opts[O_MSE] > 0.0:
        b = opts[O_BIAS]
        return n_amaf / (n_child + n_amaf + 4.0 * b * b * n_child * n_amaf)
    k = opts[O_K]
    return math.sqrt(k / (3.0 * n_parent + k))


@nb.njit(cache=True)
def grave_reference(tree, node, ref):
    """The closest ancestor of ``node`` (itself included) with at least ``ref`` visits; the root if none."""
    r = node
    while tree.parent[r] >= 0 and tree.stats[COUNT, r] < ref:
        r = tree.parent[r]
    return r


@nb.njit(cache=True, error_model="numpy")
def blend(tree, node, opts, view, cmap):
    """The (NSTAT, n) statistics of ``node``'s children as the policy sees them with RAVE, written to
    ``view[:NSTAT, :n]``; returns ``view[:, :n]`` (module docstring; treepolicies.view adds rows).  ``cmap``: (move codes,) int64 all -1, scratch
    for GRAVE (left all -1)."""
    r = node
    if opts[O_REF] > 0.0:
        r = grave_reference(tree, node, opts[O_REF])
    return blend_with(tree, node, tree.stats[COUNT, node], r, opts, view, cmap)


@nb.njit(cache=True, error_model="numpy")
def blend_with(tree, node, big_n, r, opts, view, cmap):
    """:func:`blend` with the parent's visits ``big_n`` and the GRAVE reference node ``r`` given (a
    DAG's position counts its visits apart and finds its reference on the iteration's path:
    treepolicies.transpositions)."""
    first, nchild, move, mover, amaf = tree.first, tree.nchild, tree.move, tree.mover, tree.amaf
    f = first[node]
    n = nchild[node]
    rf = first[r]
    rn = nchild[r] if r != node else 0
    for j in range(rn):
        cmap[move[rf + j]] = j
    for j in range(n):
        c = f + j
        n0, q0 = child_rows(tree, c, j, n, opts, view)  # (with prior_visits: the virtual results added)
        na = amaf[AMAF_N, c]
        wa = amaf[AMAF_W, c]
        if rn > 0:
            jr = cmap[move[c]]
            if jr >= 0:
                cr = rf + jr
                if mover[cr] == mover[c]:
                    na, wa = amaf[AMAF_N, cr], amaf[AMAF_W, cr]
                else:
                    na, wa = amaf[OPP_N, cr], amaf[OPP_W, cr]
        na += n0
        wa += n0 * q0
        nc = view[COUNT, j]
        if nc > 0.0 and na > 0.0:
            b = rave_beta(big_n, nc, na, opts)
            m = (1.0 - b) * view[MEAN, j] + b * (wa / na)
            view[MEAN, j] = m
            view[SUM, j] = m * nc
    for j in range(rn):
        cmap[move[rf + j]] = -1
    return view[:, :n]


@nb.njit(cache=True, nogil=True)
def amaf_update(tree, leaf, plies, n_plies, depth, seen, value, opp):
    """Credit the AMAF rows of the iteration that ended at ``leaf`` (module docstring).

    plies[:n_plies]  the iteration's plies ``2 * move + player`` from the root: the first ``depth``
                     lead from the root to ``leaf``, the rest are the playout's
    seen             (2 * move codes,) int64 scratch, all -1 (left all -1)
    value            the result for ``mover[leaf]`` in [0, 1] (the other player's is 1 - value)
    opp              also credit the OPP rows (GRAVE)
    """
    _update(tree, leaf, tree.path, plies, n_plies, depth, seen, tree.mover[leaf], value, opp, tree.meta, False,
            False)


@nb.njit(cache=True, nogil=True)
def amaf_update_path(tree, path, plies, n_plies, depth, seen, who, value, opp):
    """:func:`amaf_update` for an iteration given by the rows it descended, ``path[:depth]`` (a
    DAG: the node that chose row path[d] is parent[path[d]], whichever way the iteration reached
    it); ``who`` the player whose result ``value`` is (the last row's mover)."""
    _update(tree, -1, path, plies, n_plies, depth, seen, who, value, opp, tree.meta, False, True)


@nb.njit(cache=True, nogil=True)
def amaf_update_locked(tree, leaf, path, plies, n_plies, depth, seen, who, value, opp, locks, on_path):
    """:func:`amaf_update` (``on_path`` False) or :func:`amaf_update_path` (True) for tree
    parallelism: each node's children credited under its lock (``locks``, a word per row)."""
    _update(tree, leaf, path, plies, n_plies, depth, seen, who, value, opp, locks, True, on_path)


@nb.njit(cache=True, nogil=True, inline="always")
def _update(tree, leaf, path, plies, n_plies, depth, seen, who, value, opp, locks, locked, on_path):
    parent = tree.parent
    size = seen.shape[0]
    p = parent[leaf] if not on_path else -1
    d = depth - 1
    for i in range(n_plies - 1, -1, -1):
        x = plies[i]
        if 0 <= x < size:
            seen[x] = i  # after the loop reaches i: the first ply >= i of each (move, player)
        if i == d:
            if on_path:
                p = parent[path[d]]
            if p >= 0:
                if locked:
                    lock(locks, p)
                credit(tree, p, i, seen, who, value, opp)
                if locked:
                    unlock(locks, p)
                if not on_path:
                    p = parent[p]
            d -= 1
    for i in range(n_plies):
        x = plies[i]
        if 0 <= x < size:
            seen[x] = -1


@nb.njit(cache=True, nogil=True)
def credit(tree, p, i, seen, who, value, opp):
    """Credit the children of ``p``, which chose ply ``i``, from ``seen`` (the first ply >= i of each
    ``2 * move + player``; module docstring); ``value`` is ``who``'s result."""
    first, nchild, move, mover, amaf = tree.first, tree.nchild, tree.move, tree.mover, tree.amaf
    size = seen.shape[0]
    f = first[p]
    for c in range(f, f + nchild[p]):
        m = move[c]
        q = mover[c]
        v = value if q == who else 1.0 - value
        y = 2 * m + q
        if y < size and seen[y] >= i:
            amaf[AMAF_N, c] += 1.0
            amaf[AMAF_W, c] += v
        if opp:
            y = 2 * m + 1 - q
            if y < size and seen[y] > i:
                amaf[OPP_N, c] += 1.0
                amaf[OPP_W, c] += 1.0 - v
