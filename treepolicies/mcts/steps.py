"""One MCTS iteration, written once: its steps chosen at compile time, for every storage and executor.

An iteration (Kocsis & Szepesvari 2006; Browne et al. 2012, "A survey of MCTS methods") is three
steps, each a compiled function here:

1. :func:`descend`: from the root, while the node reached is expanded, its policy picks a child and
   the child's move is played on the state; a node reached that is not expanded is expanded if it
   is *ready* (the root at once, any other node at its second arrival), and its policy picks one of
   the new children, which ends the descent;
2. :func:`leaf_value`: the result at the node reached, for the player who moved into it: its proof
   (MCTS-Solver), the game's result at a terminal position, or a playout's (the game's playout, a
   rollout kernel, capped or not), scaled to [0, 1] by the reward bounds in force;
3. :func:`backup`: the result recorded on every edge of the path from the view of the player who
   took it (plus RAVE's AMAF credits and the solver's proofs).

What varies is chosen by a :class:`Config`, a compile-time key (a numba string literal, resolved by
the overloads below, as :mod:`treepolicies.mcts.calls` resolves a game's kernels), never by a
branch at run time:

    storage   "tree" (treepolicies.mcts.tree: a node per move sequence) or "dag"
              (treepolicies.mcts.dag: a node per position, transpositions)
    executor  "single" (one thread), "tree" (threads on one shared storage: node locks and
              virtual loss, treepolicies.mcts.parallel) or "leaf" (one descent, several playouts)
    leaf      "playout" (a leaf is valued by a playout and expanded at its second arrival) or
              "eval" (a leaf evaluator values and expands every leaf it reaches, in batches:
              treepolicies.mcts.evaluate)
    enhanced  False: the plain iteration (no option changes it); True: the options of
              treepolicies.mcts.options read at run time from ``opts`` (RAVE / GRAVE, first-play
              urgency, priors, widening, the rollout cap, reward bounds)
    rollout   the rollout kernel's key ("" = the game's playout kernel)
    prior     the prior kernel's key ("" = uniform priors)
    key       the position key kernel's key (the DAG)
    root      "" (the tree policy at the root too) or "fv" (a root policy through function values)
    playout   "" or a playout policy's key (treepolicies.mcts.playouts: its kernels in the playout,
              its statistics in the options' array; the descent then records its plies)

The executors (treepolicies.mcts.loops) are loops around these steps; the Python-game driver
(treepolicies.mcts.pydriver) runs the same steps with a Python game's methods.  So an
enhancement attaches to one step, once, and works with every storage and executor.

Arguments shared by the steps: ``pk, params`` the tree policy (PolicyKernels, or its key as a
string literal in a specialised loop), ``pkr, rparams`` the root policy, ``tree`` TreeArrays,
``dag`` DagArrays (a 1-row placeholder on the tree), ``par`` ParArrays (placeholders without
threads), ``x`` the thread's :class:`Scratch`, ``opts`` the options' array
(SearchOptions.array), ``solver`` MCTS-Solver on, ``vl`` the virtual loss, ``max_depth`` the
longest descent (the DAG cuts cycles there).
"""
from __future__ import annotations

from typing import NamedTuple

import numba as nb
import numpy as np
from numba.core import types
from numba.extending import overload

from bandits.stats import COUNT, FIRST, refresh
from treepolicies.mcts import calls, playouts
from treepolicies.mcts.amaf import amaf_update, amaf_update_locked, amaf_update_path
from treepolicies.mcts.atomics import atomic_cas, lock, unlock
from treepolicies.mcts.dag import backup_path, grave_reference as dag_grave_reference, link, pick, pick_view, prove_path
from treepolicies.mcts.dag import prove_path_locked
from treepolicies.mcts.dag import virtual_loss_path
from treepolicies.mcts.options import O_CAP, O_LO, O_OPP, O_PRIOR, O_RAVE, O_REF, O_SCALE, O_WIDEN_K
from treepolicies.mcts.parallel import backup_locked, backup_path_locked, expand_locked, link_locked, undo
from treepolicies.mcts.tree import FULL, NO_CHILD, OK, backup_rooted, expand, mark_terminal, select_child, virtual_loss
from treepolicies.mcts.view import order_by_prior, root_noise, select_child_view

__all__ = ["Config", "config_key", "config_of", "Scratch", "RUNNING", "FULL_STATUS", "EARLY", "PROVEN", "BAD_ARM",
           "BAD_REWARD", "BAD_RAISE", "LEAF_PROVEN", "LEAF_TERMINAL", "LEAF_PLAYOUT", "descend", "leaf_exact", "playout_value",
           "leaf_value", "prove_leaf", "expand_rows", "expand_with", "virtual_loss_leaf", "is_locked", "claim",
           "undo_descent",
           "backup_step", "iterate"]

#: status codes of the steps and the executors
RUNNING, FULL_STATUS, EARLY, PROVEN, BAD_ARM, BAD_REWARD, BAD_RAISE = 0, 1, 2, 3, 4, 5, 6


class Config(NamedTuple):
    """What an iteration is compiled for (module docstring)."""

    game: str
    storage: str = "tree"
    executor: str = "single"
    leaf: str = "playout"
    enhanced: bool = False
    rollout: str = ""
    prior: str = ""
    key: str = ""
    root: str = ""
    playout: str = ""


#: key text -> Config
CONFIGS: dict = {}


def _source_hash() -> str:
    """A hash of the source of the steps and everything they compile in (this package and bandits'
    kernel modules): part of every config key, so an edited step is recompiled, never loaded stale
    from numba's disk cache (numba notices edits of the entry point's own file only)."""
    import hashlib
    import os

    import bandits

    h = hashlib.sha256()
    here = os.path.dirname(os.path.abspath(__file__))
    folders = [here, os.path.dirname(os.path.abspath(bandits.__file__))]
    for folder in folders:
        for name in sorted(os.listdir(folder)):
            if name.endswith(".py"):
                with open(os.path.join(folder, name), "rb") as fh:
                    h.update(fh.read())
    return h.hexdigest()[:12]


SOURCE = _source_hash()


def config_key(config: Config) -> str:
    """The text that names ``config`` in compiled code (registered for :func:`config_of`); it holds
    :data:`SOURCE`, so the compiled code of an edited step is never taken from the cache."""
    text = ";".join(f"{name}={value}" for name, value in zip(Config._fields, config)) + ";src=" + SOURCE
    CONFIGS[text] = config
    return text


def config_of(cfg) -> Config:
    """The Config of a compile-time key (inside an overload)."""
    if not isinstance(cfg, types.StringLiteral):
        raise nb.core.errors.TypingError(f"the step configuration must be a compile-time string, got {cfg}")
    return CONFIGS[cfg.literal_value]


class Scratch(NamedTuple):
    """One thread's scratch arrays (M = game.max_moves, codes = game.move_codes)."""

    s: np.ndarray       # (S,) the position being played (the game's state dtype)
    valid: np.ndarray   # (M,) bool, all True between steps
    work: np.ndarray    # (M,) float64
    moves: np.ndarray   # (M,) int64
    shown: np.ndarray   # (NSTAT or NVIEW, M) float64: what the policy is shown (treepolicies.mcts.view)
    pbuf: np.ndarray    # (M,) float64: the priors of an expansion
    plies: np.ndarray   # (L,) int64: the iteration's plies 2 * move + player (RAVE); L >= depth + game plies
    seen: np.ndarray    # (2 codes,) int64, all -1 (RAVE)
    cmap: np.ndarray    # (codes,) int64, all -1 (GRAVE)
    path: np.ndarray    # (D,) int64: the rows the descent took
    rng: np.ndarray     # (4,) uint64: the thread's stream, advanced in place
    abort: np.ndarray   # (1,) int64: set (by bandits.compiling.kernel_errors) when a policy kernel raised


# ------------------------------------------------------------------------------------------------
# the hooks: one stub and one overload each; the overload returns the implementation of a config


def position_of(cfg, dag, c):  # pragma: no cover - compiled only
    raise NotImplementedError


@overload(position_of, prefer_literal=True, inline="always")
def _position_of_impl(cfg, dag, c):
    if config_of(cfg).storage == "dag":
        return lambda cfg, dag, c: dag.canon[c]
    return lambda cfg, dag, c: c


def expand_rows(cfg, pk, params, pkr, rparams, tree, dag, q, moves, n, mover, x, with_prior, opts):  # pragma: no cover
    raise NotImplementedError


@overload(expand_rows, prefer_literal=True, inline="always")
def _expand_rows_impl(cfg, pk, params, pkr, rparams, tree, dag, q, moves, n, mover, x, with_prior, opts):
    """The ``n`` children of position q (moves[:n], their priors x.pbuf[:n] when ``with_prior``; at
    the root with the root's noise, treepolicies.mcts.view.root_noise), their policy state
    initialised by the policy of q (the root policy at the root); on a DAG not linked yet.  FULL
    (nothing changed) when the storage has no room, else OK."""
    c = config_of(cfg)
    locked, dag_rows, rooted = c.executor == "tree", c.storage == "dag", c.root != ""
    noisy = c.enhanced  # (root noise is an enhancement: the plain loop never compiles it)

    def impl(cfg, pk, params, pkr, rparams, tree, dag, q, moves, n, mover, x, with_prior, opts):
        if noisy:
            if with_prior and q == 0:
                root_noise(x.pbuf, n, opts, x.rng)
        if locked:
            if rooted and q == 0:
                return expand_locked(tree, dag, q, moves, n, mover, pkr, rparams, x.valid, x.pbuf, with_prior, dag_rows)
            return expand_locked(tree, dag, q, moves, n, mover, pk, params, x.valid, x.pbuf, with_prior, dag_rows)
        if rooted and q == 0:
            st = expand(tree, q, moves, n, mover, pkr, rparams, x.valid)
        else:
            st = expand(tree, q, moves, n, mover, pk, params, x.valid)
        if st == FULL:
            return st
        f = tree.first[q]
        if with_prior:
            for j in range(n):
                tree.prior[f + j] = x.pbuf[j]
        if dag_rows:
            for j in range(n):
                dag.canon[f + j] = -1
        return OK
    return impl


@nb.njit(cache=True)
def expand_with(cfg, pk, params, pkr, rparams, tree, dag, q, moves, n, priors, mover, x, opts):
    """Expand position q with the given priors (a leaf evaluator's, normalised): children in
    decreasing prior order (:func:`expand_rows`); OK at once if q is expanded already (a DAG
    descent cut at max_depth reaches expanded positions)."""
    if tree.first[q] >= 0:
        return OK
    for j in range(n):
        x.moves[j] = moves[j]
        x.pbuf[j] = priors[j]
    order_by_prior(x.moves, x.pbuf, n)
    return expand_rows(cfg, pk, params, pkr, rparams, tree, dag, q, x.moves, n, mover, x, True, opts)


def virtual_loss_leaf(cfg, tree, dag, node, path, depth, sign):  # pragma: no cover
    raise NotImplementedError


@overload(virtual_loss_leaf, prefer_literal=True, inline="always")
def _virtual_loss_leaf_impl(cfg, tree, dag, node, path, depth, sign):
    """The leaf evaluator's virtual loss (sign 1: add, -1: remove): one visit with reward 0 at every
    node from ``node`` to the root (a DAG: each edge of ``path[:depth]``, the root's row, and the
    positions on the path)."""
    c = config_of(cfg)
    if c.executor == "tree":  # (tree parallelism adds V per step of the descent: treepolicies.mcts.parallel)
        return lambda cfg, tree, dag, node, path, depth, sign: None
    if c.storage == "dag":
        return lambda cfg, tree, dag, node, path, depth, sign: virtual_loss_path(tree, dag, path, depth, sign)
    return lambda cfg, tree, dag, node, path, depth, sign: virtual_loss(tree, node, sign)


def is_locked(cfg):  # pragma: no cover - compiled only
    raise NotImplementedError


@overload(is_locked, prefer_literal=True, inline="always")
def _is_locked_impl(cfg):
    """True for tree parallelism (the storage shared by threads, under locks)."""
    locked = config_of(cfg).executor == "tree"
    return lambda cfg: locked


def claim(cfg, waiting, q):  # pragma: no cover - compiled only
    raise NotImplementedError


@overload(claim, prefer_literal=True, inline="always")
def _claim_impl(cfg, waiting, q):
    """Mark position q as awaiting the evaluator; False if it already was (a compare-and-swap when
    threads share ``waiting``)."""
    if config_of(cfg).executor == "tree":
        return lambda cfg, waiting, q: atomic_cas(waiting, q, 0, 1) == 0

    def single(cfg, waiting, q):
        if waiting[q] != 0:
            return False
        waiting[q] = 1
        return True
    return single


def undo_descent(cfg, tree, path, depth, vl, par):  # pragma: no cover - compiled only
    raise NotImplementedError


@overload(undo_descent, prefer_literal=True, inline="always")
def _undo_descent_impl(cfg, tree, path, depth, vl, par):
    """Remove the virtual losses a descent that is not recorded left on its path (tree parallelism)."""
    if config_of(cfg).executor == "tree":
        return lambda cfg, tree, path, depth, vl, par: undo(tree, path, depth, vl, par)
    return lambda cfg, tree, path, depth, vl, par: None


# ------------------------------------------------------------------------------------------------
# the steps


def descend(cfg, pk, params, pkr, rparams, tree, dag, par, root_state, x, solver, opts, vl, max_depth):  # pragma: no cover
    """Step 1 (module docstring): from the root to the node the iteration ends at.

    Plays the moves on ``x.s`` (from ``root_state``), writes the rows taken to ``x.path[:depth]`` and
    with RAVE the plies to ``x.plies[:depth]``.  Returns (status, node, depth): RUNNING, or
    FULL_STATUS (no room to expand: nothing recorded) or BAD_ARM (the policy's select kernel
    returned an arm outside its children).  ``node`` is the last row taken (the root: 0).

    Compiled per config (the overload below).  Its loop calls the storages' and the game's kernels
    itself, its variants chosen by branches on the config's values (compile-time constants: numba
    prunes the branches a config does not take), not through the small hooks above: a hook inlined
    in the loop binds its array arguments anew at every step, and numba counts a reference for
    each array of each binding (an atomic call each) wherever a call follows before the binding
    ends (the policy's select, the game's play) -- some 30 calls a step, which halved the speed of
    a search on Connect Four.
    """
    raise NotImplementedError


@overload(descend, prefer_literal=True, inline="always")
def _descend_impl(cfg, pk, params, pkr, rparams, tree, dag, par, root_state, x, solver, opts, vl, max_depth):
    c = config_of(cfg)
    kernels = calls.KERNELS[c.game]
    legal_k, play_k, to_move_k, terminal_k = kernels.legal, kernels.play, kernels.to_move, kernels.terminal
    on_dag, locked, rooted, enhanced = c.storage == "dag", c.executor == "tree", c.root != "", c.enhanced
    evaluated = c.leaf == "eval"
    recorded = c.playout != ""
    prkey = c.prior
    key_k = calls.KERNELS[c.key] if on_dag else None

    def impl(cfg, pk, params, pkr, rparams, tree, dag, par, root_state, x, solver, opts, vl, max_depth):
        s = x.s
        for i in range(s.shape[0]):  # (not s[:] = root_state: its shape check's error message alone took 6 s to compile)
            s[i] = root_state[i]
        rave = False  # the descent records its plies: RAVE, or a playout policy (it reads and learns from the
        if recorded:  # whole simulation's)
            rave = True
        elif enhanced:
            rave = opts[O_RAVE] > 0.0
        node = 0
        depth = 0
        seen = 1.0
        while True:
            q = node
            if on_dag:
                q = dag.canon[node]
            if locked:
                lock(par.locks, q)
            if solver and tree.proven[q] >= 0.0:
                if locked:
                    unlock(par.locks, q)
                break
            fresh = False
            cut = False
            if on_dag:  # a DAG may hold cycles (Go's captures): descents are cut
                cut = depth >= max_depth
            if tree.first[q] < 0:
                # ready: the root at once, any other node at its second arrival (on a DAG the
                # position's real visits; with threads the real visits read under the parent's
                # lock; the evaluator expands every leaf it values itself)
                if evaluated:
                    ready = False
                elif on_dag:
                    ready = q == 0 or dag.pvis[q] > 0.0
                elif locked:
                    ready = tree.parent[q] < 0 or seen > 0.0
                else:
                    ready = tree.parent[q] < 0 or tree.stats[COUNT, q] > 0.0
                if cut or terminal_k(s) or not ready:
                    if locked:
                        unlock(par.locks, q)
                    break
                # expand q: its legal moves, with a prior kernel their priors (children in
                # decreasing prior order), then expand_rows
                moves = x.moves
                n = legal_k(s, moves)
                with_prior = False
                if enhanced:
                    with_prior = opts[O_PRIOR] > 0.0 and tree.prior.shape[0] == tree.parent.shape[0]
                    if with_prior:
                        calls.prior_call(prkey, s, moves, n, x.pbuf)
                        order_by_prior(moves, x.pbuf, n)
                if expand_rows(cfg, pk, params, pkr, rparams, tree, dag, q, moves, n, to_move_k(s), x, with_prior,
                               opts) == FULL:
                    if locked:
                        unlock(par.locks, q)
                    return FULL_STATUS, node, depth
                fresh = True
            elif cut:
                if locked:
                    unlock(par.locks, q)
                break
            # the policy of q picks a child (the root policy at the root)
            viewed = False
            if enhanced:
                viewed = opts[O_RAVE] > 0.0 or x.shown.shape[0] > FIRST or opts[O_WIDEN_K] > 0.0
            if on_dag:
                if viewed:
                    ref = opts[O_REF]
                    r = dag_grave_reference(dag, x.path, depth, ref) if ref > 0.0 else q
                    if rooted and q == 0:
                        ch = pick_view(pkr, rparams, tree, dag, q, x.valid, x.rng, x.work, solver, opts, x.shown, r,
                                       x.cmap)
                    else:
                        ch = pick_view(pk, params, tree, dag, q, x.valid, x.rng, x.work, solver, opts, x.shown, r,
                                       x.cmap)
                elif rooted and q == 0:
                    ch = pick(pkr, rparams, tree, dag, q, x.valid, x.rng, x.work, solver)
                else:
                    ch = pick(pk, params, tree, dag, q, x.valid, x.rng, x.work, solver)
            elif viewed:
                if rooted and q == 0:
                    ch = select_child_view(tree, q, pkr, rparams, x.valid, x.rng, x.work, solver, opts, x.shown, x.cmap)
                else:
                    ch = select_child_view(tree, q, pk, params, x.valid, x.rng, x.work, solver, opts, x.shown, x.cmap)
            elif rooted and q == 0:
                ch = select_child(tree, q, pkr, rparams, x.valid, x.rng, x.work, solver)
            else:
                ch = select_child(tree, q, pk, params, x.valid, x.rng, x.work, solver)
            if ch == NO_CHILD:
                if locked:
                    unlock(par.locks, q)
                return BAD_ARM, node, depth
            if locked:  # under the chooser's lock: ch's real visits, then V virtual visits and one pending descent
                stats = tree.stats
                seen = stats[COUNT, ch] - vl * par.pend[ch]
                if vl > 0.0:
                    stats[COUNT, ch] += vl
                    refresh(stats, ch)
                par.pend[ch] += 1
                unlock(par.locks, q)
            mv = tree.move[ch]
            if rave:
                x.plies[depth] = 2 * mv + to_move_k(s)
            play_k(s, mv)
            x.path[depth] = ch
            depth += 1
            if on_dag and dag.canon[ch] < 0:  # the position reached, linked to its node
                if locked:
                    link_locked(dag, par.table, ch, key_k(s))
                else:
                    link(dag, ch, key_k(s))
            node = ch
            if fresh:
                if on_dag:  # a known position (a transposition): the descent goes on from it
                    if dag.canon[ch] == ch:
                        break
                else:
                    break
        return RUNNING, node, depth
    return impl


def config_of_game(cfg):  # pragma: no cover - compiled only
    raise NotImplementedError


@overload(config_of_game, prefer_literal=True, inline="always")
def _config_of_game(cfg):
    g = config_of(cfg).game
    return lambda cfg: g


#: what a leaf was (leaf_value's ``kind``)
LEAF_PROVEN, LEAF_TERMINAL, LEAF_PLAYOUT = 0, 1, 2


@nb.njit(cache=True, inline="always")
def leaf_exact(cfg, tree, dag, node, s, opts, solver):
    """(exact, value, kind) at ``node`` reached with position ``s``: its proof (kind LEAF_PROVEN) or
    the game's result at a terminal position (LEAF_TERMINAL), for the player who moved into it
    (``mover[node]``), scaled when enhanced by the reward bounds: (z - lo) * scale with lo =
    opts[O_LO], scale = opts[O_SCALE]; exact False (kind LEAF_PLAYOUT) otherwise."""
    g, enhanced = _leaf_config(cfg)
    who = tree.mover[node]
    q = position_of(cfg, dag, node)
    if solver and tree.proven[q] >= 0.0:
        return True, tree.proven[q], LEAF_PROVEN
    if calls.terminal(g, s):
        if enhanced:
            return True, (calls.result(g, s, who) - opts[O_LO]) * opts[O_SCALE], LEAF_TERMINAL
        return True, calls.result(g, s, who), LEAF_TERMINAL
    return False, 0.0, LEAF_PLAYOUT


@nb.njit(cache=True, inline="always")
def playout_value(cfg, who, s, plies, n_plies, rng, opts):
    """(value, n_plies): a playout from ``s`` (played in place) valued for player ``who``: the game's
    playout kernel or, enhanced, the rollout kernel with the cap ``opts[O_CAP]`` (its plies written
    to ``plies[n_plies:]`` with RAVE) and the result scaled by the reward bounds."""
    g, enhanced = _leaf_config(cfg)
    if enhanced:
        return _rollout(cfg, s, plies, n_plies, rng, opts, who)
    calls.playout(g, s, rng)
    return calls.result(g, s, who), n_plies


@nb.njit(cache=True, inline="always")
def leaf_value(cfg, tree, dag, node, s, plies, n_plies, rng, opts, solver):
    """Step 2 (module docstring): (status, value, kind, n_plies) at ``node``: :func:`leaf_exact`, else
    :func:`playout_value` (kind LEAF_PLAYOUT); status BAD_REWARD for a value outside [0, 1], else
    RUNNING."""
    exact, value, kind = leaf_exact(cfg, tree, dag, node, s, opts, solver)
    if not exact:
        value, n_plies = playout_value(cfg, tree.mover[node], s, plies, n_plies, rng, opts)
    if not (0.0 <= value <= 1.0):
        return BAD_REWARD, value, kind, n_plies
    return RUNNING, value, kind, n_plies


def _leaf_config(cfg):  # pragma: no cover
    raise NotImplementedError


@overload(_leaf_config, prefer_literal=True, inline="always")
def _leaf_config_impl(cfg):
    c = config_of(cfg)
    g, enhanced = c.game, c.enhanced
    return lambda cfg: (g, enhanced)


def _rollout(cfg, s, plies, n_plies, rng, opts, who):  # pragma: no cover
    raise NotImplementedError


@overload(_rollout, prefer_literal=True, inline="always")
def _rollout_impl(cfg, s, plies, n_plies, rng, opts, who):
    c = config_of(cfg)
    g, rkey, pl = c.game, c.rollout, c.playout
    if pl != "":  # a playout policy (treepolicies.mcts.playouts): its loop, its update; rkey values a capped one
        def policy_playout(cfg, s, plies, n_plies, rng, opts, who):
            return playouts.play_playout(pl, g, rkey, s, rng, plies, n_plies, np.int64(opts[O_CAP]), opts, who)
        return policy_playout
    if rkey == "":  # the game's playout (no rollout kernel: no cap, no plies; the capabilities say so)
        def playout(cfg, s, plies, n_plies, rng, opts, who):
            calls.playout(g, s, rng)
            return (calls.result(g, s, who) - opts[O_LO]) * opts[O_SCALE], n_plies
        return playout

    def rollout(cfg, s, plies, n_plies, rng, opts, who):
        cap = np.int64(opts[O_CAP])
        if opts[O_RAVE] > 0.0:
            n_plies += calls.rollout_play(rkey, s, rng, plies[n_plies:], cap)
        else:
            calls.rollout_play(rkey, s, rng, plies[:0], cap)
        return (calls.rollout_value(rkey, s, who) - opts[O_LO]) * opts[O_SCALE], n_plies
    return rollout


def prove_leaf(cfg, tree, dag, node, value, mark):  # pragma: no cover - compiled only
    raise NotImplementedError


@overload(prove_leaf, prefer_literal=True, inline="always")
def _prove_leaf_impl(cfg, tree, dag, node, value, mark):
    """With ``mark`` (the solver on, a terminal leaf), the leaf's result is its proof; the
    tree-parallel backup writes it under the parent's lock instead
    (:func:`treepolicies.mcts.parallel.backup_locked`)."""
    c = config_of(cfg)
    if c.executor == "tree":
        return lambda cfg, tree, dag, node, value, mark: None
    if c.storage == "dag":
        def on_dag(cfg, tree, dag, node, value, mark):
            if mark:
                tree.proven[dag.canon[node]] = value
        return on_dag

    def on_tree(cfg, tree, dag, node, value, mark):
        if mark:
            mark_terminal(tree, node, value)
    return on_tree


def backup_step(cfg, pk, params, pkr, rparams, tree, dag, par, node, path, depth, value, x, plies, n_plies, solver,
                opts, vl, mark):  # pragma: no cover
    raise NotImplementedError


@overload(backup_step, prefer_literal=True, inline="always")
def _backup_step_impl(cfg, pk, params, pkr, rparams, tree, dag, par, node, path, depth, value, x, plies, n_plies,
                      solver, opts, vl, mark):
    """Step 3 (module docstring): record ``value`` (for ``mover[node]``) along the path."""
    c = config_of(cfg)
    rooted, enhanced, locked = c.root != "", c.enhanced, c.executor == "tree"
    if c.storage == "dag":
        def on_dag(cfg, pk, params, pkr, rparams, tree, dag, par, node, path, depth, value, x, plies, n_plies, solver,
                   opts, vl, mark):
            who = tree.mover[node]
            if locked:
                backup_path_locked(pk, params, pkr, rparams, rooted, tree, dag, par, path, depth, who, value, vl,
                                   mark, solver)
            else:
                backup_path(pk, params, pkr, rparams, rooted, tree, dag, path, depth, who, value)
            if enhanced and opts[O_RAVE] > 0.0:
                if locked:
                    amaf_update_locked(tree, node, path, plies, min(n_plies, plies.shape[0]), depth, x.seen, who,
                                       value, opts[O_OPP] > 0.0, par.locks, True)
                else:
                    amaf_update_path(tree, path, plies, min(n_plies, plies.shape[0]), depth, x.seen, who, value,
                                     opts[O_OPP] > 0.0)
            if solver and tree.proven[dag.canon[node]] >= 0.0:
                if locked:
                    prove_path_locked(tree, dag, path, depth, par.locks)
                else:
                    prove_path(tree, dag, path, depth)
        return on_dag

    def on_tree(cfg, pk, params, pkr, rparams, tree, dag, par, node, path, depth, value, x, plies, n_plies, solver,
                opts, vl, mark):
        if locked:
            backup_locked(tree, node, value, pk, params, pkr, rparams, rooted, solver, vl, par, mark)
        else:
            backup_rooted(tree, node, value, pk, params, pkr, rparams, rooted, solver)
        if enhanced and opts[O_RAVE] > 0.0:
            if locked:
                amaf_update_locked(tree, node, path, plies, min(n_plies, plies.shape[0]), depth, x.seen,
                                   tree.mover[node], value, opts[O_OPP] > 0.0, par.locks, False)
            else:
                amaf_update(tree, node, plies, min(n_plies, plies.shape[0]), depth, x.seen, value, opts[O_OPP] > 0.0)
    return on_tree


@nb.njit(cache=True, inline="always")
def iterate(cfg, pk, params, pkr, rparams, tree, dag, par, root_state, x, solver, opts, vl, max_depth):
    """One whole iteration (steps 1-3); returns its status (RUNNING when it was recorded)."""
    status, node, depth = descend(cfg, pk, params, pkr, rparams, tree, dag, par, root_state, x, solver, opts, vl,
                                  max_depth)
    if status != RUNNING:
        return status, node
    status, value, kind, n_plies = leaf_value(cfg, tree, dag, node, x.s, x.plies, depth, x.rng, opts, solver)
    if status != RUNNING:
        return status, node
    mark = solver and kind == LEAF_TERMINAL
    prove_leaf(cfg, tree, dag, node, value, mark)
    backup_step(cfg, pk, params, pkr, rparams, tree, dag, par, node, x.path, depth, value, x, x.plies, n_plies,
                solver, opts, vl, mark)
    return RUNNING, node
