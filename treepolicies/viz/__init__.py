"""Looking inside a search: principal variation, root tables, tree exports, board heatmaps,
tree views and visit shares against iterations (docs/inspect.md).

The data functions (:mod:`.summary`, :mod:`.export`) import no plotting library; the figures
(:mod:`.board`, :mod:`.treeview`, :mod:`.growth`) import matplotlib when first used.
"""
from __future__ import annotations

from treepolicies.viz.export import tree_dict, tree_document, tree_to_dot, tree_to_json, write_text
from treepolicies.viz.summary import (format_record, max_depth, move_label, principal_variation, root_rows,
                                      search_record)

__all__ = ["principal_variation", "root_rows", "max_depth", "move_label", "search_record", "format_record",
           "tree_dict", "tree_document", "tree_to_json", "tree_to_dot", "write_text",
           "board_grids", "plot_root", "root_heatmaps", "column_bars", "plot_tree", "visit_growth",
           "plot_growth", "checkpoints", "save_figure"]

_LAZY = {"board_grids": "board", "plot_root": "board", "root_heatmaps": "board", "column_bars": "board",
         "plot_tree": "treeview", "visit_growth": "growth", "plot_growth": "growth", "checkpoints": "growth",
         "save_figure": "_mpl"}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"treepolicies.viz.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'treepolicies.viz' has no attribute {name!r}")
