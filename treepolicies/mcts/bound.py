"""The Python-game driver's compiled calls, bound to one search.

The driver (treepolicies.mcts.pydriver) calls compiled storage kernels once or a few times an
iteration.  Passed from Python, a policy's kernels (bandits.kernels.PolicyKernels, first-class
functions) cost numba's dispatcher about 22 microseconds a tuple and a call to type and unbox
(measured, 2026-12-05: a call taking the tree and two kernel tuples, 49 us; the same taking one
structure, 2.5 us), more than the game's own calls of an iteration.  So the driver makes one
:class:`Bound` per search and tree, a numba structure reference holding what stays fixed::

    tree    treepolicies.mcts.tree.TreeArrays   (a new Bound when the tree grows)
    pk, params      the tree policy's kernels and parameters
    pkr, rparams    the root policy's (the tree policy's again when there is none)
    opts    (N_OPTS,) float64   the search options (treepolicies.mcts.options)
    rng     (4,) uint64         the search's stream

and calls the functions below, each the storage kernel of the same name with its arguments read
from the structure (``root`` true: the root policy's kernels)::

    descend(b, rooted, valid, work, solver, view, cmap, viewed) -> (node, depth)   view.descend_known
    select(b, node, root, valid, work, solver, view, cmap, viewed) -> row          view.select_node
    expand_now(b, node) -> bool                                                     tree.should_expand
    expand_node(b, node, moves, n, mover, root, valid) -> FULL | OK                tree.expand
    backup(b, leaf, value, rooted, solver)                                          tree.backup_rooted
    backup_vector(b, leaf, values, rooted)                                          tree.backup_values
    pick_edge(b, dag, p, root, valid, work, solver) -> row                          dag.pick
    pick_edge_view(b, dag, p, root, valid, work, solver, view, r, cmap) -> row      dag.pick_view
    backup_edges(b, dag, depth, who, value, rooted)                                 dag.backup_path

The kernels' addresses are read once, when the structure is made; every call then types one
object.  The functions are compiled once per machine (numba's disk cache), whatever the policy.
"""
from __future__ import annotations

import numba as nb
from numba.core import types
from numba.experimental import structref

from treepolicies.mcts.dag import backup_path, pick, pick_view
from treepolicies.mcts.tree import backup_rooted, backup_values, expand, should_expand
from treepolicies.mcts.view import descend_known, select_node

__all__ = ["Bound", "bind", "descend", "select", "expand_now", "expand_node", "backup", "backup_vector", "pick_edge",
           "pick_edge_view", "backup_edges"]


@structref.register
class BoundType(types.StructRef):
    """numba's type of a :class:`Bound` (its fields' types, literal values widened)."""

    def preprocess_fields(self, fields):
        return tuple((name, types.unliteral(typ)) for name, typ in fields)


class Bound(structref.StructRefProxy):
    """What one search's driver calls share (module docstring); made by :func:`bind`."""


structref.define_proxy(Bound, BoundType, ["tree", "pk", "params", "pkr", "rparams", "opts", "rng"])


@nb.njit(cache=True)
def _make(tree, pk, params, pkr, rparams, opts, rng):
    return Bound(tree, pk, params, pkr, rparams, opts, rng)


def bind(arrays, policy, root, opts, rng) -> Bound:
    """The :class:`Bound` of a search: ``arrays`` its tree's TreeArrays, ``policy`` and ``root`` its
    tree and root policies (bandits.Policy), ``opts`` its options array, ``rng`` its stream state."""
    return _make(arrays, policy.kernels, policy.params, root.kernels, root.params, opts, rng)


@nb.njit(cache=True, error_model="numpy")
def descend(b, rooted, valid, work, solver, view, cmap, viewed):
    return descend_known(b.tree, b.pk, b.params, b.pkr, b.rparams, rooted, valid, b.rng, work, solver, b.tree.path,
                         b.opts, view, cmap, viewed)


@nb.njit(cache=True, error_model="numpy")
def select(b, node, root, valid, work, solver, view, cmap, viewed):
    if root:
        return select_node(b.tree, node, b.pkr, b.rparams, valid, b.rng, work, solver, b.opts, view, cmap, viewed)
    return select_node(b.tree, node, b.pk, b.params, valid, b.rng, work, solver, b.opts, view, cmap, viewed)


@nb.njit(cache=True)
def expand_now(b, node):
    return should_expand(b.tree, node)


@nb.njit(cache=True, error_model="numpy")
def expand_node(b, node, moves, n, mover, root, valid):
    if root:
        return expand(b.tree, node, moves, n, mover, b.pkr, b.rparams, valid)
    return expand(b.tree, node, moves, n, mover, b.pk, b.params, valid)


@nb.njit(cache=True, error_model="numpy")
def backup(b, leaf, value, rooted, solver):
    backup_rooted(b.tree, leaf, value, b.pk, b.params, b.pkr, b.rparams, rooted, solver)


@nb.njit(cache=True, error_model="numpy")
def backup_vector(b, leaf, values, rooted):
    backup_values(b.tree, leaf, values, b.pk, b.params, b.pkr, b.rparams, rooted)


@nb.njit(cache=True, error_model="numpy")
def pick_edge(b, dag, p, root, valid, work, solver):
    if root:
        return pick(b.pkr, b.rparams, b.tree, dag, p, valid, b.rng, work, solver)
    return pick(b.pk, b.params, b.tree, dag, p, valid, b.rng, work, solver)


@nb.njit(cache=True, error_model="numpy")
def pick_edge_view(b, dag, p, root, valid, work, solver, view, r, cmap):
    if root:
        return pick_view(b.pkr, b.rparams, b.tree, dag, p, valid, b.rng, work, solver, b.opts, view, r, cmap)
    return pick_view(b.pk, b.params, b.tree, dag, p, valid, b.rng, work, solver, b.opts, view, r, cmap)


@nb.njit(cache=True, error_model="numpy")
def backup_edges(b, dag, depth, who, value, rooted):
    backup_path(b.pk, b.params, b.pkr, b.rparams, rooted, b.tree, dag, b.tree.path, depth, who, value)
