"""The Python-game driver: the iteration of :mod:`treepolicies.mcts.steps` with a game's Python methods.

A game object with the seeds' interface (copy, legal_moves, play, terminal, reward(player),
to_move; Nim, a user's class, or a compiled game searched with ``compiled=False``) cannot run inside
compiled code, so its iteration is driven from Python, step for step as the compiled one (and with
the same compiled storage kernels, so the two drivers give the same trees for the same random
draws):

1. descend: the tree's expanded part in one compiled call (treepolicies.mcts.view.descend_known),
   a DAG's position by position (each new edge linked under ``hash()`` of the position reached,
   treepolicies.mcts.dag.python_key); a node reached a second time is expanded (its legal moves
   get move codes, ``tree.codes`` / ``tree.objects``; a compiled game's prior kernel orders them)
   and its policy picks a child;
2. the leaf's value: its proof, ``game.reward(player)`` at a terminal position, or a playout
   (:func:`playout`: uniformly random legal moves; a compiled game's playout or rollout kernel), a
   capped one scored by ``game.value(player)``; scaled by the reward bounds in force;
3. the backup (treepolicies.mcts.tree.backup or treepolicies.mcts.dag.backup_path, RAVE's AMAF
   credits, the solver's proofs).

A *general* game (treepolicies.mcts.capabilities.general_game: chance nodes, other than two
players, or general-sum; OpenSpiel's pig or 2048, a user's three-player game) runs the same steps
on the tree with two differences: the descent picks at a chance node (``game.chance_outcomes()``
not empty) an outcome with its probability instead of asking a policy (expectimax sampled, as
OpenSpiel's MCTSBot does), the playout draws chance outcomes the same way, and the leaf's value is
the vector of every player's reward, each row recording its own mover's (treepolicies.mcts.tree.
backup_values; max^n, Luckhardt & Irani 1986).
"""
from __future__ import annotations

import numpy as np

from bandits.rng import make_stream, randint, uniform
from bandits.stats import NSTAT, NVIEW
from treepolicies.mcts.capabilities import general_game
from treepolicies.mcts.amaf import amaf_update, amaf_update_path
from treepolicies.mcts import bound
from treepolicies.mcts.dag import grave_reference, link, prove_path, python_key
from treepolicies.mcts.executors import drive, grow
from treepolicies.mcts.options import N_OPTS, O_REF
from treepolicies.mcts.playouts import python_playout
from treepolicies.mcts.steps import BAD_ARM, BAD_RAISE, BAD_REWARD, FULL_STATUS, RUNNING
from treepolicies.mcts.tree import FULL, Tree, leader_is_safe, mark_terminal
from treepolicies.mcts.view import order_by_prior, root_noise

__all__ = ["run_python", "prepare", "playout", "reward_of", "code_of", "chance_pick"]


def code_of(tree, move) -> int:
    """The tree's code of a Python move object (new moves get the next code)."""
    code = tree.codes.get(move)
    if code is None:
        code = len(tree.objects)
        tree.codes[move] = code
        tree.objects.append(move)
    return code


def reward_of(game, player, bounds=None, method="reward") -> float:
    """game.reward(player) (or game.value(player) for a capped playout), scaled by ``bounds``."""
    value = getattr(game, method)(player)
    lo, hi = bounds if bounds is not None else (0.0, 1.0)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not lo <= value <= hi:
        hint = "" if bounds is not None else " (declare another range with reward_bounds=(lo, hi))"
        raise ValueError(f"{type(game).__name__}.{method}({player}) must be a number in [{lo:g}, {hi:g}], "
                         f"got {value!r}{hint}")
    return (float(value) - lo) / (hi - lo)


def chance_pick(outcomes, rng) -> int:
    """The index of the outcome drawn from ``outcomes`` ((move, probability) pairs summing to 1):
    the first whose cumulative probability exceeds u ~ U[0, 1) (the last on rounding)."""
    u = uniform(rng.state)
    total = 0.0
    for i, (_, prob) in enumerate(outcomes):
        total += prob
        if u < total:
            return i
    return len(outcomes) - 1


def playout(game, rng, run, tree, plies=None) -> bool:
    """Play the playout on ``game`` in place; True if the rollout cap stopped it before the end.

    With ``plies`` (a list; RAVE) append ``2 * code + player`` for each move, ``code`` the tree's
    code of the move.  A compiled game plays its rollout kernel (``run.kernel``; its playout kernel
    when nothing is recorded or capped), any other game (a compiled one without rollout kernels
    too) uniformly random moves from ``legal_moves``: ``moves[randint(rng.state, len(moves))]``, or the
    game's ``random_playout(rng)`` when it offers one (the same draws in a loop of its own, e.g. the
    OpenSpiel adapter's) and nothing is recorded or capped.
    """
    cap = run.options.rollout_cap
    kernels = getattr(game, "kernels", None)
    if kernels is not None and isinstance(getattr(game, "state", None), np.ndarray) and (
            (plies is None and cap is None) or run.kernel is not None):
        if plies is None and cap is None:
            kernels.playout(game.state, rng.state)  # (the "random" rollout makes the same draws)
            return False
        buf = np.empty(max(1, int(getattr(game, "max_plies", 0) or 0)) + 1, np.int64)
        n = int(run.kernel.play(game.state, rng.state, buf, -1 if cap is None else cap))
        if plies is not None:
            for x in buf[:min(n, buf.size)]:
                plies.append(2 * code_of(tree, int(x) >> 1) + (int(x) & 1))
        return not game.terminal()
    fast = getattr(game, "random_playout", None)
    if fast is not None and plies is None and cap is None:  # the game's own loop, the same draws
        fast(rng)
        return False
    k = 0
    chance = getattr(game, "chance_outcomes", None)
    chance = chance if callable(chance) else None
    while not game.terminal():
        if cap is not None and k >= cap:
            return True
        outcomes = chance() if chance is not None else None
        if outcomes:  # a chance node: an outcome by its probability
            game.play(outcomes[chance_pick(outcomes, rng)][0])
            k += 1
            continue
        moves = game.legal_moves()
        if not moves:
            raise ValueError(f"{type(game).__name__} is not terminal but has no legal moves")
        mv = moves[randint(rng.state, len(moves))]
        if plies is not None:
            plies.append(2 * code_of(tree, mv) + int(game.to_move))
        game.play(mv)
        k += 1
    return False


def _leaf_value(g, player, run, capped) -> float:
    """The result of the iteration for ``player``, scaled to [0, 1] by the bounds in force."""
    if not capped:
        return reward_of(g, player, run.bounds)
    if hasattr(g, "kernels") and run.kernel is not None:
        value = float(run.kernel.value(g.state, player))
        lo, hi = run.bounds if run.bounds is not None else (0.0, 1.0)
        if not lo <= value <= hi:
            raise _BadReward()
        return (value - lo) / (hi - lo)
    return reward_of(g, player, run.bounds, "value")


class _BadReward(Exception):
    pass


class _Scratch:
    """The driver's scratch arrays, grown with the children counts and the move codes."""

    def __init__(self, rows):
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


class _Iteration:
    """One search's Python iteration (module docstring) over ``tree`` (its DAG if it has one)."""

    def __init__(self, run, tree, stream):
        self.run, self.tree, self.stream = run, tree, stream
        o = run.options
        self.game = run.game
        self.solver = bool(o.solver)
        self.rave, self.opp = bool(o.rave), o.grave_ref > 0
        self.viewed = bool(o.rave or o.view)
        self.sc = _Scratch(NVIEW if o.view else NSTAT)
        if tree.size:  # (a reused tree: its widest node, which the descent may select at before any expansion)
            self.sc.children(int(tree.arrays.nchild[:tree.size].max()))
        self.max_plies = int(getattr(self.game, "max_plies", 0) or 0)
        self.general = general_game(self.game)
        self.players = int(getattr(self.game, "num_players", 2))
        self._bound, self._bound_arrays = None, None

    def bound(self):
        """The search's treepolicies.mcts.bound.Bound (made anew when the tree has grown)."""
        if self._bound_arrays is not self.tree.arrays:
            run = self.run
            self._bound = bound.bind(self.tree.arrays, run.policy, run.root, run.opts, self.stream.state)
            self._bound_arrays = self.tree.arrays
        return self._bound

    def _pick(self, q, depth, g):
        """The child (a row) the policy of position q picks (the root policy at the root); at a
        general game's chance node (its children's mover the chance player, ``num_players``: known
        from the tree, so a reused tree keeps it) the outcome drawn by its probability (the children
        are the outcomes in the order ``g.chance_outcomes()`` gives them)."""
        run, tree, sc = self.run, self.tree, self.sc
        if self.general and int(tree.arrays.mover[tree.arrays.first[q]]) == self.players:
            return int(tree.arrays.first[q]) + chance_pick(g.chance_outcomes(), self.stream)
        root, b = bool(run.rooted and q == 0), self.bound()
        if tree.dag is None:
            return bound.select(b, q, root, sc.valid, sc.work, self.solver, sc.view, sc.cmap, self.viewed)
        if self.viewed:
            ref = run.opts[O_REF]
            r = grave_reference(tree.dag, tree.arrays.path, depth, ref) if ref > 0.0 else q
            return bound.pick_edge_view(b, tree.dag, q, root, sc.valid, sc.work, self.solver, sc.view, r, sc.cmap)
        return bound.pick_edge(b, tree.dag, q, root, sc.valid, sc.work, self.solver)

    def _expand(self, q, g):
        """Expand position q at ``g``: FULL, or OK."""
        run, tree, sc = self.run, self.tree, self.sc
        outcomes = g.chance_outcomes() if self.general and hasattr(g, "chance_outcomes") else None
        if outcomes:
            return self._expand_chance(q, outcomes)
        legal = g.legal_moves()
        if not legal:
            raise ValueError(f"{type(self.game).__name__} is not terminal but has no legal moves")
        sc.children(len(legal))
        pbuf = None
        if run.prior is not None:  # a compiled game's prior kernel on its own move codes
            game_moves = np.array(legal, np.int64)
            pbuf = np.empty(len(legal))
            run.prior(g.state, game_moves, len(legal), pbuf)
            order_by_prior(game_moves, pbuf, len(legal))
            legal = [int(mv) for mv in game_moves]
        if pbuf is None and tree.has_prior:  # (the tree keeps priors: the root's noise; uniform ones elsewhere)
            pbuf = np.full(len(legal), 1.0 / len(legal))
        if q == 0 and pbuf is not None:
            root_noise(pbuf, len(legal), run.opts, self.stream.state)  # (eps = 0: nothing drawn)
        codes = np.array([code_of(tree, mv) for mv in legal], np.int64)
        sc.codes(len(tree.objects))
        root = bool(run.rooted and q == 0)
        if bound.expand_node(self.bound(), q, codes, len(codes), int(g.to_move), root, sc.valid) == FULL:
            return FULL
        f = int(tree.arrays.first[q])
        if pbuf is not None:
            tree.arrays.prior[f:f + len(legal)] = pbuf
        if tree.dag is not None:
            tree.dag.canon[f:f + len(codes)] = -1
        return 0

    def _expand_chance(self, q, outcomes):
        """Expand the chance node q: a child for each outcome, their mover the chance player
        (``num_players``: its rows are drawn, never chosen)."""
        tree, sc = self.tree, self.sc
        codes = np.array([code_of(tree, mv) for mv, _ in outcomes], np.int64)
        sc.children(len(codes))
        sc.codes(len(tree.objects))
        if bound.expand_node(self.bound(), q, codes, len(codes), self.players, False, sc.valid) == FULL:
            return FULL
        return 0

    def _values(self, g, capped) -> np.ndarray:
        """A general game's result: (N + 1,) each player's reward, scaled, and 0.5 for the chance player."""
        values = np.full(self.players + 1, 0.5)
        for p in range(self.players):
            values[p] = _leaf_value(g, p, self.run, capped)
        return values

    def once(self):
        """One iteration: RUNNING (recorded), FULL_STATUS (no room: nothing recorded) or BAD_ARM."""
        run, tree, sc = self.run, self.tree, self.sc
        arrays, dag = tree.arrays, tree.dag
        first, proven, move = arrays.first, arrays.proven, arrays.move
        path = arrays.path
        solver, rave = self.solver, self.rave
        record = rave or run.playout is not None  # (a playout policy reads and learns from the plies)
        sc.codes(len(tree.objects))
        g = self.game.copy()
        plies = [] if record else None
        node, depth = 0, 0
        if self.general:  # (the descent meets chance nodes: position by position)
            max_depth = None
        elif dag is None:  # the tree: its expanded part in one compiled call, then the moves played
            node, depth = bound.descend(self.bound(), run.rooted, sc.valid, sc.work, solver, sc.view, sc.cmap,
                                        self.viewed)
            if node < 0:
                return BAD_ARM
            for i in range(depth):
                c = path[i]
                if record:
                    plies.append(2 * int(move[c]) + int(g.to_move))
                g.play(tree.objects[move[c]])
            max_depth = None
        else:
            max_depth = max(1, min(tree.capacity - 1, self.max_plies or tree.capacity - 1))
        while True:
            q = int(dag.canon[node]) if dag is not None else node
            if solver and proven[q] >= 0.0:
                break
            fresh = False
            cut = max_depth is not None and depth >= max_depth
            if first[q] < 0:
                ready = (q == 0 or dag.pvis[q] > 0.0) if dag is not None else bound.expand_now(self.bound(), q)
                if cut or g.terminal() or not ready:
                    break
                if self._expand(q, g) == FULL:
                    return FULL_STATUS
                fresh = True
            elif cut:
                break
            c = self._pick(q, depth, g)
            if c < 0:
                return BAD_ARM
            if record:
                plies.append(2 * int(move[c]) + int(g.to_move))
            g.play(tree.objects[move[c]])
            path[depth] = c
            depth += 1
            if dag is not None and dag.canon[c] < 0:
                link(dag, c, python_key(g))
            node = c
            if fresh and (dag is None or dag.canon[c] == c):
                break
        q = int(dag.canon[node]) if dag is not None else node
        who = int(arrays.mover[node])
        if self.general:
            try:
                capped = False if g.terminal() else playout(g, self.stream, run, tree)
                values = self._values(g, capped)
            except _BadReward:
                return BAD_REWARD
            bound.backup_vector(self.bound(), node, values, run.rooted)
            return RUNNING
        try:
            if solver and proven[q] >= 0.0:
                value = float(proven[q])
            elif g.terminal():
                value = _leaf_value(g, who, run, False)
                if solver:
                    if dag is None:
                        mark_terminal(arrays, node, value)
                    else:
                        proven[q] = value
            elif run.playout is not None:  # a playout policy: the same kernels (treepolicies.mcts.playouts)
                value, _ = python_playout(run.playout, run.opts[N_OPTS:], g, self.stream,
                                          lambda mv: code_of(tree, mv), plies,
                                          run.options.rollout_cap, who, lambda capped: _leaf_value(g, who, run, capped))
            else:
                capped = playout(g, self.stream, run, tree, plies)
                value = _leaf_value(g, who, run, capped)
        except _BadReward:
            return BAD_REWARD
        if dag is None:
            bound.backup(self.bound(), node, value, run.rooted, solver)
        else:
            bound.backup_edges(self.bound(), dag, depth, who, value, run.rooted)
        if rave:
            sc.codes(len(tree.objects))
            p = np.array(plies, np.int64)
            if dag is None:
                amaf_update(arrays, node, p, len(plies), depth, sc.seen, value, self.opp)
            else:
                amaf_update_path(arrays, path, p, len(plies), depth, sc.seen, who, value, self.opp)
        if solver and dag is not None and proven[q] >= 0.0:
            prove_path(arrays, dag, path, depth)
        return RUNNING


def run_python(run, tree, stream, iterations, deadline, early, node_cap):
    """The Python-game driver in chunks of the one budget loop (treepolicies.mcts.executors.drive)."""
    it = _Iteration(run, tree, stream)

    def step(chunk, left):
        done = 0
        while done < chunk:
            if it.solver and tree.proven[0] >= 0.0:
                return done, 3  # PROVEN
            status = it.once()
            if status != RUNNING:
                return done, status
            if run.abort[0] != 0:
                return done, BAD_RAISE
            done += 1
            if early and leader_is_safe(tree.arrays, left - done):
                return done, 2  # EARLY
        return done, RUNNING

    return drive(step, iterations, deadline, lambda: grow(tree, node_cap))


_PREPARED: set = set()


def prepare(run, tree) -> None:
    """Compile (or load) the storage kernels the driver calls, before the clock, on a scratch tree of
    the same kinds (never the game: a user's game may hold state of its own); once per process and
    kind of argument."""
    from bandits.compiling import notice
    from treepolicies.mcts.dag import new_root

    general = general_game(run.game)
    what = (run.policy.kernels, run.root.kernels, bool(run.options.solver), tree.has_amaf, run.options.view,
            tree.dag is not None, tree.has_prior, general)
    if what in _PREPARED:
        return
    with notice("the tree kernels"):
        solver = bool(run.options.solver)
        sc = _Scratch(NVIEW if run.options.view else NSTAT)
        rng = make_stream(0).state
        t = Tree(8, tree.pstate.shape[1], tree.astate.shape[0], amaf=tree.has_amaf, prior=tree.has_prior)
        t.init_root(0)
        a = t.arrays
        b = bound.bind(a, run.policy, run.root, run.opts, rng)
        codes = np.arange(2, dtype=np.int64)
        bound.expand_now(b, 0)
        for root in (False, True):
            bound.expand_node(b, 0, codes, 2, 1, root, sc.valid)
        for viewed in (False, True):
            bound.descend(b, run.rooted, sc.valid, sc.work, solver, sc.view, sc.cmap, viewed)
            for root in (False, True):
                bound.select(b, 0, root, sc.valid, sc.work, solver, sc.view, sc.cmap, viewed)
        order_by_prior(np.arange(2, dtype=np.int64), np.ones(2), 2)
        root_noise(np.full(2, 0.5), 2, run.opts, rng)
        mark_terminal(a, 1, 0.5)
        bound.backup(b, 1, 0.5, run.rooted, solver)
        leader_is_safe(a, 1)
        if general:
            bound.backup_vector(b, 1, np.full(3, 0.5), run.rooted)
        if tree.has_amaf:
            amaf_update(a, 1, np.zeros(1, np.int64), 1, 1, np.full(8, -1, np.int64), 0.5, False)
        if tree.dag is not None:
            t.dag = None
            new_root(t, 1)
            d = t.dag
            link(d, 1, 7)
            for root in (False, True):
                bound.pick_edge(b, d, 0, root, sc.valid, sc.work, solver)
                bound.pick_edge_view(b, d, 0, root, sc.valid, sc.work, solver, sc.view, 0, sc.cmap)
            grave_reference(d, a.path, 0, 1.0)
            bound.backup_edges(b, d, 0, 0, 0.5, run.rooted)
            prove_path(a, d, a.path, 0)
            if tree.has_amaf:
                amaf_update_path(a, a.path, np.zeros(1, np.int64), 1, 0, np.full(8, -1, np.int64), 0, 0.5, False)
    _PREPARED.add(what)
