"""MCTS with any :mod:`bandits` policy as the node policy: ``search(game, policy, budget, options)``.

One iteration (treepolicies.mcts.steps, written once): selection from the root by each node's
policy, expansion of a node reached a second time (the root at once), a playout (or a leaf
evaluator's value), and the backup of the result on the path, seen from the player who moved into
each node.  What runs it:

* a compiled game (``kernels`` and a ``state`` array) runs the whole iteration compiled
  (treepolicies.mcts.loops); any other game object with the seeds' interface (copy, legal_moves,
  play, terminal, reward(player), to_move) runs the same steps from Python
  (treepolicies.mcts.pydriver); ``compiled=False`` forces the Python driver;
* the options (treepolicies.mcts.options, one record: SearchOptions) choose the steps: the
  enhancements, the storage (a tree, or a DAG with ``transpositions``), the executor (``threads``
  and ``parallel``: tree, root or leaf) and a root policy (``root_policy``);
* what does not combine is refused in one line by treepolicies.mcts.capabilities.

Clocks: everything that may compile is compiled, or loaded from numba's disk cache, *before* the
clock starts, so a ``seconds`` budget is spent searching; ``elapsed`` counts the search alone.

Stopping: after ``iterations``, after ``seconds`` of wall-clock time, when the root is proven
(solver), or, for the robust final move, as soon as the most visited root move leads the second by
more than the iterations left (``early_stop``).
"""
from __future__ import annotations

import time

import numpy as np

from bandits import make_policy
from bandits.compiling import kernel_errors
from bandits.rng import Stream, make_stream
from treepolicies.mcts import capabilities
from treepolicies.mcts.dag import new_root, python_key, root_proofs
from treepolicies.mcts.executors import Run, auto_account, fail, run_leaf, run_single, run_tree
from treepolicies.mcts.options import Budget, SearchOptions, check_bounds
from treepolicies.mcts.result import SearchResult, combine_root, position_key, result_of, reroot
from treepolicies.mcts.tree import Tree

__all__ = ["search", "SearchResult", "reroot", "bind_policy", "Budget", "game_bounds"]


def bind_policy(policy, iterations, what="node policy"):
    """The policy from a Policy or spec, with its horizon bound to ``iterations`` if it needs one."""
    shown = policy.strip() if isinstance(policy, str) else None
    policy = make_policy(policy)
    short = None if iterations is None else policy.horizon_short_of(iterations)
    if short is not None:
        raise ValueError(f"{what} {shown or policy.spec!r} has horizon={short}, fewer than the {iterations} "
                         f"iterations (playouts) per move: the root would run past its horizon; drop horizon= "
                         f"(it is then given the iterations) or make it at least {iterations}")
    if policy.needs_horizon:
        if iterations is None:
            raise ValueError(f"{what} {policy.spec!r} needs a horizon, which a search takes from "
                             "iterations=N; with only seconds= give horizon=T or episodic=true")
        policy = policy.bind(iterations)
    return policy


def _check_game(game):
    for name in ("copy", "legal_moves", "play", "terminal", "reward"):
        if not callable(getattr(game, name, None)):
            raise ValueError(f"game must have the methods copy, legal_moves, play, terminal, reward "
                             f"and the attribute to_move; {type(game).__name__} has no {name}()")
    if not hasattr(game, "to_move"):
        raise ValueError(f"game must have a to_move attribute; {type(game).__name__} has none")
    if game.terminal():
        raise ValueError("the game is over: there is no move to search")
    outcomes = getattr(game, "chance_outcomes", None)
    if callable(outcomes) and outcomes():
        raise ValueError("the game is at a chance node: no player chooses there, so there is no move to "
                         "search; play one of game.chance_outcomes() first")


def game_bounds(game, options):
    """The reward bounds in force: the search's own, else the game's ``reward_bounds``, else None."""
    if options.reward_bounds is not None:
        return options.reward_bounds
    declared = getattr(game, "reward_bounds", None)
    if declared is None:
        return None
    return check_bounds(declared, f"{type(game).__name__}.reward_bounds")


def _executor(options) -> str:
    return "single" if options.threads == 1 else options.parallel


def search(game, policy, budget=None, options=None, *, iterations=None, seconds=None, seed=0, tree=None,
           compiled=None, **keywords) -> SearchResult:
    """Run MCTS from ``game``'s position with ``policy`` as the node policy (module docstring).

    Parameters
    ----------
    game : a game object (seeds' interface) or a compiled game (``kernels``, ``state``); not changed
    policy : bandits.Policy or spec string, e.g. ``"ucb1:c=0.5"``, ``"miucb:episodic=true"``
    budget : a :class:`Budget`, or ``iterations=N`` and/or ``seconds=S`` (the search stops at
        whichever comes first)
    options : a :class:`~treepolicies.mcts.options.SearchOptions`, and/or its fields as keywords
        (``final``, ``solver``, ``node_cap``, ``early_stop``, ``specialize``, ``root_policy``,
        ``threads``, ``parallel``, ``virtual_loss`` and the enhancements: each declared, with its
        default, range and meaning, in treepolicies.mcts.options.OPTIONS); keywords replace the
        record's fields
    seed : int or bandits.rng.Stream (a Stream is advanced, so successive searches differ)
    tree : a tree from a previous result re-rooted at this position (:func:`reroot`), or None
    compiled : None (compiled when the game has kernels and two players who alternate: capabilities.
        general_game), True or False (force the Python driver)
    """
    if budget is not None:
        if not isinstance(budget, Budget):
            raise ValueError(f"budget must be a treepolicies.Budget (iterations=, seconds=), got {budget!r}")
        if iterations is not None or seconds is not None:
            raise ValueError("give the budget once: budget=Budget(...) or iterations=/seconds=, not both")
        iterations, seconds = budget.iterations, budget.seconds
    else:
        budget = Budget(iterations, seconds)
        iterations, seconds = budget.iterations, budget.seconds
    if options is None:
        options = SearchOptions(**keywords)
    elif not isinstance(options, SearchOptions):
        raise ValueError(f"options must be a treepolicies.SearchOptions, got {type(options).__name__}")
    elif keywords:
        options = options.replace(**keywords)
    _check_game(game)
    has_kernels = hasattr(game, "kernels") and isinstance(getattr(game, "state", None), np.ndarray)
    if compiled is None:  # (a general game's backup runs in the Python driver: treepolicies.mcts.pydriver)
        compiled = has_kernels and not capabilities.general_game(game)
    executor = _executor(options)
    given = policy
    policy = bind_policy(policy, iterations)
    ctx = capabilities.Context(game=game, options=options, policy=policy, compiled=bool(compiled),
                               executor=executor, reuse=tree)
    capabilities.check(ctx)
    if executor == "root":
        return _search_root(game, given, iterations, seconds, seed, options, compiled)
    root = None
    if options.root_policy is not None:
        root = bind_policy(options.root_policy, iterations, "root_policy")
    bounds = game_bounds(game, options)
    specialize = options.specialize if compiled else False
    run = Run(game, policy, options, bounds, root=root, executor=executor, threads=options.threads,
              vl=options.virtual_loss, compiled=compiled, specialize=specialize)
    stream = make_stream(seed)
    tree = _tree_for(game, tree, policy, root, options, run, iterations, compiled, has_kernels)
    run.keep_playout_stats(tree)  # (a playout policy's statistics, with keep=true: treepolicies.mcts.playouts)

    if compiled:
        run.prepare(tree)  # before the clock starts
    else:
        from treepolicies.mcts.pydriver import prepare as prepare_python

        prepare_python(run, tree)
    early = options.early_stop and options.final == "robust" and iterations is not None
    with kernel_errors() as errors:
        run.errors, run.abort = errors, errors.flag
        start = time.perf_counter()
        deadline = None if seconds is None else start + seconds
        done, reason = _execute(run, tree, stream, iterations, deadline, early)
    if not isinstance(reason, str) or errors.error is not None:
        fail(run, reason)
    elapsed = time.perf_counter() - start
    auto_account(run, elapsed)
    if run.playout is not None:
        tree.playout_stats, tree.playout_spec = run.playout_stats, run.playout.spec
    if tree.dag is not None:
        root_proofs(tree)  # the root moves' proofs, read through their positions, for the final move
    return result_of(tree, policy, done, elapsed, reason, options.final, options.solver, root, stream)


def _execute(run, tree, stream, iterations, deadline, early):
    """The executor of ``run``: (iterations, stop reason or a BAD_* status)."""
    cap = run.options.node_cap
    if not run.compiled:
        from treepolicies.mcts.pydriver import run_python

        return run_python(run, tree, stream, iterations, deadline, early, cap)
    if run.executor == "single" and run.evaluator is None:
        return run_single(run, tree, stream, iterations, deadline, early, cap)
    streams = [stream] + [stream.spawn() for _ in range(run.threads - 1)]
    if run.evaluator is not None:
        from treepolicies.mcts.evaluate import run_evaluated

        return run_evaluated(run, tree, streams, iterations, deadline, early, cap)
    driver = run_tree if run.executor == "tree" else run_leaf
    return driver(run, tree, streams, iterations, deadline, early, cap)


def _tree_for(game, tree, policy, root, options, run, iterations, compiled, has_kernels):
    """The tree a search works on: a fresh one, or the one passed for reuse (checked)."""
    key = position_key(game)
    root_spec = root.spec if root is not None else None
    if tree is not None:
        if tree.policy_spec != policy.spec or tree.compiled != compiled or \
                (key is not None and tree.root_key is not None and tree.root_key != key):
            raise ValueError("tree was built for another position, policy or driver; pass tree=None")
        if _tree_options(tree.options or SearchOptions()) != _tree_options(options) or tree.root_spec != root_spec:
            raise ValueError("tree was built with other search options (rave, rollout, ...); pass tree=None")
        if root is not None:
            _reinit_root(tree, root)
        elif getattr(policy, "hands_down", False):  # (SHOT: the new root's call is the search's budget)
            _reinit_root(tree, policy)
    else:
        initial = (2 * iterations + 1024) if iterations is not None else 1 << 16
        widths = [(policy.state_width, policy.arm_state_width)]
        if root is not None:
            widths.append((root.state_width, root.arm_state_width))
        tree = Tree(min(options.node_cap, initial), max(w[0] for w in widths), max(w[1] for w in widths),
                    amaf=options.rave, prior=options.stores_priors)
        # (the root's mover: the player not to move; a general game's root records the value of the
        # player to move, treepolicies.mcts.tree.backup_values)
        tree.init_root(int(game.to_move) if capabilities.general_game(game) else 1 - int(game.to_move))
        tree.options = options
        tree.policy_spec, tree.compiled, tree.root_key, tree.root_spec = policy.spec, compiled, key, root_spec
        tree.root_state = game.state.copy() if has_kernels else None
        tree.kernels = game.kernels if has_kernels else None
    if options.transpositions and tree.dag is None:
        new_root(tree, int(game.key_kernel(game.state)) if compiled else python_key(game))
    return tree


def _tree_options(options) -> dict:
    """What a reused tree must have been built with: the options that shape it (the budget-like
    ones, solver, final and the executor do not)."""
    keep = ("final", "solver", "node_cap", "early_stop", "specialize", "threads", "parallel", "virtual_loss")
    return {k: v for k, v in options.changed().items() if k not in keep}


def _reinit_root(tree, root) -> None:
    """A reused tree's new root was an inner node: its bandit state becomes the root policy's."""
    from treepolicies.mcts.tree import reinit_node

    if tree.first[0] >= 0:
        reinit_node(tree.arrays, 0, root.kernels, root.params, np.ones(int(tree.nchild[0]), np.bool_))


def _search_root(game, policy, iterations, seconds, seed, options, compiled) -> SearchResult:
    """Root parallelism: ``threads`` independent searches from the same position, each with one of
    ``threads`` streams spawned in order from the search's stream (``make_stream(seed).spawn()``), tree
    i running ``iterations // threads`` iterations (one more for i < iterations % threads; a tree with
    none is skipped), or the whole ``seconds``; combined by treepolicies.mcts.result.combine_root.
    ``policy`` as given: a policy that needs a horizon is bound to each tree's own iterations."""
    from concurrent.futures import ThreadPoolExecutor

    threads = options.threads
    one_thread = options.replace(threads=1)
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
        return search(game, policy, options=one_thread, iterations=share, seconds=left, seed=st, compiled=compiled)

    # compile (or load) everything in this thread, outside the clock
    warm = policy if iterations is not None else bind_policy(policy, None)
    search(game, warm, options=one_thread, iterations=1, seed=Stream(0), compiled=compiled)
    start = time.perf_counter()
    deadline = None if seconds is None else start + seconds
    with ThreadPoolExecutor(len(jobs), thread_name_prefix="banditree-root") as pool:
        results = list(pool.map(one, jobs))
    elapsed = time.perf_counter() - start
    return combine_root(results, options.final, options.solver, elapsed)
