"""MCTS with any :mod:`bandits` policy as the node policy: ``search(game, policy, ...)``.

One iteration (Kocsis & Szepesvari, 2006; Browne et al., 2012, "A survey of MCTS methods"):

1. selection: from the root, each expanded node's policy picks a child (``tree.descend``);
2. expansion: an unexpanded node reached a second time (the root at once) gets all its children,
   and its policy picks one of them (untried arms first);
3. simulation: uniformly random moves from the new node to the end of the game;
4. backup: the result (1 win, 0.5 draw, 0 loss) is recorded at every node of the path from the view
   of the player who moved into it (``tree.backup``).

Two drivers run these same kernels: a compiled game (one with ``kernels``) runs the whole loop
compiled (:mod:`treepolicies.compiled`); any other game object with the seeds' interface (copy,
legal_moves, play, terminal, reward(player), to_move) is driven from Python.

Clocks: everything that may compile (the policy's kernels, the game's search loop, the tree
kernels) is compiled, or loaded from numba's disk cache, *before* the clock starts, so a
``seconds`` budget is spent searching; ``elapsed`` counts the search alone.

Stopping: after ``iterations``, after ``seconds`` of wall-clock time, when the root is proven
(solver), or, for the robust final move, as soon as the most visited root move leads the second by
more than the iterations left.  Final move: ``"robust"`` = most visits (ties: higher mean), ``"max"``
= highest mean among visited moves (ties: more visits).  With the solver a proven win is played at
once and proven losses are avoided.
"""
from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from bandits import Policy, make_policy
from bandits.rng import Stream, make_stream, randint
from bandits.stats import COUNT, MEAN
from treepolicies.compiled import BAD_ARM, EARLY, FULL_STATUS, PROVEN, compile_loop, make_loop
from treepolicies.tree import FULL, Tree, backup, descend, expand, extract_subtree, leader_is_safe, mark_terminal, select_child, should_expand

__all__ = ["search", "SearchResult", "reroot", "DEFAULT_NODE_CAP", "FINALS"]

DEFAULT_NODE_CAP = 2_000_000
MAX_ITERATIONS = 2**62  # the compiled loop counts iterations in int64
FINALS = ("robust", "max")
_STOP = {0: "iterations", FULL_STATUS: "node_cap", EARLY: "early", PROVEN: "proven"}


@dataclasses.dataclass
class SearchResult:
    """What a search found.

    move        the move chosen
    moves       (K,) the root's moves
    visits      (K,) int64 visits of each root move
    values      (K,) float64 mean result of each root move for the player to move at the root
    proven      (K,) float64 proven value of each root move for that player (-1 unknown; solver)
    tree_size   nodes in the tree
    iterations  iterations run by this search (not counting reused ones)
    elapsed     seconds
    stop_reason "iterations", "seconds", "early", "proven" or "node_cap"
    policy      spec of the node policy (bound horizon included)
    tree        the tree (for reuse; see :func:`reroot`)
    """

    move: object
    moves: list
    visits: np.ndarray
    values: np.ndarray
    proven: np.ndarray
    tree_size: int
    iterations: int
    elapsed: float
    stop_reason: str
    policy: str
    tree: Tree = dataclasses.field(repr=False, compare=False)


def _check_budget(iterations, seconds):
    if iterations is None and seconds is None:
        raise ValueError("give a budget: iterations=N (>= 1) and/or seconds=S (> 0)")
    if iterations is not None:
        if isinstance(iterations, bool) or not isinstance(iterations, (int, np.integer)) \
                or not 1 <= iterations <= MAX_ITERATIONS:
            raise ValueError(f"iterations must be an integer in 1..{MAX_ITERATIONS}, got {iterations!r}")
        iterations = int(iterations)
    if seconds is not None:
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float, np.number)) \
                or not math.isfinite(seconds) or seconds <= 0:
            raise ValueError(f"seconds must be a number > 0, got {seconds!r}")
        seconds = float(seconds)
    return iterations, seconds


def _check_game(game):
    for name in ("copy", "legal_moves", "play", "terminal", "reward"):
        if not callable(getattr(game, name, None)):
            raise ValueError(f"game must have the methods copy, legal_moves, play, terminal, reward "
                             f"and the attribute to_move; {type(game).__name__} has no {name}()")
    if not hasattr(game, "to_move"):
        raise ValueError(f"game must have a to_move attribute; {type(game).__name__} has none")
    if game.terminal():
        raise ValueError("the game is over: there is no move to search")


def bind_policy(policy, iterations):
    """The node policy from a Policy or spec, with its horizon bound to ``iterations`` if it needs one."""
    shown = policy.strip() if isinstance(policy, str) else None
    policy = make_policy(policy)
    short = None if iterations is None else policy.horizon_short_of(iterations)
    if short is not None:
        raise ValueError(f"node policy {shown or policy.spec!r} has horizon={short}, fewer than the {iterations} "
                         f"iterations (playouts) per move: the root would run past its horizon; drop horizon= "
                         f"(it is then given the iterations) or make it at least {iterations}")
    if policy.needs_horizon:
        if iterations is None:
            raise ValueError(f"node policy {policy.spec!r} needs a horizon, which a search takes from "
                             "iterations=N; with only seconds= give horizon=T or episodic=true")
        policy = policy.bind(iterations)
    return policy


def _key(game):
    state = getattr(game, "state", None)
    return state.tobytes() if isinstance(state, np.ndarray) and hasattr(game, "kernels") else None


def search(game, policy, iterations=None, seconds=None, seed=0, final="robust", solver=False,
           node_cap=DEFAULT_NODE_CAP, early_stop=True, tree=None, compiled=None,
           specialize=False) -> SearchResult:
    """Run MCTS from ``game``'s position with ``policy`` as the node policy (module docstring).

    Parameters
    ----------
    game : a game object (seeds' interface) or a compiled game (``kernels``, ``state``); not changed
    policy : bandits.Policy or spec string, e.g. ``"ucb1:c=0.5"``, ``"miucb:episodic=true"``
    iterations, seconds : budget (at least one; the search stops at whichever comes first)
    seed : int or bandits.rng.Stream (a Stream is advanced, so successive searches differ)
    final : "robust" (most visits) or "max" (highest mean)
    solver : MCTS-Solver proofs (treepolicies.tree)
    node_cap : most nodes the tree may hold (>= 2); when reached the search stops gracefully with
        ``stop_reason="node_cap"`` (memory per node: treepolicies.tree.bytes_per_node)
    early_stop : stop when the robust final move is decided (only with ``iterations``)
    tree : a tree from a previous result re-rooted at this position (:func:`reroot`), or None
    compiled : None (compiled when the game has kernels), True or False (force the Python driver)
    specialize : compiled games only: run a search loop compiled for this game *and* this policy
        (the policy's code inside the loop: selection about 3x cheaper than through its function
        values, MCTS on Connect Four about 1.7x faster; one more compilation, cached on disk, per
        game and policy). Default False: one loop per game serves every policy. Same results.
    """
    iterations, seconds = _check_budget(iterations, seconds)
    if final not in FINALS:
        raise ValueError(f"final must be one of {FINALS}, got {final!r}")
    if isinstance(node_cap, bool) or not isinstance(node_cap, (int, np.integer)) or node_cap < 2:
        raise ValueError(f"node_cap must be an integer >= 2, got {node_cap!r}")
    _check_game(game)
    policy = bind_policy(policy, iterations)
    has_kernels = hasattr(game, "kernels") and isinstance(getattr(game, "state", None), np.ndarray)
    if compiled is None:
        compiled = has_kernels
    elif compiled and not has_kernels:
        raise ValueError(f"compiled=True needs a compiled game (with kernels); {type(game).__name__} has none")
    stream = make_stream(seed)
    key = _key(game)

    if tree is not None:
        if tree.policy_spec != policy.spec or tree.compiled != compiled or (key is not None and tree.root_key is not None and tree.root_key != key):
            raise ValueError("tree was built for another position, policy or driver; pass tree=None")
    else:
        initial = (2 * iterations + 1024) if iterations is not None else 1 << 16
        tree = Tree(min(node_cap, initial), policy.state_width, policy.arm_state_width)
        tree.init_root(1 - int(game.to_move))
        tree.policy_spec, tree.compiled, tree.root_key = policy.spec, compiled, key
        tree.root_state = game.state.copy() if has_kernels else None
        tree.kernels = game.kernels if has_kernels else None

    specialize = bool(specialize) and compiled
    _compile_first(game, tree, policy, compiled, solver, specialize)  # before the clock starts
    start = time.perf_counter()
    deadline = None if seconds is None else start + seconds
    early = early_stop and final == "robust" and iterations is not None
    if compiled:
        done, reason = _run_compiled(game, tree, policy, stream, iterations, deadline, solver, early, node_cap,
                                     specialize)
    else:
        done, reason = _run_python(game, tree, policy, stream, iterations, deadline, solver, early, node_cap)
    elapsed = time.perf_counter() - start
    return _result(tree, policy, done, elapsed, reason, final, solver)


def _compile_first(game, tree, policy, compiled, solver, specialize=False) -> None:
    """Compile (or load from the disk cache) everything the search will run, outside its clock."""
    pk = policy.kernels
    rng = np.zeros(4, np.uint64)  # a scratch stream: the search's own is not advanced
    rng[0] = 1
    if compiled:
        loop = make_loop(game.kernels, policy if specialize else None)
        ready = (loop, pk, bool(solver), game.state.dtype)
        if ready in _READY:  # (a player searches every move: compile-check each loop once)
            return
        m = max(1, int(game.max_moves))
        compile_loop(loop, getattr(game, "name", type(game).__name__) + (f" with {policy.name!r}" if specialize else ""),
                     tree.arrays, game.state.copy(), pk, policy.params, np.ones(m, np.bool_), rng, np.empty(m),
                     np.empty(m, np.int64), 0, bool(solver), -1)
        _READY.add(ready)
        return
    if (pk, bool(solver)) in _READY:
        return
    from bandits.compiling import notice

    with notice("the tree kernels"):
        scratch = Tree(4, policy.state_width, policy.arm_state_width)
        scratch.init_root(0)
        a = scratch.arrays
        valid, work = np.ones(16, np.bool_), np.empty(16)
        should_expand(a, 0)
        expand(a, 0, np.arange(2, dtype=np.int64), 2, 1, pk, policy.params, valid)
        node, _ = descend(a, pk, policy.params, valid, rng, work, bool(solver), a.path)
        select_child(a, 0, pk, policy.params, valid, rng, work, bool(solver))
        mark_terminal(a, node, 0.5)
        backup(a, node, 0.5, pk, policy.params, bool(solver))
        leader_is_safe(a, 1)
    _READY.add((pk, bool(solver)))


#: what _compile_first has compiled (or loaded) in this process
_READY: set = set()


def _grow(tree, node_cap) -> bool:
    if tree.capacity >= node_cap:
        return False
    tree.grow(min(node_cap, 2 * tree.capacity))
    return True


def _run_compiled(game, tree, policy, stream, iterations, deadline, solver, early, node_cap, specialize=False):
    loop = make_loop(game.kernels, policy if specialize else None)
    pk = policy.kernels
    m = max(1, int(game.max_moves))
    valid = np.ones(m, np.bool_)
    work = np.empty(m)
    moves = np.empty(m, np.int64)
    root_state = game.state.copy()
    done = 0
    chunk = 64 if deadline is not None else iterations
    while True:
        if iterations is not None:
            chunk = min(chunk, iterations - done)
            if chunk <= 0:
                return done, "iterations"
        if deadline is not None and time.perf_counter() >= deadline:
            return done, "seconds"
        t0 = time.perf_counter()
        left = iterations - done if early else -1
        n, status = loop(tree.arrays, root_state, pk, policy.params, valid, stream.state, work, moves, chunk,
                         bool(solver), left)
        done += n
        if status == BAD_ARM:
            _bad_arm(policy)
        if status == FULL_STATUS:
            if not _grow(tree, node_cap):
                return done, "node_cap"
        elif status != 0:
            return done, _STOP[status]
        elif deadline is not None and time.perf_counter() - t0 < 0.005:
            chunk *= 2  # aim at chunks of about 5 ms or more between clock checks


def _bad_arm(policy):
    raise ValueError(f"node policy {policy.spec!r}: its select kernel returned an arm outside 0..K-1 "
                     "(a kernel must return the index of a valid arm)")


def _code(tree, move) -> int:
    code = tree.codes.get(move)
    if code is None:
        code = len(tree.objects)
        tree.codes[move] = code
        tree.objects.append(move)
    return code


def _reward(game, player) -> float:
    value = game.reward(player)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not 0.0 <= value <= 1.0:
        raise ValueError(f"{type(game).__name__}.reward({player}) must be a number in [0, 1], got {value!r}")
    return float(value)


def _playout(game, rng) -> None:
    kernels = getattr(game, "kernels", None)
    if kernels is not None and isinstance(getattr(game, "state", None), np.ndarray):
        kernels.playout(game.state, rng.state)
        return
    while not game.terminal():
        moves = game.legal_moves()
        if not moves:
            raise ValueError(f"{type(game).__name__} is not terminal but has no legal moves")
        game.play(moves[randint(rng.state, len(moves))])


def _run_python(game, tree, policy, stream, iterations, deadline, solver, early, node_cap):
    """The Python-driven loop: the same steps as treepolicies.compiled, with game method calls."""
    pk, params, rng = policy.kernels, policy.params, stream.state
    solver = bool(solver)
    m = 16
    valid, work = np.ones(m, np.bool_), np.empty(m)
    done = 0
    while iterations is None or done < iterations:
        if deadline is not None and time.perf_counter() >= deadline:
            return done, "seconds"
        arrays = tree.arrays
        if solver and tree.proven[0] >= 0.0:
            return done, "proven"
        node, depth = descend(arrays, pk, params, valid, rng, work, solver, tree.path)
        if node < 0:
            _bad_arm(policy)
        g = game.copy()
        for i in range(depth):
            g.play(tree.objects[tree.path[i]])
        if solver and tree.proven[node] >= 0.0:
            value = float(tree.proven[node])
        else:
            if not g.terminal() and should_expand(arrays, node):
                legal = g.legal_moves()
                if not legal:
                    raise ValueError(f"{type(game).__name__} is not terminal but has no legal moves")
                if len(legal) > m:
                    m = 2 * len(legal)
                    valid, work = np.ones(m, np.bool_), np.empty(m)
                codes = np.array([_code(tree, mv) for mv in legal], np.int64)
                if expand(arrays, node, codes, len(codes), int(g.to_move), pk, params, valid) == FULL:
                    if _grow(tree, node_cap):
                        continue
                    return done, "node_cap"
                node = select_child(arrays, node, pk, params, valid, rng, work, solver)
                if node < 0:
                    _bad_arm(policy)
                g.play(tree.objects[tree.move[node]])
            if g.terminal():
                value = _reward(g, int(tree.mover[node]))
                if solver:
                    mark_terminal(arrays, node, value)
            else:
                _playout(g, stream)
                value = _reward(g, int(tree.mover[node]))
        backup(arrays, node, value, pk, params, solver)
        done += 1
        if early and leader_is_safe(arrays, iterations - done):
            return done, "early"
    return done, "iterations"


def _root_moves(tree):
    f, n = int(tree.first[0]), int(tree.nchild[0])
    if f < 0:
        return [], np.empty(0, np.int64), np.empty(0), np.empty(0)
    codes = tree.move[f:f + n]
    moves = [tree.objects[c] for c in codes] if not tree.compiled else [int(c) for c in codes]
    return (moves, tree.stats[COUNT, f:f + n].astype(np.int64), tree.stats[MEAN, f:f + n].copy(),
            tree.proven[f:f + n].copy())


def choose_index(visits, values, proven, final, solver) -> int:
    """Index of the final move: robust (most visits, ties: higher mean) or max (highest mean among
    visited moves, ties: more visits).  With the solver: a proven win at once, proven losses last."""
    k = len(visits)
    if solver:
        wins = np.flatnonzero(proven == 1.0)
        if wins.size:
            return int(wins[np.argmax(visits[wins])])
    allowed = np.ones(k, bool)
    if solver and np.any(proven != 0.0):
        allowed = proven != 0.0
    if final == "max" and np.any(allowed & (visits > 0)):
        allowed &= visits > 0
        primary, secondary = values, visits
    else:
        primary, secondary = visits, values
    order = np.lexsort((-np.arange(k), secondary, primary, allowed))  # last key is primary
    return int(order[-1])


def _result(tree, policy, done, elapsed, reason, final, solver) -> SearchResult:
    moves, visits, values, proven = _root_moves(tree)
    if not moves:
        raise ValueError("the search ran no iteration (node_cap too small for the root's moves?)")
    i = choose_index(visits, values, proven, final, solver)
    return SearchResult(move=moves[i], moves=moves, visits=visits, values=values, proven=proven,
                        tree_size=tree.size, iterations=done, elapsed=elapsed, stop_reason=reason,
                        policy=policy.spec, tree=tree)


def reroot(tree: Tree, move, game_after=None):
    """The subtree below root move ``move`` as a new tree (tree reuse), or None if it has no node.

    For a compiled game the new root's position is derived by playing ``move`` on the old root's
    state, so a later search from another position refuses the tree (ValueError); for a Python
    game ``game_after`` (the position after the move), if given, is recorded for the same check.
    """
    f, n = int(tree.first[0]), int(tree.nchild[0])
    if f < 0:
        return None
    if tree.compiled:
        code = int(move)
    else:
        code = tree.codes.get(move)
        if code is None:
            return None
    hits = np.flatnonzero(tree.move[f:f + n] == code)
    if hits.size == 0:
        return None
    new = Tree(tree.capacity, tree.pstate.shape[1], tree.astate.shape[0])
    size = extract_subtree(tree.arrays, f + int(hits[0]), new.arrays)
    if size < 0:  # pragma: no cover - a subtree always fits in a tree of the same capacity
        return None
    new.policy_spec, new.compiled, new.codes, new.objects = tree.policy_spec, tree.compiled, tree.codes, tree.objects
    new.kernels, new.root_state = tree.kernels, None
    new.root_key = _key(game_after) if game_after is not None else None
    if tree.kernels is not None and tree.root_state is not None:
        new.root_state = tree.root_state.copy()
        tree.kernels.play(new.root_state, int(move))
        new.root_key = new.root_state.tobytes()
    return new
