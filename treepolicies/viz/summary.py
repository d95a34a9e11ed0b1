"""What a search found, read from its tree: the principal variation, the root's table, a record.

Everything here reads ``result.tree`` (:mod:`treepolicies.mcts.tree`: children of node p are rows
``first[p] : first[p] + nchild[p]``, ``stats[COUNT]`` visits, ``stats[MEAN]`` mean result for
``mover``, the player who made the move into the node) from Python; no compiled kernel is
touched and nothing here imports matplotlib (the GTP engine uses this module).

Principal variation (PV): the most-visited path.  From the root, repeatedly the child with the
most visits (ties: the higher mean, then the first child), while that child has at least one
visit.  It starts with the robust final move (``final="robust"``, without the solver).
"""
from __future__ import annotations

import numpy as np

from bandits.stats import COUNT, MEAN

__all__ = ["principal_variation", "pv_nodes", "best_child", "move_label", "root_rows", "max_depth",
           "search_record", "format_record", "sgf_comment"]


def best_child(tree, node: int) -> int:
    """The most visited child of ``node`` (ties: higher mean, then the first), or -1 if ``node``
    has no visited child."""
    f, n = int(tree.first[node]), int(tree.nchild[node])
    if f < 0 or n == 0:
        return -1
    visits = tree.stats[COUNT, f:f + n]
    if visits.max() <= 0:
        return -1
    means = tree.stats[MEAN, f:f + n]
    order = np.lexsort((-np.arange(n), means, visits))  # last key primary
    return f + int(order[-1])


def pv_nodes(tree, start: int = 0, max_length: int | None = None) -> list[int]:
    """Node indices of the principal variation below ``start`` (module docstring)."""
    out: list[int] = []
    node = start
    while max_length is None or len(out) < max_length:
        child = best_child(tree, node)
        if child < 0:
            break
        out.append(child)
        node = child
    return out


def _move_object(tree, code: int):
    return int(code) if tree.compiled else tree.objects[int(code)]


def principal_variation(result, max_length: int | None = None) -> list:
    """The moves of the most-visited path from the root of ``result.tree`` (module docstring)."""
    tree = result.tree
    return [_move_object(tree, tree.move[k]) for k in pv_nodes(tree, 0, max_length)]


def move_label(game, move) -> str:
    """A move as text: ``game.move_to_str`` where the game has it (Go ``D4``, Connect Four ``3``),
    else ``str(move)``."""
    to_str = getattr(game, "move_to_str", None)
    if to_str is not None:
        try:
            return str(to_str(move))
        except (ValueError, TypeError):
            pass
    return str(move)


def root_rows(result) -> list[dict]:
    """One dict per root move, most visited first (ties: higher value, then root order):
    ``{"move", "visits", "share", "value", "order"}``; ``value`` is the mean result for the player
    to move at the root (None when unvisited), ``share`` = visits / total root visits."""
    visits = np.asarray(result.visits, np.int64)
    values = np.asarray(result.values, float)
    total = int(visits.sum())
    k = len(visits)
    order = np.lexsort((np.arange(k), -values, -visits))
    rows = []
    for rank, i in enumerate(order):
        v = int(visits[i])
        rows.append({"move": result.moves[i], "visits": v, "share": v / total if total else 0.0,
                     "value": float(values[i]) if v > 0 else None, "order": rank, "index": int(i)})
    return rows


def max_depth(tree) -> int:
    """The depth of the deepest node in the tree (the root: 0)."""
    size = int(tree.size)
    parent = tree.parent[:size]
    depth = np.zeros(size, np.int64)
    for k in range(1, size):  # children are always created after their parent
        depth[k] = depth[parent[k]] + 1
    return int(depth.max()) if size else 0


def search_record(game, result, top: int = 3, pv_length: int = 10) -> dict:
    """A JSON-ready record of one search (search logs, SGF comments, ``banditree analyze``):
    iterations, seconds, tree size, maximum depth, the chosen move with its visits and value, the
    principal variation and the ``top`` best root moves by visits."""
    rows = root_rows(result)
    chosen = next(r for r in rows if r["index"] == result.moves.index(result.move)) \
        if result.move in result.moves else None
    lab = lambda m: move_label(game, m)  # noqa: E731
    return {
        "iterations": int(result.iterations), "seconds": float(result.elapsed),
        "tree_size": int(result.tree_size), "max_depth": max_depth(result.tree),
        "stop_reason": result.stop_reason, "policy": result.policy,
        "move": lab(result.move),
        "visits": chosen["visits"] if chosen else 0,
        "value": chosen["value"] if chosen else None,
        "pv": [lab(m) for m in principal_variation(result, pv_length)],
        "top": [{"move": lab(r["move"]), "visits": r["visits"], "value": r["value"]} for r in rows[:top]],
    }


def _value(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def format_record(rec: dict, prefix: str = "") -> str:
    """One line of a search record: ``move D4 (visits 812, value 0.547); 1000 it, 0.12 s, tree 1001,
    depth 9; pv D4 E5 ...; top D4 812/0.547 E5 90/0.501 ...``."""
    top = " ".join(f"{t['move']} {t['visits']}/{_value(t['value'])}" for t in rec["top"])
    return (f"{prefix}move {rec['move']} (visits {rec['visits']}, value {_value(rec['value'])}); "
            f"{rec['iterations']} it, {rec['seconds']:.3f} s, tree {rec['tree_size']}, depth {rec['max_depth']}; "
            f"pv {' '.join(rec['pv'])}; top {top}")


def sgf_comment(rec: dict) -> str:
    """A move's SGF comment: ``banditree: D4 visits 812 value 0.547 of 1000 iterations; alternatives
    E5 90/0.501, C3 40/0.480; pv D4 E5 C3``."""
    alts = ", ".join(f"{t['move']} {t['visits']}/{_value(t['value'])}" for t in rec["top"] if t["move"] != rec["move"])
    return (f"banditree: {rec['move']} visits {rec['visits']} value {_value(rec['value'])} of {rec['iterations']} "
            f"iterations; alternatives {alts or '-'}; pv {' '.join(rec['pv'])}")
