"""What a search returns: :class:`SearchResult`, the final move rule, root parallelism's combination of
several trees, and tree reuse (:func:`reroot`).

Final move: ``"robust"`` = most visits (ties: higher mean), ``"max"`` = highest mean among visited
moves (ties: more visits), ``"recommend"`` = what the root's bandit policy recommends
(:func:`recommended_index`: ``Policy.recommend`` on the root's children as its arms, e.g.
sequential halving's survivor; the root policy if the search has one, else the tree policy).
With the solver a proven win is played at once and proven losses are avoided.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from bandits.stats import COUNT, FIRST, MEAN, NSTAT, NVIEW, PRIOR
from treepolicies.mcts.dag import reroot_dag
from treepolicies.mcts.tree import Tree, extract_subtree

__all__ = ["SearchResult", "choose_index", "recommended_index", "result_of", "combine_root", "reroot", "root_moves", "position_key"]


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


def root_moves(tree):
    """(moves, visits, means, proofs) of the root's children (moves as the game's objects)."""
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


def recommended_index(tree, policy, proven, solver, rng) -> int:
    """Index of the root move ``policy`` (a bandits.Policy: the root's) recommends: its
    ``recommend`` on one bandit whose arms are the root's children, with their own statistics
    (no RAVE blend), the PRIOR row (the tree's priors, or 1/K), the root's policy state and their
    arm state as the search left them.  With the solver a proven win first, and proven losses are
    not recommended while another move is not a proven loss.  Ties from ``rng``."""
    f, k = int(tree.first[0]), int(tree.nchild[0])
    if solver:
        wins = np.flatnonzero(proven == 1.0)
        if wins.size:
            return int(wins[np.argmax(tree.stats[COUNT, f:f + k][wins])])
    valid = np.ones((1, k), bool)
    if solver and np.any(proven != 0.0):
        valid[0] = proven != 0.0
    stats = np.zeros((1, NVIEW, k))
    stats[0, :NSTAT] = tree.stats[:, f:f + k]
    stats[0, PRIOR] = tree.prior[f:f + k] if tree.has_prior else 1.0 / k
    stats[0, FIRST] = np.inf
    state = tree.pstate[0:1, :max(1, policy.state_width)].copy()
    arm_state = tree.astate[:max(1, policy.arm_state_width), f:f + k][None].copy()
    from bandits.policy import BanditBatch

    batch = BanditBatch(stats=stats, valid=valid, t=tree.stats[COUNT, 0:1].copy(), state=state, arm_state=arm_state)
    return int(policy.recommend(batch, rng)[0])


def result_of(tree, policy, done, elapsed, reason, final, solver, root_policy=None, rng=None) -> SearchResult:
    """The SearchResult of a search that ran ``done`` iterations on ``tree``; ``final="recommend"``
    asks ``root_policy`` (None: the tree policy) with ties from ``rng`` (:func:`recommended_index`)."""
    moves, visits, values, proven = root_moves(tree)
    if not moves:
        raise ValueError("the search ran no iteration (node_cap too small for the root's moves?)")
    if final == "recommend":
        i = recommended_index(tree, root_policy or policy, proven, solver, rng)
    else:
        i = choose_index(visits, values, proven, final, solver)
    return SearchResult(move=moves[i], moves=moves, visits=visits, values=values, proven=proven,
                        tree_size=tree.size, iterations=done, elapsed=elapsed, stop_reason=reason,
                        policy=policy.spec, tree=tree)


def combine_root(results, final="robust", solver=False, elapsed=0.0) -> SearchResult:
    """One SearchResult from the independent searches of root parallelism: the root moves' visits
    summed, their values the visit-weighted means, a proof found by any tree counts; the final move
    chosen from these; ``tree`` is the first tree's, ``tree_size`` and ``iterations`` the sums."""
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


def position_key(game):
    """Bytes naming a compiled game's position (its state array), else None."""
    state = getattr(game, "state", None)
    return state.tobytes() if isinstance(state, np.ndarray) and hasattr(game, "kernels") else None


def reroot(tree: Tree, move, game_after=None):
    """The subtree below root move ``move`` as a new tree (tree reuse), or None if it has no node.

    For a compiled game the new root's position is derived by playing ``move`` on the old root's
    state, so a later search from another position refuses the tree (ValueError); for a Python
    game ``game_after`` (the position after the move), if given, is recorded for the same check.
    A DAG keeps the positions reachable from the move's (treepolicies.mcts.dag.extract_subdag).
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
    if tree.dag is not None:
        if not reroot_dag(tree, f + int(hits[0]), new):
            return None
    else:
        size = extract_subtree(tree.arrays, f + int(hits[0]), new.arrays)
        if size < 0:  # pragma: no cover - a subtree always fits in a tree of the same capacity
            return None
    new.policy_spec, new.compiled, new.codes, new.objects = tree.policy_spec, tree.compiled, tree.codes, tree.objects
    new.root_spec = tree.root_spec
    new.playout_stats = getattr(tree, "playout_stats", None)  # (a playout policy's, kept with keep=true)
    new.playout_spec = getattr(tree, "playout_spec", None)
    new.kernels, new.root_state = tree.kernels, None
    new.root_key = position_key(game_after) if game_after is not None else None
    if tree.kernels is not None and tree.root_state is not None:
        new.root_state = tree.root_state.copy()
        tree.kernels.play(new.root_state, int(move))
        new.root_key = new.root_state.tobytes()
    return new
