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

Enhancements (:mod:`treepolicies.options`, docs/enhancements.md): ``rave``, ``rave_schedule``,
``rave_k``, ``rave_bias``, ``grave_ref``, ``rollout``, ``rollout_cap`` and ``reward_bounds`` are
keywords of :func:`search` (and keys of player specs); with all of them at their defaults the search
is exactly the plain one.  An option a game or driver cannot support is refused with one line.

Parallel search (:mod:`treepolicies.parallel`, docs/parallel.md): ``threads=N`` with
``parallel="tree"`` (one shared tree, per-node locks, ``virtual_loss``), ``"root"`` (N independent
searches, :func:`_search_root`) or ``"leaf"`` (N playouts per descent); ``threads=1`` is the search
above, unchanged.
"""
from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from bandits import Policy, make_policy
from bandits.rng import Stream, make_stream, randint
from bandits.stats import COUNT, MEAN
from bandits.stats import NSTAT, NVIEW
from treepolicies.amaf import amaf_update
from treepolicies.evaluate import compile_steps, get_evaluator, run_evaluated, run_evaluated_dag, virtual_loss
from treepolicies.transpositions import (offers_hash, prepare_transposed, prepare_transposed_python, reroot_dag,
                                         run_transposed, run_transposed_python)
from treepolicies.view import descend_view, order_by_prior, select_child_view
from treepolicies.compiled import BAD_ARM, BAD_REWARD, EARLY, FULL_STATUS, PROVEN, compile_loop, make_loop
from treepolicies.options import SearchOptions, check_bounds
from treepolicies.parallel import check_parallel, compile_parallel, run_leaf_parallel, run_tree_parallel
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
           specialize=False, *, rave=False, rave_schedule="hand", rave_k=1000.0, rave_bias=0.015, grave_ref=0,
           rollout="random", rollout_cap=None, reward_bounds=None, fpu="inf", fpu_reduction=None,
           prior="uniform", widen_k=None, widen_alpha=0.5, evaluator=None, eval_batch=1, value_mix=0.0,
           transpositions=False, options=None, threads=1, parallel="tree", virtual_loss=1) -> SearchResult:
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
    rave, rave_schedule, rave_k, rave_bias, grave_ref, rollout, rollout_cap, reward_bounds, fpu,
    fpu_reduction, prior, widen_k, widen_alpha, evaluator, eval_batch, value_mix, transpositions :
        the enhancements (treepolicies.options.SearchOptions, which documents each and its default);
        ``options``: a SearchOptions instead of these keywords.
    threads : 1..256 threads (default 1: the single-threaded search, exactly as without the keyword)
    parallel : with threads > 1, "tree" (one shared tree, virtual loss), "root" (``threads``
        independent trees, root statistics summed) or "leaf" (one descent, ``threads`` playouts from
        its leaf); treepolicies.parallel and docs/parallel.md
    virtual_loss : visits (an integer in 0..1000, default 1) a tree-parallel descent adds to each
        node of its path until its backup
    """
    iterations, seconds = _check_budget(iterations, seconds)
    if options is None:
        options = SearchOptions(rave=rave, rave_schedule=rave_schedule, rave_k=rave_k, rave_bias=rave_bias,
                                grave_ref=grave_ref, rollout=rollout, rollout_cap=rollout_cap,
                                reward_bounds=reward_bounds, fpu=fpu, fpu_reduction=fpu_reduction, prior=prior,
                                widen_k=widen_k, widen_alpha=widen_alpha, evaluator=evaluator,
                                eval_batch=eval_batch, value_mix=value_mix, transpositions=transpositions)
    elif not isinstance(options, SearchOptions):
        raise ValueError(f"options must be a treepolicies.options.SearchOptions, got {type(options).__name__}")
    if final not in FINALS:
        raise ValueError(f"final must be one of {FINALS}, got {final!r}")
    if isinstance(node_cap, bool) or not isinstance(node_cap, (int, np.integer)) or node_cap < 2:
        raise ValueError(f"node_cap must be an integer >= 2, got {node_cap!r}")
    _check_game(game)
    threads, parallel, virtual_loss = check_parallel(threads, parallel, virtual_loss)
    if threads > 1 and parallel == "root":
        return _search_root(game, policy, iterations, seconds, seed, final, solver, node_cap, early_stop, tree,
                            compiled, specialize, options, threads)
    policy = bind_policy(policy, iterations)
    has_kernels = hasattr(game, "kernels") and isinstance(getattr(game, "state", None), np.ndarray)
    if compiled is None:
        compiled = has_kernels
    elif compiled and not has_kernels:
        raise ValueError(f"compiled=True needs a compiled game (with kernels); {type(game).__name__} has none")
    bounds = _bounds(game, options)
    run = _Enhanced(game, options, bounds, compiled)
    if options.transpositions:
        _check_transpositions(game, options, compiled, solver, tree)
    shared = threads > 1  # tree or leaf parallelism: threads on one tree
    if shared:
        check_shared(game, options, compiled, parallel)
    stream = make_stream(seed)
    key = _key(game)

    if tree is not None:
        if tree.policy_spec != policy.spec or tree.compiled != compiled or (key is not None and tree.root_key is not None and tree.root_key != key):
            raise ValueError("tree was built for another position, policy or driver; pass tree=None")
        if (tree.options or SearchOptions()) != options:
            raise ValueError("tree was built with other search options (rave, rollout, ...); pass tree=None")
    else:
        initial = (2 * iterations + 1024) if iterations is not None else 1 << 16
        tree = Tree(min(node_cap, initial), policy.state_width, policy.arm_state_width, amaf=options.rave,
                    prior=run.prior is not None or run.evaluator is not None)
        tree.init_root(1 - int(game.to_move))
        tree.options = options
        tree.policy_spec, tree.compiled, tree.root_key = policy.spec, compiled, key
        tree.root_state = game.state.copy() if has_kernels else None
        tree.kernels = game.kernels if has_kernels else None

    specialize = bool(specialize) and compiled
    if shared:
        compile_parallel(game, tree, policy, solver, parallel, specialize)  # before the clock starts
    else:
        _compile_first(game, tree, policy, compiled and run.evaluator is None and not options.transpositions, solver,
                       specialize, run)  # before the clock starts
        if run.evaluator is not None:
            compile_steps(game, run)
    if options.transpositions:
        if compiled or run.evaluator is not None:
            prepare_transposed(game, tree, policy, run)
        else:
            prepare_transposed_python(game, tree)
    start = time.perf_counter()
    deadline = None if seconds is None else start + seconds
    early = early_stop and final == "robust" and iterations is not None
    if shared:
        streams = [stream.spawn() for _ in range(threads - 1)]
        streams.insert(0, stream)
        if parallel == "tree":
            done, reason = run_tree_parallel(game, tree, policy, streams, iterations, deadline, solver, early,
                                             node_cap, virtual_loss, specialize, lambda: _grow(tree, node_cap))
        else:
            done, reason = run_leaf_parallel(game, tree, policy, streams, iterations, deadline, solver, early,
                                             node_cap, specialize, lambda: _grow(tree, node_cap))
        if reason == BAD_ARM:
            _bad_arm(policy)
        if reason == BAD_REWARD:
            _bad_reward(game, run)
    elif options.transpositions and run.evaluator is not None:
        done, reason, _ = run_evaluated_dag(game, tree, policy, stream, iterations, deadline, solver, early, node_cap,
                                            run, run.evaluator, options.eval_batch, options.value_mix,
                                            lambda: _grow(tree, node_cap), _bad_arm)
    elif options.transpositions:
        driver = run_transposed if compiled else run_transposed_python
        done, reason = driver(game, tree, policy, stream, iterations, deadline, early, node_cap, run,
                              lambda: _grow(tree, node_cap), solver)
        if reason == BAD_ARM:
            _bad_arm(policy)
        if reason == BAD_REWARD:
            _bad_reward(game, run)
    elif run.evaluator is not None:
        done, reason, _ = run_evaluated(game, tree, policy, stream, iterations, deadline, solver, early, node_cap, run,
                                        run.evaluator, options.eval_batch, options.value_mix,
                                        lambda: _grow(tree, node_cap), _bad_arm)
    elif compiled:
        done, reason = _run_compiled(game, tree, policy, stream, iterations, deadline, solver, early, node_cap,
                                     specialize, run)
    else:
        done, reason = _run_python(game, tree, policy, stream, iterations, deadline, solver, early, node_cap, run)
    elapsed = time.perf_counter() - start
    return _result(tree, policy, done, elapsed, reason, final, solver)


def check_shared(game, options, compiled, parallel) -> None:
    """Refuse, in one line, what tree and leaf parallelism do not support (treepolicies.parallel);
    ``game`` None: check the options alone."""
    name = getattr(game, "name", "") or type(game).__name__
    if game is not None and not compiled:
        raise ValueError(f"parallel={parallel!r} runs compiled threads, so it needs a compiled game (with kernels) "
                         f"searched compiled; {name} is not (parallel='root' works with any game)")
    clash = [k for k, on in (("rave", options.rave), ("rollout", options.rollout != "random"),
                             ("rollout_cap", options.rollout_cap is not None),
                             ("reward_bounds", options.reward_bounds is not None), ("fpu", options.fpu != "inf"),
                             ("prior", options.prior != "uniform"), ("widen_k", options.widen_k is not None),
                             ("evaluator", options.evaluator is not None),
                             ("transpositions", options.transpositions)) if on]
    if clash:
        raise ValueError(f"parallel={parallel!r} does not combine with {', '.join(clash)} yet "
                         "(parallel='root' combines with every option)")
    if game is not None and getattr(game, "reward_bounds", None) is not None:
        raise ValueError(f"parallel={parallel!r} does not combine with reward_bounds yet ({name} declares them; "
                         "parallel='root' works)")


def _search_root(game, policy, iterations, seconds, seed, final, solver, node_cap, early_stop, tree, compiled,
                 specialize, options, threads) -> SearchResult:
    """Root parallelism: ``threads`` independent searches from the same position, each with one of
    ``threads`` streams spawned in order from the search's stream (``make_stream(seed).spawn()``), tree
    i running ``iterations // threads`` iterations (one more for i < iterations % threads; a tree with
    none is skipped), or the whole ``seconds``.  The root moves' visits are summed, their values are
    the visit-weighted means, a proof found by any tree counts; the final move is chosen from these.
    The result's ``tree`` is tree 0's; ``tree_size`` and ``iterations`` are the sums."""
    from concurrent.futures import ThreadPoolExecutor

    if tree is not None:
        raise ValueError("parallel='root' builds its own trees: tree reuse (tree=, reuse=true) does not combine "
                         "with it; pass tree=None")
    bind_policy(policy, iterations)  # the policy's own errors first, in one line
    stream = make_stream(seed)
    streams = [stream.spawn() for _ in range(threads)]
    if iterations is None:
        shares = [None] * threads
    else:
        shares = [iterations // threads + (1 if i < iterations % threads else 0) for i in range(threads)]
    jobs = [(share, st) for share, st in zip(shares, streams) if share != 0]

    deadline = None

    def one(job):
        share, st = job
        left = None if seconds is None else max(1e-4, deadline - time.perf_counter())  # one clock for all trees
        return search(game, policy, iterations=share, seconds=left, seed=st, final=final, solver=solver,
                      node_cap=node_cap, early_stop=early_stop, compiled=compiled, specialize=specialize,
                      options=options)

    search(game, policy if iterations is not None else bind_policy(policy, None), iterations=1, seed=Stream(0),
           solver=solver, node_cap=node_cap, compiled=compiled, specialize=specialize,
           options=options)  # compiles (or loads) everything in this thread, outside the clock
    start = time.perf_counter()
    deadline = None if seconds is None else start + seconds
    with ThreadPoolExecutor(len(jobs), thread_name_prefix="banditree-root") as pool:
        results = list(pool.map(one, jobs))
    elapsed = time.perf_counter() - start
    return combine_root(results, final, solver, elapsed)


def combine_root(results, final="robust", solver=False, elapsed=0.0) -> SearchResult:
    """One SearchResult from the independent searches of root parallelism (:func:`_search_root`)."""
    first = results[0]
    moves = list(first.moves)
    visits = np.zeros(len(moves), np.int64)
    sums = np.zeros(len(moves))
    proven = np.full(len(moves), -1.0)
    for r in results:
        for j, mv in enumerate(r.moves):
            i = j if j < len(moves) and moves[j] == mv else moves.index(mv)
            visits[i] += r.visits[j]
            sums[i] += r.values[j] * r.visits[j]
            if r.proven[j] >= 0.0:
                proven[i] = r.proven[j]
    values = np.divide(sums, visits, out=np.zeros(len(moves)), where=visits > 0)
    reasons = {r.stop_reason for r in results}
    reason = next((x for x in ("node_cap", "proven", "seconds", "iterations") if x in reasons), first.stop_reason) \
        if len(reasons) > 1 else first.stop_reason
    i = choose_index(visits, values, proven, final, solver)
    return SearchResult(move=moves[i], moves=moves, visits=visits, values=values, proven=proven,
                        tree_size=sum(r.tree_size for r in results), iterations=sum(r.iterations for r in results),
                        elapsed=elapsed, stop_reason=reason, policy=first.policy, tree=first.tree)


def _check_transpositions(game, options, compiled, solver, tree) -> None:
    """Refuse, in one line, what transpositions do not support (treepolicies.transpositions)."""
    name = getattr(game, "name", "") or type(game).__name__
    if compiled and getattr(game, "key_kernel", None) is None:
        raise ValueError(f"transpositions need a compiled game with a position key kernel (game.key_kernel); "
                         f"{name} has none")
    if not compiled and not offers_hash(game):
        raise ValueError(f"transpositions on a Python game need its class to define __hash__ over the position "
                         f"(e.g. hash((board, to_move)), with a matching __eq__); {name} has only the identity hash")
    if options.evaluator is not None and getattr(game, "key_kernel", None) is None:
        raise ValueError(f"transpositions with an evaluator need a compiled game with a position key kernel "
                         f"(game.key_kernel); {name} has none")
    if tree is not None and tree.dag is None:
        raise ValueError("transpositions=True needs a tree built with transpositions (pass tree=None)")


def _bounds(game, options):
    """The reward bounds in force: the search's own, else the game's ``reward_bounds``, else None."""
    if options.reward_bounds is not None:
        return options.reward_bounds
    declared = getattr(game, "reward_bounds", None)
    if declared is None:
        return None
    return check_bounds(declared, f"{type(game).__name__}.reward_bounds")


class _Enhanced:
    """What one search runs for its options: the rollout kernel and the scratch arrays of the
    enhanced compiled loop (``rollout`` None: the plain loop), or the Python driver's rollout rules.
    Refuses, with one line, an option the game or driver cannot support."""

    def __init__(self, game, options, bounds, compiled):
        self.options, self.bounds = options, bounds
        self.opts = options.array(bounds)
        self.rollout = None
        name = getattr(game, "name", "") or type(game).__name__
        rollouts = getattr(game, "rollouts", None) or {}
        needs_kernel = not options.plain
        has_kernels = hasattr(game, "kernels") and isinstance(getattr(game, "state", None), np.ndarray)
        self.evaluator = get_evaluator(options.evaluator)
        if self.evaluator is not None:
            if not has_kernels:
                raise ValueError(f"evaluator: the leaf evaluator takes state arrays, so it needs a compiled game; "
                                 f"{name} is a Python game")
            if options.prior != "uniform":
                raise ValueError(f"evaluator and prior={options.prior!r} are two sources of priors: the evaluator's "
                                 "are the children's priors (drop prior=)")
            needs_kernel = options.rave or options.rollout != "random" or options.rollout_cap is not None
        elif options.value_mix > 0.0 or options.eval_batch != 1:
            raise ValueError("eval_batch and value_mix go with evaluator=...")
        if has_kernels and needs_kernel and options.rollout not in rollouts:
            if rollouts:
                raise ValueError(f"rollout={options.rollout!r} is not offered by {name}; its rollouts: "
                                 f"{', '.join(rollouts)}")
            if compiled:
                raise ValueError(f"rave, rollout, rollout_cap and reward_bounds need a compiled game with "
                                 f"rollout kernels (game.rollouts, treepolicies.games.Rollout); {name} has none "
                                 "(or search it with compiled=False)")
        if has_kernels and options.rollout in rollouts:
            self.kernel = rollouts[options.rollout]
        else:
            self.kernel = None
        if compiled and needs_kernel and self.evaluator is None:
            self.rollout = self.kernel
        self.prior = None
        priors = getattr(game, "priors", None) or {}
        if options.prior != "uniform":
            if options.prior not in priors:
                raise ValueError(f"prior={options.prior!r} is not offered by {name}; its priors: "
                                 f"{', '.join(['uniform', *priors])}")
            self.prior = priors[options.prior]
        if not has_kernels:
            if options.rollout != "random":
                raise ValueError(f"rollout={options.rollout!r}: a Python game ({name}) has only the random "
                                 "rollout (its legal_moves); a compiled game may offer more (game.rollouts)")
            if options.rollout_cap is not None and not callable(getattr(game, "value", None)):
                raise ValueError(f"rollout_cap needs the game to score an unfinished position: give "
                                 f"{type(game).__name__} a value(player) method returning a number in its reward range")

    def scratch(self, game, tree):
        """(view, plies, seen, cmap, pbuf) for the enhanced compiled loop."""
        m = max(1, int(game.max_moves))
        codes = max(1, int(getattr(game, "move_codes", 0) or m))
        plies = np.empty(tree.capacity + max(1, int(getattr(game, "max_plies", 0) or 0)) + 1, np.int64)
        rows = NVIEW if self.options.view else NSTAT
        return (np.empty((rows, m)), plies, np.full(2 * codes, -1, np.int64), np.full(codes, -1, np.int64),
                np.empty(m))


def _compile_first(game, tree, policy, compiled, solver, specialize=False, run=None) -> None:
    """Compile (or load from the disk cache) everything the search will run, outside its clock."""
    pk = policy.kernels
    rng = np.zeros(4, np.uint64)  # a scratch stream: the search's own is not advanced
    rng[0] = 1
    rollout = run.rollout if run is not None else None
    if compiled:
        loop = make_loop(game.kernels, policy if specialize else None, rollout, run.prior if rollout is not None else None)
        ready = (loop, pk, bool(solver), game.state.dtype, run.options.view if run is not None else False)
        if ready in _READY:  # (a player searches every move: compile-check each loop once)
            return
        m = max(1, int(game.max_moves))
        args = (tree.arrays, game.state.copy(), pk, policy.params, np.ones(m, np.bool_), rng, np.empty(m),
                np.empty(m, np.int64), 0, bool(solver), -1)
        if rollout is not None:
            args += (run.opts,) + run.scratch(game, tree)
        what = getattr(game, "name", type(game).__name__) + (f" with {policy.name!r}" if specialize else "")
        compile_loop(loop, what + (" (enhanced)" if rollout is not None else ""), *args)
        _READY.add(ready)
        return
    viewed = run is not None and (run.options.rave or run.options.view)
    if (pk, bool(solver), viewed) in _READY:
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
        if viewed:
            rave = Tree(4, policy.state_width, policy.arm_state_width, amaf=True, prior=True)
            rave.init_root(0)
            b = rave.arrays
            expand(b, 0, np.arange(2, dtype=np.int64), 2, 1, pk, policy.params, valid)
            cmap, seen = np.full(4, -1, np.int64), np.full(8, -1, np.int64)
            for view in (np.empty((NSTAT, 16)), np.empty((NVIEW, 16))):
                node, _ = descend_view(b, pk, policy.params, valid, rng, work, bool(solver), b.path, run.opts, view,
                                       cmap)
                select_child_view(b, 0, pk, policy.params, valid, rng, work, bool(solver), run.opts, view, cmap)
            amaf_update(b, node, np.zeros(1, np.int64), 1, 1, seen, 0.5, True)
            order_by_prior(np.arange(2, dtype=np.int64), np.ones(2), 2)
            virtual_loss(b, node, 1.0)
            virtual_loss(b, node, -1.0)
    _READY.add((pk, bool(solver), viewed))


#: what _compile_first has compiled (or loaded) in this process
_READY: set = set()


def _grow(tree, node_cap) -> bool:
    if tree.capacity >= node_cap:
        return False
    tree.grow(min(node_cap, 2 * tree.capacity))
    return True


def _run_compiled(game, tree, policy, stream, iterations, deadline, solver, early, node_cap, specialize=False,
                  run=None):
    rollout = run.rollout if run is not None else None
    loop = make_loop(game.kernels, policy if specialize else None, rollout, run.prior if rollout is not None else None)
    extra = (run.opts,) + run.scratch(game, tree) if rollout is not None else ()
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
                         bool(solver), left, *extra)
        done += n
        if status == BAD_ARM:
            _bad_arm(policy)
        if status == BAD_REWARD:
            _bad_reward(game, run)
        if status == FULL_STATUS:
            if not _grow(tree, node_cap):
                return done, "node_cap"
            if rollout is not None:
                extra = (run.opts,) + run.scratch(game, tree)
        elif status != 0:
            return done, _STOP[status]
        elif deadline is not None and time.perf_counter() - t0 < 0.005:
            chunk *= 2  # aim at chunks of about 5 ms or more between clock checks


def _bad_arm(policy):
    raise ValueError(f"node policy {policy.spec!r}: its select kernel returned an arm outside 0..K-1 "
                     "(a kernel must return the index of a valid arm)")


def _bad_reward(game, run):
    name = getattr(game, "name", "") or type(game).__name__
    if run is not None and run.bounds is not None:
        raise ValueError(f"{name}: a result lies outside reward_bounds={run.bounds}")
    raise ValueError(f"{name}: a result lies outside [0, 1]; declare the game's range with "
                     "reward_bounds=(lo, hi) (a search keyword or a game attribute) to have it scaled")


def _code(tree, move) -> int:
    code = tree.codes.get(move)
    if code is None:
        code = len(tree.objects)
        tree.codes[move] = code
        tree.objects.append(move)
    return code


def _reward(game, player, bounds=None, method="reward") -> float:
    """game.reward(player) (or game.value(player) for a capped rollout), scaled by ``bounds``."""
    value = getattr(game, method)(player)
    lo, hi = bounds if bounds is not None else (0.0, 1.0)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not lo <= value <= hi:
        hint = "" if bounds is not None else " (declare another range with reward_bounds=(lo, hi))"
        raise ValueError(f"{type(game).__name__}.{method}({player}) must be a number in [{lo:g}, {hi:g}], "
                         f"got {value!r}{hint}")
    return (float(value) - lo) / (hi - lo)


def _playout(game, rng, run=None, tree=None, plies=None) -> bool:
    """Play the playout on ``game`` in place; True if the rollout cap stopped it before the end.

    With ``plies`` (a list; RAVE) append ``2 * code + player`` for each move, ``code`` the tree's
    code of the move.  A compiled game plays its rollout kernel (``run.kernel``; its playout kernel
    when nothing is recorded or capped), any other game (a compiled one without rollout kernels
    too) uniformly random moves from ``legal_moves``.
    """
    cap = run.options.rollout_cap if run is not None else None
    kernels = getattr(game, "kernels", None)
    if kernels is not None and isinstance(getattr(game, "state", None), np.ndarray) and (
            (plies is None and cap is None) or (run is not None and run.kernel is not None)):
        if plies is None and cap is None:
            kernels.playout(game.state, rng.state)  # (the "random" rollout makes the same draws)
            return False
        buf = np.empty(max(1, int(getattr(game, "max_plies", 0) or 0)) + 1, np.int64)
        n = int(run.kernel.play(game.state, rng.state, buf, -1 if cap is None else cap))
        if plies is not None:
            for x in buf[:min(n, buf.size)]:
                plies.append(2 * _code(tree, int(x) >> 1) + (int(x) & 1))
        return not game.terminal()
    k = 0
    while not game.terminal():
        if cap is not None and k >= cap:
            return True
        moves = game.legal_moves()
        if not moves:
            raise ValueError(f"{type(game).__name__} is not terminal but has no legal moves")
        mv = moves[randint(rng.state, len(moves))]
        if plies is not None:
            plies.append(2 * _code(tree, mv) + int(game.to_move))
        game.play(mv)
        k += 1
    return False


def _leaf_value(g, player, run, capped) -> float:
    """The result of the iteration for ``player``, scaled to [0, 1] by the bounds in force."""
    bounds = run.bounds if run is not None else None
    if not capped:
        return _reward(g, player, bounds)
    if hasattr(g, "kernels") and run.kernel is not None:
        value = float(run.kernel.value(g.state, player))
        lo, hi = bounds if bounds is not None else (0.0, 1.0)
        if not lo <= value <= hi:
            _bad_reward(g, run)
        return (value - lo) / (hi - lo)
    return _reward(g, player, bounds, "value")


class _PythonScratch:
    """The Python driver's scratch arrays, grown with the children counts and the move codes."""

    def __init__(self, rows=NSTAT):
        self.m, self.rows = 16, rows
        self.valid, self.work, self.view = np.ones(16, np.bool_), np.empty(16), np.empty((rows, 16))
        self.seen = self.cmap = np.full(1, -1, np.int64)

    def children(self, n):
        if n > self.m:
            self.m = 2 * n
            self.valid, self.work, self.view = np.ones(self.m, np.bool_), np.empty(self.m), np.empty((self.rows, self.m))

    def codes(self, n):
        if n > self.cmap.size:
            self.cmap = np.full(2 * n, -1, np.int64)
            self.seen = np.full(4 * n, -1, np.int64)


def _run_python(game, tree, policy, stream, iterations, deadline, solver, early, node_cap, run=None):
    """The Python-driven loop: the same steps as treepolicies.compiled, with game method calls."""
    pk, params, rng = policy.kernels, policy.params, stream.state
    solver = bool(solver)
    rave = run is not None and run.options.rave
    viewed = run is not None and (run.options.rave or run.options.view)
    opts = run.opts if run is not None else None
    opp = bool(run is not None and run.options.grave_ref > 0)
    prior_fn = run.prior if run is not None else None
    sc = _PythonScratch(NVIEW if run is not None and run.options.view else NSTAT)
    done = 0
    while iterations is None or done < iterations:
        if deadline is not None and time.perf_counter() >= deadline:
            return done, "seconds"
        arrays = tree.arrays
        if solver and tree.proven[0] >= 0.0:
            return done, "proven"
        sc.codes(len(tree.objects))
        if viewed:
            node, depth = descend_view(arrays, pk, params, sc.valid, rng, sc.work, solver, tree.path, opts, sc.view,
                                       sc.cmap)
        else:
            node, depth = descend(arrays, pk, params, sc.valid, rng, sc.work, solver, tree.path)
        if node < 0:
            _bad_arm(policy)
        g = game.copy()
        plies = [] if rave else None
        for i in range(depth):
            if rave:
                plies.append(2 * int(tree.path[i]) + int(g.to_move))
            g.play(tree.objects[tree.path[i]])
        if solver and tree.proven[node] >= 0.0:
            value = float(tree.proven[node])
        else:
            if not g.terminal() and should_expand(arrays, node):
                legal = g.legal_moves()
                if not legal:
                    raise ValueError(f"{type(game).__name__} is not terminal but has no legal moves")
                sc.children(len(legal))
                pbuf = None
                if prior_fn is not None:  # a compiled game's prior kernel on its own move codes
                    game_moves = np.array(legal, np.int64)
                    pbuf = np.empty(len(legal))
                    prior_fn(g.state, game_moves, len(legal), pbuf)
                    order_by_prior(game_moves, pbuf, len(legal))
                    legal = [int(mv) for mv in game_moves]
                codes = np.array([_code(tree, mv) for mv in legal], np.int64)
                sc.codes(len(tree.objects))
                if expand(arrays, node, codes, len(codes), int(g.to_move), pk, params, sc.valid) == FULL:
                    if _grow(tree, node_cap):
                        continue
                    return done, "node_cap"
                if pbuf is not None:
                    f = int(arrays.first[node])
                    arrays.prior[f:f + len(legal)] = pbuf
                if viewed:
                    node = select_child_view(arrays, node, pk, params, sc.valid, rng, sc.work, solver, opts, sc.view,
                                             sc.cmap)
                else:
                    node = select_child(arrays, node, pk, params, sc.valid, rng, sc.work, solver)
                if node < 0:
                    _bad_arm(policy)
                if rave:
                    plies.append(2 * int(tree.move[node]) + int(g.to_move))
                depth += 1
                g.play(tree.objects[tree.move[node]])
            if g.terminal():
                value = _leaf_value(g, int(tree.mover[node]), run, False)
                if solver:
                    mark_terminal(arrays, node, value)
            else:
                capped = _playout(g, stream, run, tree, plies)
                value = _leaf_value(g, int(tree.mover[node]), run, capped)
        backup(arrays, node, value, pk, params, solver)
        if rave:
            sc.codes(len(tree.objects))
            amaf_update(arrays, node, np.array(plies, np.int64), len(plies), depth, sc.seen, value, opp)
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
    new = Tree(tree.capacity, tree.pstate.shape[1], tree.astate.shape[0], amaf=tree.has_amaf, prior=tree.has_prior)
    new.options = tree.options
    if tree.dag is not None:  # transpositions: the positions reachable from the move's (treepolicies.transpositions)
        if not reroot_dag(tree, f + int(hits[0]), new):
            return None
    else:
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
