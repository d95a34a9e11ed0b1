"""What the node policy sees of a node's children in a search with enhancement options.

``node_view`` writes the children's statistics into a scratch view and returns ``view[:, :n]``:

* rows COUNT .. ISQRT: the children's own statistics, or with RAVE the blended ones
  (:func:`treepolicies.amaf.blend`);
* with a view of NVIEW rows (priors, first-play urgency or widening on), two rows more
  (:mod:`bandits.stats`):

    PRIOR   P_j: the child's prior (``tree.prior``, from the game's prior kernel at expansion), or
            1/n with uniform priors;
    FIRST   the first-play urgency v, the index an unvisited child gets (PUCT: its Q):
            fpu = a number: v = that number;  fpu = parent: v = the node's own mean for the player
            choosing there (1/2 before any visit) minus ``fpu_reduction`` (Leela Zero's rule);
            fpu = inf: v = +inf (unvisited children first, the rule without the row).

``widen`` is progressive widening (Coulom 2007; Chaslot et al. 2008): a node with n visits (at
least 1) offers the policy only its first m = min(n_children, ceil(k n^alpha)) children, through
the ``valid`` mask every kernel already takes; children are stored in prior order (highest first,
sorted at expansion) when the game gives priors, else in the game's move order.

``select_child_view`` / ``descend_view`` are :func:`treepolicies.tree.select_child` /
:func:`treepolicies.tree.descend` through this view (the compiled enhanced loop and the Python
driver both call them).
"""
from __future__ import annotations

import math

import numba as nb
import numpy as np

from bandits.stats import COUNT, FIRST, MEAN, PRIOR
from treepolicies.mcts.amaf import blend
from treepolicies.mcts.experience import child_rows
from bandits.rng import gamma, randint
from treepolicies.mcts.options import (FPU_INF, FPU_VALUE, O_FPU, O_FPU_MODE, O_NOISE, O_NOISE_A, O_PRIOR, O_RAVE,
                                      O_WIDEN_A, O_WIDEN_K)
from treepolicies.mcts.tree import NO_CHILD, select_among, select_child

__all__ = ["node_view", "prior_rows", "first_play_urgency", "widen", "widened", "select_child_view", "descend_known",
           "select_node", "order_by_prior", "root_noise"]


@nb.njit(cache=True)
def first_play_urgency(tree, node, opts):
    """v of the FIRST row (module docstring) for the children of ``node``."""
    mode = opts[O_FPU_MODE]
    if mode == FPU_INF:
        return np.inf
    if mode == FPU_VALUE:
        return opts[O_FPU]
    stats, mover, first = tree.stats, tree.mover, tree.first
    if stats[COUNT, node] > 0.0:
        m = stats[MEAN, node]
        if mover[first[node]] != mover[node]:  # the node's mean is its mover's; the chooser is the other
            m = 1.0 - m
    else:
        m = 0.5
    return m - opts[O_FPU]


@nb.njit(cache=True, error_model="numpy")
def node_view(tree, node, opts, view, cmap):
    """The (rows, n) statistics the policy sees for ``node``'s children (module docstring)."""
    f = tree.first[node]
    n = tree.nchild[node]
    if opts[O_RAVE] > 0.0:
        blend(tree, node, opts, view, cmap)
    else:
        for j in range(n):
            child_rows(tree, f + j, j, n, opts, view)
    if view.shape[0] > FIRST:
        prior_rows(tree, f, n, opts, view, first_play_urgency(tree, node, opts))
    return view[:, :n]


@nb.njit(cache=True)
def prior_rows(tree, f, n, opts, view, v):
    """The PRIOR and FIRST rows of a view of the n children rows from ``f`` (module docstring):
    their priors (1/n when uniform) and the first-play urgency ``v``."""
    with_prior = opts[O_PRIOR] > 0.0 and tree.prior.shape[0] == tree.parent.shape[0]
    for j in range(n):
        view[PRIOR, j] = tree.prior[f + j] if with_prior else 1.0 / n
        view[FIRST, j] = v


@nb.njit(cache=True)
def widened(visits, n_children, opts):
    """m = min(n_children, ceil(k max(1, visits)^alpha)), or n_children without widening."""
    k = opts[O_WIDEN_K]
    if k <= 0.0:
        return n_children
    m = int(math.ceil(k * max(1.0, visits) ** opts[O_WIDEN_A] - 1e-9))
    return min(n_children, max(1, m))


@nb.njit(cache=True)
def widen(tree, node, opts, valid):
    """valid[j] = j < m for the children of ``node`` (progressive widening); True if it masked."""
    n = tree.nchild[node]
    m = widened(tree.stats[COUNT, node], n, opts)
    if m >= n:
        return False
    for j in range(n):
        valid[j] = j < m
    return True


@nb.njit(cache=True, error_model="numpy")
def select_child_view(tree, node, pk, params, valid, rng, work, solver, opts, view, cmap):
    """:func:`treepolicies.tree.select_child` with the policy shown :func:`node_view` and widening."""
    masked = widen(tree, node, opts, valid)
    child = select_among(tree, node, node_view(tree, node, opts, view, cmap), pk, params, valid, rng, work, solver)
    if masked:
        for j in range(tree.nchild[node]):
            valid[j] = True
    return child


@nb.njit(cache=True, error_model="numpy")
def descend_known(tree, pk, params, pkr, rparams, rooted, valid, rng, work, solver, path, opts, view, cmap, viewed):
    """The tree's descent through expanded nodes, for the Python-game driver: from the root, while the
    node is expanded (and, with the solver, not proven), its policy picks a child (the root policy
    ``pkr`` at the root when ``rooted``; through :func:`select_child_view` when ``viewed``).  Writes
    the rows taken to path[:depth]; returns (node, depth), node NO_CHILD for a bad select kernel."""
    first, proven = tree.first, tree.proven
    node = 0
    depth = 0
    while first[node] >= 0 and not (solver and proven[node] >= 0.0):
        if rooted and node == 0:
            child = _select(tree, node, pkr, rparams, valid, rng, work, solver, opts, view, cmap, viewed)
        else:
            child = _select(tree, node, pk, params, valid, rng, work, solver, opts, view, cmap, viewed)
        if child == NO_CHILD:
            return NO_CHILD, depth
        node = child
        path[depth] = node
        depth += 1
    return node, depth


@nb.njit(cache=True, error_model="numpy")
def select_node(tree, node, pk, params, valid, rng, work, solver, opts, view, cmap, viewed):
    """The child the policy picks at ``node``: :func:`select_child_view` when ``viewed``, else
    treepolicies.mcts.tree.select_child (the Python-game driver's expansion step)."""
    return _select(tree, node, pk, params, valid, rng, work, solver, opts, view, cmap, viewed)


@nb.njit(cache=True, inline="always", error_model="numpy")
def _select(tree, node, pk, params, valid, rng, work, solver, opts, view, cmap, viewed):
    if viewed:
        return select_child_view(tree, node, pk, params, valid, rng, work, solver, opts, view, cmap)
    return select_child(tree, node, pk, params, valid, rng, work, solver)


@nb.njit(cache=True)
def root_noise(priors, n, opts, rng):
    """AlphaZero's exploration noise on the root's priors (Silver et al. 2017, "Mastering the game of
    Go without human knowledge"): priors[:n] <- (1 - eps) priors + eps eta, eta ~ Dir(alpha, ..., alpha)
    drawn as normalised Gamma(alpha, 1) variates from ``rng``; eps = opts[O_NOISE] (0: nothing drawn),
    alpha = opts[O_NOISE_A].  The priors still sum to 1."""
    eps = opts[O_NOISE]
    if eps <= 0.0 or n <= 0:
        return
    alpha = opts[O_NOISE_A]
    total = 0.0
    draws = np.empty(n)
    for j in range(n):
        draws[j] = gamma(rng, alpha)
        total += draws[j]
    if not total > 0.0:  # (all n draws underflowed: alpha tiny, Dir(alpha) near a corner) a corner at random
        draws[:] = 0.0
        draws[randint(rng, n)] = 1.0
        total = 1.0
    for j in range(n):
        priors[j] = (1.0 - eps) * priors[j] + eps * draws[j] / total


@nb.njit(cache=True)
def order_by_prior(moves, priors, n):
    """Sort moves[:n] and priors[:n] together by decreasing prior (stable: ties keep the game's order)."""
    for i in range(1, n):
        m, p = moves[i], priors[i]
        j = i - 1
        while j >= 0 and priors[j] < p:
            moves[j + 1], priors[j + 1] = moves[j], priors[j]
            j -= 1
        moves[j + 1], priors[j + 1] = m, p
