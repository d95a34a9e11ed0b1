"""The top of a search tree as plain data: a nested dict, JSON and Graphviz DOT.

:func:`tree_dict` walks ``result.tree`` from the root, keeping at each node its ``width`` most
visited children (ties: higher mean, then the first) down to ``depth`` plies, and nodes with at
least ``min_visits`` visits.  Each node is::

    {"id": node index in the tree, "move": text (the root: null), "mover": 0/1 (who played it),
     "visits": int, "value": mean result for the mover (null when unvisited),
     "share": visits / parent's visits, "pv": on the principal variation, "children": [...]}

The root carries ``"visits"`` = its own visit count and ``"value"`` null.  The document
(:func:`tree_document`) adds ``"pv"`` (the principal variation as move texts), the search's
iterations and policy.  DOT: one ``nK [label="D4\\n120 (0.53)" ...]`` line per node and one
``nP -> nK`` per edge; the principal variation's nodes and edges are drawn bold red.  Files are
written atomically (a temporary file, then a rename).
"""
from __future__ import annotations

import json
import os
import tempfile

import numpy as np

from bandits.stats import COUNT, MEAN
from treepolicies.viz.modes import file_mode
from treepolicies.viz.summary import move_label, principal_variation, pv_nodes

__all__ = ["tree_dict", "tree_document", "tree_to_json", "tree_to_dot", "write_text", "iter_nodes"]


def _children(tree, node: int, width: int, min_visits: int) -> list[int]:
    f, n = int(tree.first[node]), int(tree.nchild[node])
    if f < 0 or n == 0:
        return []
    visits = tree.stats[COUNT, f:f + n]
    means = tree.stats[MEAN, f:f + n]
    order = np.lexsort((np.arange(n), -means, -visits))
    return [f + int(i) for i in order[:width] if visits[i] >= max(1, min_visits)]


def _check(name, value, lo):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lo:
        raise ValueError(f"{name} must be an integer >= {lo}, got {value!r}")


def tree_dict(game, result, depth: int = 3, width: int = 5, min_visits: int = 1) -> dict:
    """The top of the tree as a nested dict (module docstring); ``game`` is the root position
    (used only to write moves as text)."""
    _check("depth", depth, 0)
    _check("width", width, 1)
    _check("min_visits", min_visits, 1)
    tree = result.tree
    on_pv = set(pv_nodes(tree, 0))

    def node_dict(k: int, level: int, parent_visits: float) -> dict:
        visits = int(tree.stats[COUNT, k])
        d = {"id": int(k),
             "move": None if k == 0 else move_label(game, int(tree.move[k]) if tree.compiled
                                                    else tree.objects[int(tree.move[k])]),
             "mover": int(tree.mover[k]), "visits": visits,
             "value": float(tree.stats[MEAN, k]) if k != 0 and visits > 0 else None,
             "share": visits / parent_visits if parent_visits > 0 else None,
             "pv": k in on_pv or k == 0, "children": []}
        if level < depth:
            d["children"] = [node_dict(c, level + 1, visits) for c in _children(tree, k, width, min_visits)]
        return d

    return node_dict(0, 0, 0.0)


def tree_document(game, result, depth: int = 3, width: int = 5, min_visits: int = 1) -> dict:
    """:func:`tree_dict` with the principal variation, the root's move and the search's numbers."""
    return {"format": "banditree-tree/1", "policy": result.policy, "iterations": int(result.iterations),
            "tree_size": int(result.tree_size), "move": move_label(game, result.move),
            "pv": [move_label(game, m) for m in principal_variation(result)],
            "depth": depth, "width": width, "root": tree_dict(game, result, depth, width, min_visits)}


def tree_to_json(game, result, depth: int = 3, width: int = 5, min_visits: int = 1) -> str:
    """:func:`tree_document` as JSON text."""
    return json.dumps(tree_document(game, result, depth, width, min_visits), indent=1)


def iter_nodes(d: dict, parent=None):
    """(node dict, parent dict or None) for every node of a :func:`tree_dict`, depth first."""
    yield d, parent
    for c in d["children"]:
        yield from iter_nodes(c, d)


def _dot_escape(text: str) -> str:
    return str(text).replace("\\", "\\\\").replace('"', '\\"')


def tree_to_dot(game, result, depth: int = 3, width: int = 5, min_visits: int = 1) -> str:
    """The top of the tree as Graphviz DOT (module docstring); ``dot -Tpdf`` draws it."""
    root = tree_dict(game, result, depth, width, min_visits)
    lines = ["digraph search {", '  node [shape=box, fontname="Helvetica"];']
    for d, parent in iter_nodes(root):
        value = "" if d["value"] is None else f" ({d['value']:.3f})"
        label = _dot_escape("root" if d["move"] is None else d["move"]) + f"\\n{d['visits']}{value}"
        style = ', color=red, penwidth=2' if d["pv"] else ""
        lines.append(f'  n{d["id"]} [label="{label}", visits={d["visits"]}{style}];')
        if parent is not None:
            estyle = " [color=red, penwidth=2]" if d["pv"] and parent["pv"] else ""
            lines.append(f'  n{parent["id"]} -> n{d["id"]}{estyle};')
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_text(path, text: str) -> str:
    """Write ``text`` to ``path`` atomically (a temporary file in the same folder, then a rename)."""
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=os.path.basename(path))
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, file_mode())  # (mkstemp makes it 0600)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path
