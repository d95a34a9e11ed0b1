"""A drawing of the top of a search tree with matplotlib (no Graphviz binary needed).

Nodes are the :func:`treepolicies.viz.export.tree_dict` nodes, laid out by depth (the root at the
top) with each subtree given horizontal room in proportion to its number of leaves; a node's
marker area is proportional to its visits, its colour is its value for the player who made its
move (red 0 ... green 1), and the principal variation's nodes and edges are drawn red and thick.
Each node is labelled with its move and visits.
"""
from __future__ import annotations

from treepolicies.viz._mpl import plt
from treepolicies.viz.export import tree_dict

__all__ = ["layout", "plot_tree"]


def layout(root: dict) -> dict:
    """``{node id: (x, depth)}`` for a :func:`tree_dict`: leaves evenly spaced, parents centred."""
    pos: dict = {}
    counter = [0]

    def place(d, depth):
        if not d["children"]:
            x = float(counter[0])
            counter[0] += 1
        else:
            xs = [place(c, depth + 1) for c in d["children"]]
            x = (xs[0] + xs[-1]) / 2.0
        pos[d["id"]] = (x, depth)
        return x

    place(root, 0)
    return pos


def plot_tree(game, result, depth: int = 3, width: int = 4, min_visits: int = 1, title: str | None = None):
    """The tree view figure (module docstring)."""
    root = tree_dict(game, result, depth, width, min_visits)
    pos = layout(root)
    nodes, edges = [], []

    def walk(d):
        nodes.append(d)
        for c in d["children"]:
            edges.append((d, c))
            walk(c)

    walk(root)
    leaves = max(1, sum(1 for d in nodes if not d["children"]))
    fig, ax = plt.subplots(figsize=(min(24, 2 + 0.75 * leaves), 1.8 + 1.6 * max(1, depth)), constrained_layout=True)
    top = max(1, root["visits"])
    for parent, child in edges:
        (x0, y0), (x1, y1) = pos[parent["id"]], pos[child["id"]]
        pv = parent["pv"] and child["pv"]
        ax.plot([x0, x1], [y0, y1], color="red" if pv else "0.6", lw=2.5 if pv else 0.8, zorder=1)
    xs = [pos[d["id"]][0] for d in nodes]
    ys = [pos[d["id"]][1] for d in nodes]
    sizes = [20 + 2500 * d["visits"] / top for d in nodes]  # marker area ~ visits
    colours = [0.5 if d["value"] is None else d["value"] for d in nodes]
    sc = ax.scatter(xs, ys, s=sizes, c=colours, cmap="RdYlGn", vmin=0, vmax=1, zorder=2,
                    edgecolors=["red" if d["pv"] else "black" for d in nodes],
                    linewidths=[2.0 if d["pv"] else 0.5 for d in nodes])
    for d, x, y in zip(nodes, xs, ys):
        ax.annotate(f"{'root' if d['move'] is None else d['move']}\n{d['visits']}", (x, y), xytext=(0, -14),
                    textcoords="offset points", ha="center", va="top", fontsize=7, zorder=3)
    fig.colorbar(sc, ax=ax, shrink=0.7, label="value for the player who moved")
    ax.set_ylim(max(ys) + 0.7, -0.5)
    ax.set_xlim(min(xs) - 0.7, max(xs) + 0.7)
    ax.set_yticks(range(depth + 1))
    ax.set_ylabel("depth (plies)")
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    ax.set_title(title or f"top of the tree: {result.iterations} iterations, {result.tree_size} nodes; "
                 "area ~ visits, colour ~ value, red = principal variation", fontsize=9)
    ax._banditree_nodes = nodes  # the drawn nodes, for tests and notebooks
    return fig
