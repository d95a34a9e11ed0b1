"""How the root's visit shares evolve as a search grows.

:func:`visit_growth` runs *one* search in chunks, reusing its tree between chunks
(``search(..., tree=previous.tree)``) with one random stream that every chunk advances, and
takes a snapshot of the root's visits at each checkpoint.  Early stopping is off, and a node
policy that needs a horizon is bound to the whole budget first, so the chunked search is the same
search as one uninterrupted ``search(game, policy, iterations=budget, early_stop=False)`` with the
same seed (the last snapshot equals it; tests check this).  (The first chunk is one iteration,
after which the tree is given the capacity a single search of the whole budget starts with.)  Default checkpoints: 1, 2, 5, 10, 20,
50 and 100 % of the budget (at least one iteration each).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from bandits.rng import make_stream
from treepolicies.mcts.options import DEFAULT_NODE_CAP
from treepolicies.mcts.search import bind_policy, search

__all__ = ["Growth", "visit_growth", "plot_growth", "DEFAULT_FRACTIONS", "checkpoints"]

DEFAULT_FRACTIONS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0)


@dataclasses.dataclass
class Growth:
    """Snapshots of one search: ``iterations`` (S,) checkpoints, ``visits`` (S, K) root visits at
    each, ``values`` (S, K) root values (NaN unvisited), ``moves`` the K root moves, ``result``
    the final SearchResult (its ``iterations`` and ``elapsed`` those of all chunks together)."""

    iterations: np.ndarray
    moves: list
    visits: np.ndarray
    values: np.ndarray
    result: object

    @property
    def shares(self) -> np.ndarray:
        total = self.visits.sum(axis=1, keepdims=True)
        return self.visits / np.maximum(total, 1)


def checkpoints(budget: int, fractions=DEFAULT_FRACTIONS) -> list[int]:
    """Iteration counts of the snapshots: ``max(1, round(f * budget))``, increasing, ending at ``budget``."""
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise ValueError(f"budget must be an integer >= 1, got {budget!r}")
    for f in fractions:
        if not 0 < f <= 1:
            raise ValueError(f"fractions must lie in (0, 1], got {f!r}")
    points = sorted({max(1, int(round(f * budget))) for f in fractions} | {int(budget)})
    return points


def visit_growth(game, policy, budget: int, seed=0, fractions=DEFAULT_FRACTIONS, progress=None,
                 **search_options) -> Growth:
    """Snapshots of one search of ``budget`` iterations (module docstring).  ``search_options``:
    keywords of :func:`treepolicies.search` (final, solver, node_cap, specialize, options, ...);
    ``progress(done, budget)`` is called after every chunk."""
    points = checkpoints(budget, fractions)
    for key in ("iterations", "seconds", "tree", "early_stop"):
        if key in search_options:
            raise ValueError(f"visit_growth sets {key} itself")
    bound = bind_policy(policy, budget)
    stream = make_stream(seed)
    # The first iteration alone, then the tree grown to the capacity one search of the whole
    # budget starts with: a full tree interrupts an iteration after it has drawn random numbers,
    # so the chunks must run out of room exactly where the single search would.
    result = search(game, bound, iterations=1, seed=stream, early_stop=False, **search_options)
    tree, done, elapsed = result.tree, 1, result.elapsed
    cap = min(int(search_options.get("node_cap", DEFAULT_NODE_CAP)), 2 * int(budget) + 1024)
    if tree.capacity < cap:
        tree.grow(cap)
    snaps_v, snaps_q = [], []
    for p in points:
        if p > done:
            result = search(game, bound, iterations=p - done, seed=stream, tree=tree, early_stop=False,
                            **search_options)
            done, elapsed = p, elapsed + result.elapsed
            tree = result.tree
        if progress is not None:
            progress(done, budget)
        visits = np.asarray(result.visits, np.int64)
        snaps_v.append(visits)
        snaps_q.append(np.where(visits > 0, result.values, np.nan))
    result = dataclasses.replace(result, iterations=int(budget), elapsed=elapsed)  # the whole search's
    return Growth(np.array(points, np.int64), list(result.moves), np.array(snaps_v), np.array(snaps_q), result)


def plot_growth(game, growth: Growth, top: int = 6, title: str | None = None):
    """Visit share of the ``top`` root moves (by final visits) against iterations, log x axis."""
    from treepolicies.viz._mpl import plt
    from treepolicies.viz.summary import move_label

    final = growth.visits[-1]
    order = np.lexsort((np.arange(len(final)), -final))[:top]
    fig, ax = plt.subplots(figsize=(6.4, 4.0), constrained_layout=True)
    shares = growth.shares
    for i in order:
        ax.plot(growth.iterations, shares[:, i], marker="o", ms=3, label=move_label(game, growth.moves[i]))
    ax.set_xscale("log")
    ax.set_xlabel("iterations")
    ax.set_ylabel("share of root visits")
    ax.set_ylim(0, 1)
    ax.legend(title="root move", fontsize=8)
    ax.set_title(title or "root visit shares as the search grows (one search, snapshots)", fontsize=9)
    return fig
