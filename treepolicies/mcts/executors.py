"""The executors as a search runs them: one budget loop, one scratch allocator, one compile-before-the-
clock routine and one error protocol for every compiled executor (treepolicies.mcts.loops), the
leaf evaluator's (treepolicies.mcts.evaluate) and the Python-game driver's
(treepolicies.mcts.pydriver).

    Run(game, tree, policy, options, bounds, ...)   what one search runs: its Config, the compiled
                                                     entry points, the policies, the options' array
    drive(step, iterations, deadline, grow, threads)  the budget loop (chunks between which the
                                                     clock is read and the storage may grow)
    scratch(run, tree, rng, path)                    one thread's Scratch
    grow(tree, node_cap)                             the storage (tree, DAG, locks) at twice the rows
    fail(run, status)                                the one error of a BAD_ARM / BAD_REWARD status
    run_single / run_tree / run_leaf                 the three playout executors

Clocks: everything that may compile is compiled (or loaded from numba's disk cache) by
:meth:`Run.prepare` before the clock starts, so a ``seconds`` budget is spent searching.
"""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from bandits.compiling import notice, load_cached
from bandits.stats import COUNT, NSTAT, NVIEW
from treepolicies.mcts import loops
from treepolicies.mcts.calls import game_key, position_key, prior_key, rollout_key
from treepolicies.mcts.dag import grow_dag
from treepolicies.mcts.options import N_OPTS, O_PRIOR
from treepolicies.mcts.playouts import DEFAULT_PYTHON_CODES, HEADER, is_playout_spec, make_playout
from treepolicies.mcts.parallel import grow_par, new_par, no_par
from treepolicies.mcts.steps import (BAD_ARM, BAD_RAISE, BAD_REWARD, EARLY, FULL_STATUS, PROVEN, RUNNING, Config, Scratch,
                                     config_key)

__all__ = ["Run", "drive", "scratch", "new_batch", "grow", "fail", "run_single", "run_tree", "run_leaf", "STOP_REASONS"]

STOP_REASONS = {RUNNING: "iterations", FULL_STATUS: "node_cap", EARLY: "early", PROVEN: "proven"}


def _name(game) -> str:
    return getattr(game, "name", "") or type(game).__name__


class Run:
    """What one search runs (module docstring).

    game      the game (its kernels for a compiled search)
    policy    the tree policy (bound), ``root`` the root policy (bound; the tree policy when none)
    options   the SearchOptions; ``bounds`` the reward bounds in force (None: [0, 1])
    executor  "single", "tree" or "leaf"; ``threads`` and ``vl`` (virtual loss)
    compiled  a compiled search (else the Python driver); ``specialize``: the policy's code
              compiled into the loop (True), not (False), or "auto" (:meth:`Run.prepare`)
    """

    def __init__(self, game, policy, options, bounds, *, root=None, executor="single", threads=1, vl=1,
                 compiled=True, specialize=False):
        self.game, self.policy, self.options, self.bounds = game, policy, options, bounds
        self.root = root if root is not None else policy
        self.rooted = root is not None
        if options.evaluator is not None and executor == "leaf":
            executor = "tree"  # (the evaluator's threads share the storage either way: treepolicies.mcts.evaluate)
        self.executor, self.threads, self.vl = executor, int(threads), float(vl)
        self.compiled = compiled
        self.errors = None                  # the KernelErrors of the running search (bandits.compiling)
        self.abort = np.zeros(1, np.int64)  # its flag (a placeholder until the search runs)
        self.evaluator = options.evaluator_fn()
        self.opts = options.array(bounds)
        if self.evaluator is not None:
            self.opts[O_PRIOR] = 1.0  # the evaluator's priors are the children's priors
        rollouts = getattr(game, "rollouts", None) or {}
        self.kernel = rollouts.get(options.rollout)  # a Rollout, or None: the game's playout kernel
        self.playout = self.playout_stats = None  # a playout policy (treepolicies.mcts.playouts), its statistics
        if self.kernel is None and is_playout_spec(options.rollout):
            self.playout = make_playout(options.rollout)
            self.kernel = rollouts.get("random")  # (what values a capped playout, if the game has it)
            self._attach_playout(game, compiled)
        priors = getattr(game, "priors", None) or {}
        self.prior = priors.get(options.prior) if options.prior != "uniform" else None
        self.pkey = None
        self.config = self.ckey = None
        self.root_state = None
        self.auto, self.candidate = False, None
        if not compiled:
            return
        self.root_state = game.state.copy()
        self.auto = specialize == "auto"
        self.candidate = None  # the policy key a specialised loop would take
        if specialize:
            from bandits.registry import policy_key

            key, python = policy_key(policy)
            self.candidate = None if python else key
            self.pkey = None if self.auto else self.candidate
        enhanced = not options.plain
        self.config = Config(
            game=game_key(game.kernels), storage="dag" if options.transpositions else "tree", executor=executor,
            leaf="eval" if self.evaluator is not None else "playout", enhanced=enhanced,
            rollout=rollout_key(self.kernel) if enhanced else "", prior=prior_key(self.prior) if enhanced else "",
            key=position_key(getattr(game, "key_kernel", None)) if options.transpositions else "",
            root="fv" if self.rooted else "",
            playout=self.playout.key_for(getattr(game, "move_check", None), getattr(game, "move_draw", None))
            if self.playout is not None and enhanced else "")
        self.ckey = config_key(self.config)

    def _attach_playout(self, game, compiled) -> None:
        """The playout policy's block appended to the options' array (treepolicies.mcts.playouts):
        every step and thread reads it there; ``playout_stats`` is a view of its statistics."""
        m = max(1, int(getattr(game, "max_moves", 0) or 0))
        codes = int(getattr(game, "move_codes", 0) or 0) or DEFAULT_PYTHON_CODES  # (compiled: declared, capabilities)
        block = self.playout.block(codes, max(m, codes))
        self.opts = np.concatenate([self.opts, block])
        self.playout_stats = self.opts[N_OPTS + HEADER + self.playout.values.size:]

    def keep_playout_stats(self, tree) -> None:
        """With ``keep=true``, the statistics of the search before on this (reused) tree, if any of
        the same policy and size, carried over (tree.playout_stats)."""
        old = getattr(tree, "playout_stats", None)
        if self.playout is not None and self.playout.keep and old is not None and \
                getattr(tree, "playout_spec", None) == self.playout.spec and old.shape == self.playout_stats.shape:
            self.playout_stats[:] = old

    # -- compiled entry points ----------------------------------------------------------------
    def entry(self, which: str):
        """The compiled entry point ``which`` (treepolicies.mcts.loops.EXECUTORS) of this run."""
        return loops.build(which, self.ckey, self.pkey if which != "leaf_helper" else None)

    def max_depth(self, tree) -> int:
        """The longest descent: a DAG's cut (its cycles; game.max_plies), the tree's node count."""
        if self.options.transpositions:
            m = max(1, int(self.game.max_moves))
            return max(1, min(tree.capacity - 1, int(getattr(self.game, "max_plies", 0) or m)))
        return tree.capacity

    def args(self, tree, x, par=None):
        """The arguments every compiled entry point starts with."""
        dag = tree.dag if tree.dag is not None else _NO_DAG
        return (tree.arrays, dag, par if par is not None else _NO_PAR, self.root_state, self.policy.kernels,
                self.policy.params, self.root.kernels, self.root.params, x, self.opts)

    _PREPARED: set = set()

    def prepare(self, tree) -> None:
        """Compile (or load) this run's entry points before the clock starts (once per process and kind
        of argument: a player searches every move).  With ``specialize="auto"`` the specialised loop
        is taken when it is compiled already, in this process or on disk (:func:`_auto_choice`)."""
        if self.auto and self.candidate is not None:
            self.pkey = self.candidate if _auto_choice(self, tree) else None
        what = (self.ckey, self.pkey, self.policy.kernels, self.root.kernels, self.root_state.dtype, self.executor)
        if what in Run._PREPARED:
            return
        name = _name(self.game) + (f" with {self.policy.name!r}" if self.pkey else "")
        label = {"single": "the search loop", "tree": "the tree-parallel search loop",
                 "leaf": "the leaf-parallel search loop"}[self.executor]
        if self.evaluator is not None:
            label = "the evaluator's search steps"
        if self.options.transpositions:
            label += " on the DAG"
        rng = np.array([1, 0, 0, 0], np.uint64)
        with notice(f"{label} for {name}" + (" (enhanced)" if self.config.enhanced else "")):
            x = scratch(self, tree, rng)
            head = self.args(tree, x)
            if self.evaluator is not None:
                b = new_batch(self, tree, 1)
                if self.executor == "tree":
                    head = self.args(tree, x, new_par(tree.capacity))
                self.entry("eval_descents")(*head, 0, False, 1, 0.0, b)
                self.entry("eval_finish")(*head, 0, 0, False, 0.0, 0.0, b)
            elif self.executor == "single":
                self.entry("single")(*head, 0, False, -1, self.max_depth(tree))
            elif self.executor == "tree":
                par = new_par(tree.capacity)
                self.entry("tree_worker")(*self.args(tree, x, par), 0, False, -1, self.max_depth(tree), 0.0, 1.0,
                                          np.zeros(4, np.int64))
            else:
                states, values, rngs, plies, nplies, sync = _leaf_arrays(self, tree, x, [rng, rng])
                sync[loops.L_QUIT] = 1
                sync[loops.L_GEN] = 1
                self.entry("leaf_helper")(1, tree.arrays, states, values, rngs, plies, nplies, sync, self.opts)
                sync[:] = 0  # slots=1: the master never waits for a helper
                self.entry("leaf_master")(*head, 0, False, -1, self.max_depth(tree), states[:1], values[:1], rngs[:1],
                                          plies[:1], nplies[:1], sync)
        Run._PREPARED.add(what)


_NO_PAR = no_par()

#: specialize="auto": after this many seconds of search in one process with the shared loop of one
#: config and policy (a long run: a match, a tournament, a GTP game), the specialised loop is
#: compiled in a background thread and taken over by the searches that follow (the same results)
AUTO_SPECIALIZE_AFTER = 20.0
_AUTO: dict = {}  # (config key, policy key) -> {"spent": seconds, "state": None | "compiling" | "ready", "sigs": ...}


def _auto_entries(run) -> list:
    if run.evaluator is not None:
        return ["eval_descents", "eval_finish"]
    return [{"single": "single", "tree": "tree_worker", "leaf": "leaf_master"}[run.executor]]


def _auto_args(run, tree, which):
    """The arguments the entry ``which`` is called with (their types are its signature)."""
    x = scratch(run, tree, np.zeros(4, np.uint64))
    par = new_par(1) if run.executor == "tree" else None
    head = run.args(tree, x, par)
    depth = run.max_depth(tree)
    if which == "single":
        return head + (0, False, -1, depth)
    if which == "tree_worker":
        return head + (0, False, -1, depth, 0.0, 1.0, np.zeros(4, np.int64))
    if which == "leaf_master":
        states, values, rngs, plies, nplies, sync = _leaf_arrays(run, tree, x, [x.rng])
        return head + (0, False, -1, depth, states, values, rngs, plies, nplies, sync)
    b = new_batch(run, tree, 1)
    if which == "eval_descents":
        return head + (0, False, depth, 0.0, b)
    return head + (0, 0, False, 0.0, 0.0, b)


def _auto_choice(run, tree) -> bool:
    """True when the specialised entries of ``run`` are compiled: in this process, or on numba's disk
    cache (loaded, not compiled).  Else the shared loop runs, and :func:`auto_account` may start
    compiling the specialised one in the background."""
    import numba

    key = (run.ckey, run.candidate)
    entry = _AUTO.setdefault(key, {"spent": 0.0, "state": None, "sigs": None})
    if entry["sigs"] is not None:  # (probed once per process: then the state says it)
        return entry["state"] == "ready"
    sigs = []
    ready = True
    for which in _auto_entries(run):
        disp = loops.build(which, run.ckey, run.candidate)
        sig = tuple(numba.typeof(a) for a in _auto_args(run, tree, which))
        sigs.append((disp, sig))
        if sig not in disp.overloads and not load_cached(disp, sig):
            ready = False
    entry["sigs"] = sigs
    if ready:
        entry["state"] = "ready"
    return ready


def auto_account(run, seconds) -> None:
    """Count ``seconds`` of search with the shared loop for ``run``'s config and policy; past
    AUTO_SPECIALIZE_AFTER, compile the specialised loop in a background thread (once per process;
    it says so on stderr), for the searches that follow."""
    if not run.auto or run.candidate is None or run.pkey is not None:
        return
    entry = _AUTO.get((run.ckey, run.candidate))
    if entry is None or entry["state"] is not None or entry["sigs"] is None:
        return
    entry["spent"] += seconds
    if entry["spent"] < AUTO_SPECIALIZE_AFTER:
        return
    entry["state"] = "compiling"
    import threading

    from bandits.compiling import say

    name = f"{_name(run.game)} with {run.policy.name!r}"
    sigs = entry["sigs"]

    def work():
        start = time.perf_counter()
        say(f"compiling a faster search loop for {name} in the background (a long run; first run only, cached "
            "on disk afterwards) ...")
        try:
            for disp, sig in sigs:
                disp.compile(sig)
        except Exception as exc:  # pragma: no cover - the shared loop goes on; say why once
            say(f"the faster loop for {name} did not compile ({type(exc).__name__}: {exc}); the shared loop goes on")
            return
        entry["state"] = "ready"
        say(f"compiled the faster search loop for {name} in {time.perf_counter() - start:.1f} s; the searches from "
            "now on use it")

    threading.Thread(target=work, name="banditree-specialize", daemon=True).start()


def _no_dag():
    from treepolicies.mcts.dag import new_dag

    return new_dag(1)


_NO_DAG = _no_dag()


def scratch(run, tree, rng, path=None) -> Scratch:
    """One thread's Scratch for ``run`` on ``tree`` (sizes from the game: treepolicies.mcts.steps);
    ``path`` the descent's rows (default the tree's own ``path``: one thread)."""
    game = run.game
    m = max(1, int(game.max_moves))
    codes = max(1, int(getattr(game, "move_codes", 0) or m))
    rows = NVIEW if (run.options.view or run.evaluator is not None) else NSTAT
    plies = np.empty(tree.capacity + max(1, int(getattr(game, "max_plies", 0) or 0)) + 1, np.int64)
    return Scratch(s=np.empty_like(game.state), valid=np.ones(m, np.bool_), work=np.empty(m),
                   moves=np.empty(m, np.int64), shown=np.empty((rows, m)), pbuf=np.empty(m), plies=plies,
                   seen=np.full(2 * codes, -1, np.int64), cmap=np.full(codes, -1, np.int64),
                   path=tree.path if path is None else path, rng=rng, abort=run.abort)


def new_batch(run, tree, size, waiting=None) -> loops.EvalBatch:
    """The arrays of a batch of ``size`` descents (treepolicies.mcts.loops.EvalBatch); ``waiting`` the
    array shared by the batches of several threads (default: a new one)."""
    game = run.game
    m = max(1, int(game.max_moves))
    x = scratch(run, tree, np.zeros(4, np.uint64))
    return loops.EvalBatch(states=np.empty((size,) + game.state.shape, game.state.dtype),
                     paths=np.empty((size, tree.capacity), np.int64), plies=np.empty((size, x.plies.shape[0]), np.int64),
                     depth=np.zeros(size, np.int64), nplies=np.zeros(size, np.int64), leaf=np.zeros(size, np.int64),
                     kind=np.zeros(size, np.int64), value=np.zeros(size), moves=np.full((size, m), -1, np.int64),
                     counts=np.zeros(size, np.int64), priors=np.zeros((size, m)), evals=np.zeros(size),
                     waiting=np.zeros(tree.capacity, np.int32) if waiting is None else waiting)


def grow(tree, node_cap) -> bool:
    """Twice the rows (at most ``node_cap``), the DAG's table rebuilt; False when at the cap."""
    if tree.capacity >= node_cap:
        return False
    used = tree.size
    tree.grow(min(node_cap, 2 * tree.capacity))
    if tree.dag is not None:
        tree.dag = grow_dag(tree.dag, tree.capacity, used)
    if tree.par is not None:
        tree.par = grow_par(tree.par, tree.capacity)
    return True


def fail(run, status) -> None:
    """The one error of a BAD_ARM, BAD_RAISE or BAD_REWARD status (a policy's or a game's), in one line."""
    exc = run.errors.error if run.errors is not None else None
    if status == BAD_RAISE or exc is not None:  # (a kernel that raised returned a default: a BAD_ARM, say)
        who = f"node policy {run.policy.spec!r}" + (f" or root policy {run.root.spec!r}" if run.rooted else "")
        what = f"{type(exc).__name__}: {exc}" if exc is not None else "an exception"
        raise ValueError(f"{who} raised {what} in one of its kernels during the search (the search stopped; "
                         "nothing of it is kept)")
    if status == BAD_ARM:
        raise ValueError(f"node policy {run.policy.spec!r}: its select kernel returned an arm outside 0..K-1 "
                         "(a kernel must return the index of a valid arm)")
    if status == BAD_REWARD:
        if run.bounds is not None:
            raise ValueError(f"{_name(run.game)}: a result lies outside reward_bounds={run.bounds}")
        raise ValueError(f"{_name(run.game)}: a result lies outside [0, 1]; declare the game's range with "
                         "reward_bounds=(lo, hi) (a search keyword or a game attribute) to have it scaled")


def drive(step, iterations, deadline, grow_storage, threads=1):
    """The budget loop of every executor: ``step(chunk, left) -> (iterations, status)`` runs at most
    ``chunk`` iterations (``left``: the iterations left in the budget, -1 with a clock only);
    between chunks the clock is read (chunks double until they take 5 ms) and a full storage grows
    (``grow_storage() -> bool``).  At least one chunk runs.  Returns (iterations, stop reason)."""
    done = 0
    first = True
    chunk = 64 * threads if deadline is not None else iterations
    while True:
        if iterations is not None:
            chunk = min(chunk, iterations - done)
            if chunk <= 0:
                return done, "iterations"
        if deadline is not None and not first and time.perf_counter() >= deadline:
            return done, "seconds"
        first = False
        t0 = time.perf_counter()
        n, status = step(chunk, iterations - done if iterations is not None else -1)
        done += n
        if status == FULL_STATUS:
            if not grow_storage():
                return done, "node_cap"
        elif status in (BAD_ARM, BAD_REWARD, BAD_RAISE):
            return done, status
        elif status != RUNNING:
            return done, STOP_REASONS[status]
        elif deadline is not None and time.perf_counter() - t0 < 0.005:
            chunk *= 2


def run_single(run, tree, stream, iterations, deadline, early, node_cap):
    """One thread: the ``single`` entry point in chunks."""
    loop = run.entry("single")
    state = {"x": scratch(run, tree, stream.state)}

    def step(chunk, left):
        return loop(*run.args(tree, state["x"]), chunk, run.options.solver, left if early else -1,
                    run.max_depth(tree))

    def grown():
        if not grow(tree, node_cap):
            return False
        state["x"] = scratch(run, tree, stream.state)
        return True

    return drive(step, iterations, deadline, grown)


def run_tree(run, tree, streams, iterations, deadline, early, node_cap):
    """Tree parallelism (treepolicies.mcts.parallel): one thread per stream on one storage; ``tree.par``
    holds the per-row arrays afterwards (``ends``: this search's)."""
    loop = run.entry("tree_worker")
    tree.par = new_par(tree.capacity)
    xs = []

    def remake():
        xs[:] = [scratch(run, tree, st.state, np.empty(tree.capacity, np.int64)) for st in streams]

    remake()
    ctl = np.zeros(4, np.int64)

    def step(chunk, left):
        ctl[:] = 0
        c_start = float(tree.stats[COUNT, 0])
        max_depth = run.max_depth(tree)
        futures = [pool.submit(loop, *run.args(tree, x, tree.par), chunk, run.options.solver, left if early else -1,
                               max_depth, c_start, run.vl, ctl) for x in xs]
        done = sum(int(f.result()) for f in futures)
        return done, int(ctl[loops.C_STOP])

    def grown():
        if not grow(tree, node_cap):
            return False
        remake()
        return True

    with ThreadPoolExecutor(len(streams), thread_name_prefix="banditree-tree") as pool:
        return drive(step, iterations, deadline, grown, len(streams))


def _leaf_arrays(run, tree, x, streams_state):
    slots = len(streams_state)
    states = np.empty((slots,) + run.game.state.shape, run.game.state.dtype)
    values = np.zeros(slots)
    rngs = np.stack(streams_state)
    plies = np.empty((slots, x.plies.shape[0]), np.int64)
    nplies = np.zeros(slots, np.int64)
    sync = np.zeros(loops.L_CLAIM + slots, np.int64)
    return states, values, rngs, plies, nplies, sync


def run_leaf(run, tree, streams, iterations, deadline, early, node_cap):
    """Leaf parallelism: slot k plays with streams[k] (slot 0 with the search's own stream)."""
    master, helper = run.entry("leaf_master"), run.entry("leaf_helper")
    slots = len(streams)
    state = {}

    def remake():
        x = scratch(run, tree, streams[0].state)
        state["x"] = x
        state["arrays"] = _leaf_arrays(run, tree, x, [st.state for st in streams])

    remake()

    def step(chunk, left):
        x = state["x"]
        states, values, rngs, plies, nplies, sync = state["arrays"]
        sync[:] = 0
        futures = [pool.submit(helper, k, tree.arrays, states, values, rngs, plies, nplies, sync, run.opts)
                   for k in range(1, slots)]
        try:
            n, status = master(*run.args(tree, x), chunk, run.options.solver, left if early else -1,
                               run.max_depth(tree), states, values, rngs, plies, nplies, sync)
        finally:
            sync[loops.L_QUIT] = 1
            sync[loops.L_GEN] += 1
            for f in futures:
                f.result()
        return n, status

    def grown():
        if not grow(tree, node_cap):
            return False
        rngs = state["arrays"][2]
        for k in range(1, slots):  # (slot k's stream advanced in its row of rngs)
            streams[k].state[:] = rngs[k]
        remake()
        return True

    with ThreadPoolExecutor(max(1, slots - 1), thread_name_prefix="banditree-leaf") as pool:
        result = drive(step, iterations, deadline, grown, 1)
    rngs = state["arrays"][2]
    for k in range(1, slots):
        streams[k].state[:] = rngs[k]
    return result
