"""One position analysed and written out: what ``banditree analyze`` computes and the files it writes.

:func:`analyze_position` runs the player's search once, in chunks (:func:`treepolicies.viz.growth.visit_growth`),
so the visit shares against iterations and the final result come from the same search.
:func:`write_analysis` writes into a folder::

    root.png, root.pdf        board heatmaps (treepolicies.viz.board)
    tree.png, tree.pdf        tree view (treepolicies.viz.treeview)
    growth.png, growth.pdf    visit shares against iterations
    tree.json, tree.dot       the top of the tree (treepolicies.viz.export)
    search.json               the search record, the root's moves, the snapshots

Every file is written atomically; existing files are refused unless ``overwrite``.
"""
from __future__ import annotations

import dataclasses
import json
import os

import numpy as np

from treepolicies.viz.export import tree_to_dot, tree_to_json, write_text
from treepolicies.viz.growth import DEFAULT_FRACTIONS, Growth, visit_growth
from treepolicies.viz.summary import move_label, root_rows, search_record

__all__ = ["Analysis", "analyze_position", "write_analysis", "check_outputs", "OUTPUT_FILES", "mcts_player"]

OUTPUT_FILES = ("root.png", "root.pdf", "tree.png", "tree.pdf", "growth.png", "growth.pdf", "tree.json",
                "tree.dot", "search.json")


@dataclasses.dataclass
class Analysis:
    """The search of one position: ``growth`` (snapshots), ``result`` (the final SearchResult),
    ``record`` (:func:`treepolicies.viz.summary.search_record`), ``player`` (its spec)."""

    game: object
    player: str
    growth: Growth
    result: object
    record: dict


def mcts_player(spec: str, playouts: int):
    """The MCTS player of ``spec`` (ValueError naming the spec for random, alphabeta, gnugo, ...)."""
    from treepolicies.players import MCTSPlayer, make_player

    player = make_player(spec, playouts=playouts)
    if not isinstance(player, MCTSPlayer):
        player.close()
        raise ValueError(f"player {spec!r} is not an MCTS player (a bandit policy spec, e.g. ucb1:c=0.5): "
                         "only a search tree can be analysed")
    return player


def analyze_position(game, player: str, playouts: int, seed: int = 0, fractions=DEFAULT_FRACTIONS,
                     progress=None) -> Analysis:
    """Search ``game`` with the MCTS player ``player`` for ``playouts`` iterations (early stopping
    off) and keep the snapshots (module docstring)."""
    p = mcts_player(player, playouts)
    growth = visit_growth(game, p.policy, playouts, seed=seed, fractions=fractions, progress=progress,
                          final=p.final, solver=p.solver, node_cap=p.node_cap, specialize=p.specialize,
                          options=p.options)
    return Analysis(game, player, growth, growth.result, search_record(game, growth.result, top=5))


def _json_value(v):
    if isinstance(v, float) and not np.isfinite(v):
        return None
    return v


def check_outputs(out, overwrite: bool = False) -> None:
    """FileExistsError when ``out`` already holds one of OUTPUT_FILES and not ``overwrite``."""
    existing = [name for name in OUTPUT_FILES if os.path.exists(os.path.join(out, name))]
    if existing and not overwrite:
        raise FileExistsError(f"{os.fspath(out)} already holds {', '.join(existing)}; choose another folder "
                              "or pass --overwrite (overwrite=True) to replace them")


def write_analysis(analysis: Analysis, out, depth: int = 3, width: int = 4, overwrite: bool = False) -> list[str]:
    """Write the files of the module docstring into ``out`` (created if needed); returns their paths."""
    from treepolicies.viz._mpl import plt, save_figure
    from treepolicies.viz.board import board_layout, plot_root
    from treepolicies.viz.growth import plot_growth
    from treepolicies.viz.treeview import plot_tree

    os.makedirs(out, exist_ok=True)
    check_outputs(out, overwrite)
    g, r, growth = analysis.game, analysis.result, analysis.growth
    paths = []
    if board_layout(g) is not None:
        fig = plot_root(g, r)
        paths += save_figure(fig, out, "root")
        plt.close(fig)
    for stem, fig in (("tree", plot_tree(g, r, depth=depth, width=width)), ("growth", plot_growth(g, growth))):
        paths += save_figure(fig, out, stem)
        plt.close(fig)
    paths.append(write_text(os.path.join(out, "tree.json"), tree_to_json(g, r, depth=depth, width=width)))
    paths.append(write_text(os.path.join(out, "tree.dot"), tree_to_dot(g, r, depth=depth, width=width)))
    rows = [{**row, "move": move_label(g, row["move"])} for row in root_rows(r)]
    doc = {"format": "banditree-analysis/1", "game": getattr(g, "name", type(g).__name__),
           "position": str(g), "player": analysis.player, "record": analysis.record, "root": rows,
           "growth": {"iterations": growth.iterations.tolist(),
                      "moves": [move_label(g, m) for m in growth.moves],
                      "visits": growth.visits.tolist(),
                      "values": [[_json_value(float(x)) for x in row] for row in growth.values]}}
    paths.append(write_text(os.path.join(out, "search.json"), json.dumps(doc, indent=1)))
    return paths
