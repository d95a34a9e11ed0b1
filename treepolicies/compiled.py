"""The whole MCTS loop compiled for one compiled game, cached on disk: one loop per game, any policy.

``make_loop(kernels)`` returns the njit search loop of a game's :class:`GameKernels`.  The game's
kernels are compiled into it (direct calls: a playout or a move costs what it costs in the game's
own module), while the node policy arrives as an argument, its :class:`bandits.kernels.PolicyKernels`
(first-class function values).  So the loop of each game is compiled once per machine and cached
on disk, and a new policy compiles only its own kernels.  It calls the tree kernels of
:mod:`treepolicies.tree` (selection, expansion, backup: the same functions the Python-driven path
calls), so one iteration never leaves compiled code::

    run(tree, root_state, pk, params, valid, rng, work, moves, n_iter, solver, early)
        -> (iterations done, status)

    tree        TreeArrays (Tree.arrays; tree.path is the scratch for the moves of one descent)
    root_state  the game's state array (not modified)
    pk, params  the node policy (Policy.kernels, Policy.params)
    valid (M,) bool all True, work (M,) float64, moves (M,) int64   with M = game.max_moves
    rng   (4,) uint64                  the search's stream, advanced in place
    n_iter                             iterations to run at most (0 compiles and returns)
    solver                             MCTS-Solver proofs (treepolicies.tree)
    early                              iterations left in the whole budget at the start of this call,
                                       for the early stop of a robust final move; -1: no early stop

Status codes: RUNNING (n_iter done), FULL (the tree has no room to expand; the iteration was not
counted), EARLY (the leading root move cannot be overtaken), PROVEN (the root is proven), BAD_ARM
(the policy's select kernel returned an arm outside 0..K-1; the search reports it as an error),
BAD_REWARD (a result, after the reward bounds' scaling, outside [0, 1]; an error too).

With enhancement options (:mod:`treepolicies.options`: RAVE / GRAVE, a named rollout, a rollout
cap, reward bounds) ``make_loop(kernels, policy, rollout)`` builds the enhanced loop instead: the
same steps, the playout by the game's :class:`treepolicies.games.Rollout`, RAVE selection and the
AMAF backup of :mod:`treepolicies.amaf` when on, and the results scaled by the bounds.  It takes
five more arguments::

    opts (N_OPTS,) float64  SearchOptions.array(bounds)
    view (NSTAT or NVIEW, M)  scratch for what the policy sees (treepolicies.view)
    plies (L,) int64        scratch for one iteration's plies (L >= node capacity + game.max_plies)
    seen (2 * codes,) int64, cmap (codes,) int64   scratch, all -1 (codes = game.move_codes)
    pbuf (M,) float64       scratch for the priors of an expansion (the game's prior kernel,
                            compiled in like the rollout: ``make_loop(..., prior=fn)``)

The plain loop (no option on) is untouched, so plain UCT runs exactly as fast as before.

How the cache works: the loop is a closure over a text key naming the game's kernels (their
qualified names and a hash of their source), and the calls resolve that key at compile time
(numba overloads); numba caches a closure under its code and the values it closes over, so the
key, unlike the kernels themselves, is the same in every process.  Editing a kernel's source
changes the key (a fresh compilation); editing a helper a kernel calls is not noticed (numba's
own rule for functions compiled into others: README, Development).

To make a new compiled game searchable, give it a GameKernels tuple (treepolicies.games); nothing
here changes.
"""
from __future__ import annotations

import hashlib
import inspect

import numba as nb
import numpy as np
from numba.core import types
from numba.extending import overload

from bandits.compiling import notice, track
from treepolicies.amaf import amaf_update
from treepolicies.options import O_CAP, O_LO, O_OPP, O_PRIOR, O_RAVE, O_SCALE, O_WIDEN_K
from treepolicies.view import descend_view, order_by_prior, select_child_view
from treepolicies.tree import FULL, backup, descend, expand, leader_is_safe, mark_terminal, select_child, should_expand

__all__ = ["make_loop", "game_key", "rollout_key", "RUNNING", "FULL_STATUS", "EARLY", "PROVEN", "BAD_ARM",
           "BAD_REWARD"]

RUNNING, FULL_STATUS, EARLY, PROVEN, BAD_ARM, BAD_REWARD = 0, 1, 2, 3, 4, 5
from bandits.stats import FIRST as FIRST_ROW  # noqa: E402

#: key -> GameKernels
_GAMES: dict = {}
_LOOPS: dict = {}


def game_key(kernels) -> str:
    """A text naming a GameKernels tuple: the kernels' qualified names and a hash of their source."""
    h = hashlib.sha256()
    names = []
    for fn in tuple(kernels):
        py = getattr(fn, "py_func", fn)
        names.append(f"{py.__module__}.{py.__qualname__}")
        try:
            h.update(inspect.getsource(py).encode())
        except (OSError, TypeError):
            h.update(py.__code__.co_code)
    return "|".join(names) + "#" + h.hexdigest()[:16]


def rollout_key(rollout) -> str:
    """A text naming a treepolicies.games.Rollout (as game_key does a GameKernels)."""
    return "rollout:" + game_key(rollout)


def _kernel(key, name):
    if not isinstance(key, types.StringLiteral):
        raise nb.core.errors.TypingError(f"the game key must be a compile-time string, got {key}")
    return getattr(_GAMES[key.literal_value], name)


def _rollout_play(rkey, state, rng, plies, cap):  # pragma: no cover - compiled only
    raise NotImplementedError


def _rollout_value(rkey, state, player):  # pragma: no cover
    raise NotImplementedError


def _prior_call(prkey, state, moves, n, out):  # pragma: no cover - compiled only
    raise NotImplementedError


@overload(_prior_call, prefer_literal=True, inline="always")
def _prior_call_impl(prkey, state, moves, n, out):
    if not isinstance(prkey, types.StringLiteral):
        raise nb.core.errors.TypingError(f"the prior key must be a compile-time string, got {prkey}")
    if prkey.literal_value == "":
        def uniform(prkey, state, moves, n, out):
            for j in range(n):
                out[j] = 1.0 / n
        return uniform
    fn = _GAMES[prkey.literal_value]
    return lambda prkey, state, moves, n, out: fn(state, moves, n, out)


def prior_key(fn) -> str:
    """A text naming a prior kernel (as game_key does a GameKernels)."""
    return "prior:" + game_key((fn,))


@overload(_rollout_play, prefer_literal=True, inline="always")
def _rollout_play_impl(rkey, state, rng, plies, cap):
    fn = _kernel(rkey, "play")
    return lambda rkey, state, rng, plies, cap: fn(state, rng, plies, cap)


@overload(_rollout_value, prefer_literal=True, inline="always")
def _rollout_value_impl(rkey, state, player):
    fn = _kernel(rkey, "value")
    return lambda rkey, state, player: fn(state, player)


def _legal(key, state, out):  # pragma: no cover - compiled only (overloads below)
    raise NotImplementedError


def _play(key, state, move):  # pragma: no cover
    raise NotImplementedError


def _to_move(key, state):  # pragma: no cover
    raise NotImplementedError


def _terminal(key, state):  # pragma: no cover
    raise NotImplementedError


def _result(key, state, player):  # pragma: no cover
    raise NotImplementedError


def _playout(key, state, rng):  # pragma: no cover
    raise NotImplementedError


@overload(_legal, prefer_literal=True, inline="always")
def _legal_impl(key, state, out):
    fn = _kernel(key, "legal")
    return lambda key, state, out: fn(state, out)


@overload(_play, prefer_literal=True, inline="always")
def _play_impl(key, state, move):
    fn = _kernel(key, "play")
    return lambda key, state, move: fn(state, move)


@overload(_to_move, prefer_literal=True, inline="always")
def _to_move_impl(key, state):
    fn = _kernel(key, "to_move")
    return lambda key, state: fn(state)


@overload(_terminal, prefer_literal=True, inline="always")
def _terminal_impl(key, state):
    fn = _kernel(key, "terminal")
    return lambda key, state: fn(state)


@overload(_result, prefer_literal=True, inline="always")
def _result_impl(key, state, player):
    fn = _kernel(key, "result")
    return lambda key, state, player: fn(state, player)


@overload(_playout, prefer_literal=True, inline="always")
def _playout_impl(key, state, rng):
    fn = _kernel(key, "playout")
    return lambda key, state, rng: fn(state, rng)


def make_loop(kernels, policy=None, rollout=None, prior=None):
    """The compiled search loop for a game's kernels (made once per process, cached on disk).

    policy: None (the loop takes any policy as its ``pk`` argument), or a bandits.Policy, whose
    code is then compiled into a loop of its own for this game (``specialize=True`` in
    treepolicies.search: faster selection, one more compilation per game and policy; the ``pk``
    argument is then not used).
    rollout: None (the plain loop), or the treepolicies.games.Rollout of the enhanced loop (module
    docstring), one per game and rollout.
    prior: the enhanced loop's prior kernel ``prior(state, moves, n, out)`` (``game.priors``), or
    None for uniform priors.
    """
    pkey = None
    if policy is not None:
        from bandits.registry import policy_key

        pkey, python = policy_key(policy)
        if python:  # a policy running as plain Python gains nothing from a loop of its own
            pkey = None
    loop = _LOOPS.get((kernels, pkey, rollout, prior))
    if loop is None:
        key = game_key(kernels)
        _GAMES[key] = kernels
        if rollout is None:
            loop = track(_build(key, pkey))
        else:
            rkey = rollout_key(rollout)
            _GAMES[rkey] = rollout
            prkey = ""
            if prior is not None:
                prkey = prior_key(prior)
                _GAMES[prkey] = prior
            loop = track(_build_enhanced(key, rkey, pkey, prkey))
        _LOOPS[(kernels, pkey, rollout, prior)] = loop
    return loop


def compile_loop(loop, game_name: str, *args) -> None:
    """Compile (or load from the cache) ``loop`` for these arguments, saying so if it takes a while."""
    with notice(f"the search loop for {game_name}"):
        loop(*args)


def _build(key, pkey):
    if pkey is None:
        @nb.njit(cache=True, nogil=True, error_model="numpy")
        def run(tree, root_state, pk, params, valid, rng, work, moves, n_iter, solver, early):
            return _run(key, pk, tree, root_state, params, valid, rng, work, moves, n_iter, solver, early)
        return run

    @nb.njit(cache=True, nogil=True, error_model="numpy")
    def run_policy(tree, root_state, pk, params, valid, rng, work, moves, n_iter, solver, early):
        return _run(key, pkey, tree, root_state, params, valid, rng, work, moves, n_iter, solver, early)
    return run_policy


def _build_enhanced(key, rkey, pkey, prkey):
    if pkey is None:
        @nb.njit(cache=True, nogil=True, error_model="numpy")
        def run_enhanced(tree, root_state, pk, params, valid, rng, work, moves, n_iter, solver, early, opts, view,
                         plies, seen, cmap, pbuf):
            return _run_enhanced(key, rkey, prkey, pk, tree, root_state, params, valid, rng, work, moves, n_iter,
                                 solver, early, opts, view, plies, seen, cmap, pbuf)
        return run_enhanced

    @nb.njit(cache=True, nogil=True, error_model="numpy")
    def run_enhanced_policy(tree, root_state, pk, params, valid, rng, work, moves, n_iter, solver, early, opts,
                            view, plies, seen, cmap, pbuf):
        return _run_enhanced(key, rkey, prkey, pkey, tree, root_state, params, valid, rng, work, moves, n_iter,
                             solver, early, opts, view, plies, seen, cmap, pbuf)
    return run_enhanced_policy


@nb.njit(cache=True, inline="always")
def _run_enhanced(key, rkey, prkey, pk, tree, root_state, params, valid, rng, work, moves, n_iter, solver, early,
                  opts, view, plies, seen, cmap, pbuf):
    """The loop with the enhancement options (module docstring) for game ``key``, rollout ``rkey``
    and prior kernel ``prkey`` ("" = uniform)."""
    move = tree.move
    mover = tree.mover
    proven = tree.proven
    path = tree.path
    prior = tree.prior
    with_prior = opts[O_PRIOR] > 0.0 and prior.shape[0] == tree.parent.shape[0]
    rave = opts[O_RAVE] > 0.0
    viewed = rave or view.shape[0] > FIRST_ROW or opts[O_WIDEN_K] > 0.0
    opp = opts[O_OPP] > 0.0
    cap = np.int64(opts[O_CAP])
    lo = opts[O_LO]
    scale = opts[O_SCALE]
    room = plies.shape[0]
    s = np.empty_like(root_state)
    done = 0
    while done < n_iter:
        if solver and proven[0] >= 0.0:
            return done, PROVEN
        if viewed:
            node, depth = descend_view(tree, pk, params, valid, rng, work, solver, path, opts, view, cmap)
        else:
            node, depth = descend(tree, pk, params, valid, rng, work, solver, path)
        if node < 0:
            return done, BAD_ARM
        s[:] = root_state
        for i in range(depth):
            if rave:
                plies[i] = 2 * path[i] + _to_move(key, s)
            _play(key, s, path[i])
        n_plies = depth
        if solver and proven[node] >= 0.0:
            value = proven[node]
        else:
            if not _terminal(key, s) and should_expand(tree, node):
                n = _legal(key, s, moves)
                if with_prior:
                    _prior_call(prkey, s, moves, n, pbuf)
                    order_by_prior(moves, pbuf, n)
                if expand(tree, node, moves, n, _to_move(key, s), pk, params, valid) == FULL:
                    return done, FULL_STATUS
                if with_prior:
                    f = tree.first[node]
                    for j in range(n):
                        prior[f + j] = pbuf[j]
                if viewed:
                    node = select_child_view(tree, node, pk, params, valid, rng, work, solver, opts, view, cmap)
                else:
                    node = select_child(tree, node, pk, params, valid, rng, work, solver)
                if node < 0:
                    return done, BAD_ARM
                if rave:
                    plies[n_plies] = 2 * move[node] + _to_move(key, s)
                n_plies += 1
                depth += 1
                _play(key, s, move[node])
            if _terminal(key, s):
                value = (_result(key, s, mover[node]) - lo) * scale
                if not (0.0 <= value <= 1.0):
                    return done, BAD_REWARD
                if solver:
                    mark_terminal(tree, node, value)
            else:
                if rave:
                    n_plies += _rollout_play(rkey, s, rng, plies[n_plies:], cap)
                else:
                    _rollout_play(rkey, s, rng, plies[:0], cap)
                value = (_rollout_value(rkey, s, mover[node]) - lo) * scale
                if not (0.0 <= value <= 1.0):
                    return done, BAD_REWARD
        backup(tree, node, value, pk, params, solver)
        if rave:
            amaf_update(tree, node, plies, min(n_plies, room), depth, seen, value, opp)
        done += 1
        if early >= 0 and leader_is_safe(tree, early - done):
            return done, EARLY
    return done, RUNNING


@nb.njit(cache=True, inline="always")
def _run(key, pk, tree, root_state, params, valid, rng, work, moves, n_iter, solver, early):
    """The loop (module docstring) for game ``key`` and policy ``pk`` (PolicyKernels or a key)."""
    move = tree.move
    mover = tree.mover
    proven = tree.proven
    path = tree.path
    s = np.empty_like(root_state)
    done = 0
    while done < n_iter:
        if solver and proven[0] >= 0.0:
            return done, PROVEN
        node, depth = descend(tree, pk, params, valid, rng, work, solver, path)
        if node < 0:
            return done, BAD_ARM
        s[:] = root_state
        for i in range(depth):
            _play(key, s, path[i])
        if solver and proven[node] >= 0.0:
            value = proven[node]
        else:
            if not _terminal(key, s) and should_expand(tree, node):
                n = _legal(key, s, moves)
                if expand(tree, node, moves, n, _to_move(key, s), pk, params, valid) == FULL:
                    return done, FULL_STATUS
                node = select_child(tree, node, pk, params, valid, rng, work, solver)
                if node < 0:
                    return done, BAD_ARM
                _play(key, s, move[node])
            if _terminal(key, s):
                value = _result(key, s, mover[node])
                if solver:
                    mark_terminal(tree, node, value)
            else:
                _playout(key, s, rng)
                value = _result(key, s, mover[node])
            if not (0.0 <= value <= 1.0):
                return done, BAD_REWARD
        backup(tree, node, value, pk, params, solver)
        done += 1
        if early >= 0 and leader_is_safe(tree, early - done):
            return done, EARLY
    return done, RUNNING
